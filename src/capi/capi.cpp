// The C API's models, runtimes and frames over framecast::Engine and framecast::Runtime.
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "capi/guard.hpp"
#include "engine/check_t.hpp"
#include "framecast/engine.hpp"

using framecast::Error;
using framecast::ErrorKind;
using framecast::Frame;
using framecast::SampleDepth;
using framecast::capi::guarded;
using framecast::capi::require;

namespace {

// What a model and its runtimes share: the engine (model and backend), and the lock that runs
// their calls one at a time, since runtimes of one backend share its device queue.
struct Shared {
  explicit Shared(framecast::Engine e) : engine(std::move(e)) {}
  framecast::Engine engine;
  std::mutex mutex;
};

}  // namespace

struct framecast_model {
  std::shared_ptr<Shared> shared;
};

struct framecast_runtime {
  std::shared_ptr<Shared> shared;  // declared first: the runtime below is destroyed before it
  std::unique_ptr<framecast::Runtime> runtime;
  bool prepared = false;
  SampleDepth depth = SampleDepth::u8;  // the prepared pair's
};

namespace {

framecast::RuntimeOptions runtime_options(const framecast_options& o) {
  framecast::RuntimeOptions r;
  switch (framecast::capi::enum_number(o.precision)) {
    case FRAMECAST_PRECISION_AUTO: r.precision = framecast::Precision::automatic; break;
    case FRAMECAST_PRECISION_F32: r.precision = framecast::Precision::f32; break;
    case FRAMECAST_PRECISION_F16: r.precision = framecast::Precision::f16; break;
    case FRAMECAST_PRECISION_BF16: r.precision = framecast::Precision::bf16; break;
    default:
      throw Error(ErrorKind::invalid_argument,
                  "unknown precision " + std::to_string(framecast::capi::enum_number(o.precision)));
  }
  r.ensemble = o.ensemble;  // the Engine checks it
  r.large_motion = o.large_motion != 0;
  r.static_guard = o.static_guard != 0;
  return r;
}

// The caller's options, or the defaults; a struct from a newer header may carry fields this
// library does not know only while they are zero, so no request is silently ignored.
framecast_options checked_options(const framecast_options* given) {
  framecast_options o;
  framecast_options_init(&o);
  if (!given) return o;
  if (given->struct_size < sizeof o)
    throw Error(ErrorKind::invalid_argument,
                "options->struct_size is " + std::to_string(given->struct_size) +
                    "; set it with framecast_options_init");
  const auto* extra = reinterpret_cast<const unsigned char*>(given) + sizeof o;
  for (std::size_t i = 0; i < given->struct_size - sizeof o; ++i)
    if (extra[i] != 0)
      throw Error(ErrorKind::invalid_argument,
                  "options set fields that this library (" FRAMECAST_PROJECT_VERSION ") does not know");
  std::memcpy(&o, given, sizeof o);
  if (!o.backend) o.backend = "auto";
  return o;
}

std::size_t row_bytes(const framecast_frame& f) { return std::size_t(f.width) * 3 * (f.bits / 8); }

// Throws Error(invalid_argument) naming the frame unless it is a valid frame of the runtime's
// size. Returns its depth.
SampleDepth check_frame(const framecast_frame* f, const char* what, const framecast::Runtime& rt) {
  const std::string name(what);
  require(f, what);
  require(f->data, (name + "->data").c_str());
  if (f->bits != 8 && f->bits != 16)
    throw Error(ErrorKind::invalid_argument,
                name + " has " + std::to_string(f->bits) + " bits per sample (8 or 16)");
  if (f->width != rt.width() || f->height != rt.height())
    throw Error(ErrorKind::invalid_argument,
                name + " is " + std::to_string(f->width) + "x" + std::to_string(f->height) +
                    ", the runtime's frames are " + std::to_string(rt.width()) + "x" +
                    std::to_string(rt.height()));
  if (f->stride < row_bytes(*f))
    throw Error(ErrorKind::invalid_argument,
                name + "'s stride " + std::to_string(f->stride) + " is less than a row's " +
                    std::to_string(row_bytes(*f)) + " bytes");
  return f->bits == 8 ? SampleDepth::u8 : SampleDepth::u16;
}

// Frame's samples are rows without padding, 1 or 2 bytes each in the machine's order.
unsigned char* frame_bytes(Frame& f) {
  return f.depth() == SampleDepth::u8 ? f.rgb8().data()
                                      : reinterpret_cast<unsigned char*>(f.rgb16().data());
}

Frame read_frame(const framecast_frame& in, SampleDepth depth) {
  Frame f(in.width, in.height, depth);
  const std::size_t row = row_bytes(in);
  for (int y = 0; y < in.height; ++y)
    std::memcpy(frame_bytes(f) + y * row, static_cast<const unsigned char*>(in.data) + y * in.stride,
                row);
  return f;
}

void write_frame(Frame& f, const framecast_frame& out) {
  const std::size_t row = row_bytes(out);
  for (int y = 0; y < out.height; ++y)
    std::memcpy(static_cast<unsigned char*>(out.data) + y * out.stride, frame_bytes(f) + y * row,
                row);
}

// framecast_mids, and framecast_mid, whose one output is named `single` in messages.
framecast_status compute_mids(const char* function, framecast_runtime* runtime, const float* ts,
                              const framecast_frame* outs, std::size_t count,
                              const char* single = nullptr) {
  return guarded(function, [&] {
    require(runtime, "runtime");
    if (count == 0) return;
    require(ts, "ts");
    require(outs, single ? single : "outs");
    if (!runtime->prepared)
      throw Error(ErrorKind::invalid_argument, "no pair is prepared (call framecast_prepare_pair)");
    for (std::size_t i = 0; i < count; ++i) {
      framecast::check_t(ts[i]);
      const std::string name = single ? single : "outs[" + std::to_string(i) + "]";
      if (check_frame(&outs[i], name.c_str(), *runtime->runtime) != runtime->depth)
        throw Error(ErrorKind::invalid_argument,
                    name + " has " + std::to_string(outs[i].bits) + " bits per sample, the pair " +
                        (runtime->depth == SampleDepth::u8 ? "8" : "16"));
    }
    std::vector<Frame> mids;
    {
      const std::lock_guard lock(runtime->shared->mutex);
      mids = runtime->runtime->mids({ts, count});
    }
    for (std::size_t i = 0; i < count; ++i) write_frame(mids[i], outs[i]);
  });
}

}  // namespace

extern "C" {

framecast_status framecast_model_load(const char* model_name_or_path,
                                      const framecast_options* options, framecast_model** model) {
  return guarded(__func__, [&] {
    require(model, "model");
    *model = nullptr;
    const framecast_options o = checked_options(options);
    const auto runtime = runtime_options(o);  // checked before the model is read
    const std::string name = model_name_or_path ? model_name_or_path : "default";
    framecast::Engine engine(framecast::Model::load(framecast::resolve_model(name)),
                             {o.backend, o.device}, runtime);
    *model = new framecast_model{std::make_shared<Shared>(std::move(engine))};
  });
}

void framecast_model_destroy(framecast_model* model) { delete model; }

framecast_status framecast_model_backend(const framecast_model* model, const char** backend) {
  return guarded(__func__, [&] {
    require(model, "model");
    require(backend, "backend");
    *backend = model->shared->engine.backend_name().c_str();
  });
}

framecast_status framecast_model_source(const framecast_model* model, const char** path) {
  return guarded(__func__, [&] {
    require(model, "model");
    require(path, "path");
    *path = model->shared->engine.model().source().c_str();
  });
}

framecast_status framecast_model_warning(const framecast_model* model, const char** warning) {
  return guarded(__func__, [&] {
    require(model, "model");
    require(warning, "warning");
    *warning = model->shared->engine.backend_warning().c_str();
  });
}

framecast_status framecast_runtime_create(framecast_model* model, int width, int height,
                                          framecast_runtime** runtime) {
  return guarded(__func__, [&] {
    require(runtime, "runtime");
    *runtime = nullptr;
    require(model, "model");
    if (width < 1 || height < 1)
      throw Error(ErrorKind::invalid_argument, "frame size " + std::to_string(width) + "x" +
                                                   std::to_string(height) + " has no pixels");
    auto handle = std::make_unique<framecast_runtime>();
    handle->shared = model->shared;
    const std::lock_guard lock(handle->shared->mutex);
    handle->runtime = handle->shared->engine.create_runtime(width, height);
    *runtime = handle.release();
  });
}

void framecast_runtime_destroy(framecast_runtime* runtime) {
  if (!runtime) return;
  guarded(__func__, [&] {  // for the lock, which throws only on a broken mutex
    const auto shared = runtime->shared;  // outlives the lock below
    const std::lock_guard lock(shared->mutex);
    delete runtime;
  });
}

framecast_status framecast_prepare_pair(framecast_runtime* runtime, const framecast_frame* frame0,
                                        const framecast_frame* frame1) {
  return guarded(__func__, [&] {
    require(runtime, "runtime");
    runtime->prepared = false;
    const auto& rt = *runtime->runtime;
    const SampleDepth depth = check_frame(frame0, "frame0", rt);
    if (check_frame(frame1, "frame1", rt) != depth)
      throw Error(ErrorKind::invalid_argument, "frame0 has " + std::to_string(frame0->bits) +
                                                   " bits per sample and frame1 " +
                                                   std::to_string(frame1->bits));
    const Frame f0 = read_frame(*frame0, depth), f1 = read_frame(*frame1, depth);
    const std::lock_guard lock(runtime->shared->mutex);
    runtime->runtime->prepare_pair(f0, f1);
    runtime->prepared = true;
    runtime->depth = depth;
  });
}

framecast_status framecast_prepare_next(framecast_runtime* runtime, const framecast_frame* next) {
  return guarded(__func__, [&] {
    require(runtime, "runtime");
    if (!runtime->prepared)
      throw Error(ErrorKind::invalid_argument, "no pair is prepared (call framecast_prepare_pair)");
    const SampleDepth depth = check_frame(next, "next", *runtime->runtime);
    if (depth != runtime->depth)
      throw Error(ErrorKind::invalid_argument,
                  "next has " + std::to_string(next->bits) + " bits per sample, the pair " +
                      (runtime->depth == SampleDepth::u16 ? "16" : "8"));
    const Frame f = read_frame(*next, depth);
    const std::lock_guard lock(runtime->shared->mutex);
    runtime->prepared = false;
    runtime->runtime->prepare_next(f);
    runtime->prepared = true;
  });
}

framecast_status framecast_mids(framecast_runtime* runtime, const float* ts,
                                const framecast_frame* outs, size_t count) {
  return compute_mids(__func__, runtime, ts, outs, count);
}

framecast_status framecast_mid(framecast_runtime* runtime, float t, const framecast_frame* out) {
  return compute_mids(__func__, runtime, &t, out, 1, "out");
}

}  // extern "C"
