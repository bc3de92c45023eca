#include "framecast/engine.hpp"

#include <cmath>
#include <utility>

#include "engine/check_t.hpp"
#include "engine/ensemble.hpp"
#include "framecast/error.hpp"

namespace framecast {
namespace {

const RuntimeOptions& checked(const RuntimeOptions& options) {
  if (!valid_ensemble(options.ensemble))
    throw Error(ErrorKind::invalid_argument, "an ensemble of " + std::to_string(options.ensemble) +
                                                 " passes is not offered (1, 2 or 4)");
  return options;
}

}  // namespace

Engine::Engine(Model model, const BackendRequest& backend, const RuntimeOptions& options)
    : Engine([&](const Backend&) { return std::move(model); }, backend, options) {}

Engine::Engine(const ModelPicker& pick, const BackendRequest& backend, const RuntimeOptions& options)
    : Engine(make_backend(backend), pick, options) {}

Engine::Engine(BackendChoice choice, const ModelPicker& pick, const RuntimeOptions& options)
    : options_(checked(options)),
      model_(pick(*choice.backend)),
      backend_(std::move(choice.backend)),
      backend_name_(backend_->name()),
      backend_warning_(std::move(choice.warning)) {}

Runtime& Engine::runtime(int width, int height) {
  auto& slot = runtimes_[{width, height}];
  if (!slot) slot = create_runtime(width, height);
  return *slot;
}

std::unique_ptr<Runtime> Engine::create_runtime(int width, int height) {
  auto runtime = backend_->create_runtime(model_, width, height, options_);
  if (options_.ensemble > 1 && !backend_->runs_ensembles())
    runtime = make_ensemble_runtime(std::move(runtime), options_.ensemble, options_.profile);
  return runtime;
}

Frame Engine::interpolate(const Frame& frame0, const Frame& frame1, float t) {
  check_t(t);
  auto& rt = runtime(frame0.width(), frame0.height());
  rt.prepare_pair(frame0, frame1);
  return rt.mid(t);
}

std::vector<Frame> Engine::interpolate(const Frame& frame0, const Frame& frame1,
                                       std::span<const float> ts) {
  for (float t : ts) check_t(t);
  auto& rt = runtime(frame0.width(), frame0.height());
  rt.prepare_pair(frame0, frame1);
  return rt.mids(ts);
}

std::vector<Frame> Engine::interpolate_next(const Frame& next, std::span<const float> ts) {
  for (float t : ts) check_t(t);
  auto& rt = runtime(next.width(), next.height());
  rt.prepare_next(next);
  return rt.mids(ts);
}

void Engine::start(const Frame& frame0, const Frame& frame1, std::span<const float> ts) {
  for (float t : ts) check_t(t);
  auto& rt = runtime(frame0.width(), frame0.height());
  start_on(rt, ts, [&] { rt.prepare_pair(frame0, frame1); });
}

void Engine::start_next(const Frame& next, std::span<const float> ts) {
  for (float t : ts) check_t(t);
  auto& rt = runtime(next.width(), next.height());
  start_on(rt, ts, [&] { rt.prepare_next(next); });
}

void Engine::start_on(Runtime& runtime, std::span<const float> ts,
                      const std::function<void()>& prepare) {
  if (taken_)
    throw Error(ErrorKind::internal, "Engine::start: the pair before last is not finished");
  prepare();  // while the last pair's mids compute
  if (started_) taken_ = std::exchange(started_, nullptr)->take_mids();
  runtime.start_mids(ts);
  started_ = &runtime;
}

std::vector<Frame> Engine::finish() {
  if (taken_) return *std::exchange(taken_, std::nullopt);
  if (!started_) throw Error(ErrorKind::internal, "Engine::finish without a started pair");
  Runtime* runtime = std::exchange(started_, nullptr);
  return runtime->take_mids();
}

}  // namespace framecast
