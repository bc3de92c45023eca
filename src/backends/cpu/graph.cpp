#include "backends/cpu/graph.hpp"

#include <omp.h>

#include "backends/cpu/ops_reference.hpp"
#include "framecast/error.hpp"

namespace framecast::cpu {
namespace {

int round_up16(int v) { return (v + 15) / 16 * 16; }

}  // namespace

CpuRuntime::CpuRuntime(const Model& model, int width, int height, const RuntimeOptions& options,
                       CpuPath path)
    : Runtime(width, height),
      model_(model),
      options_(options),
      path_(path),
      padded_width_(round_up16(width)),
      padded_height_(round_up16(height)) {
  if (width <= 0 || height <= 0)
    throw Error(ErrorKind::invalid_argument, "invalid frame size");
  if (options.precision == Precision::f16)
    throw Error(ErrorKind::unsupported, "the CPU backend computes in f32 only (--precision f16)");
  net_ = path == CpuPath::fast ? make_dnnl_net(model, padded_width_, padded_height_)
                               : make_reference_net(model, padded_width_, padded_height_);
}

template <typename F>
void CpuRuntime::stage(const char* name, F&& work) {
  if (!options_.profile) {
    work();
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  work();
  const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
  profile_.push_back({name, ms.count()});
}

void CpuRuntime::prepare_pair(const Frame& frame0, const Frame& frame1) {
  check_pair(frame0, frame1);
  profile_.clear();
  depth_ = frame0.depth();
  stage("prep", [&] { frames_to_planes(frame0, frame1, imgs_); });
  if (model_.variant() != Variant::classic) {  // the t-free trunk, once per pair
    stage("prep_quarter", [&] { prep_quarter(imgs_, padded_width_, padded_height_, 6, 0.0f, xq_); });
    stage("encoder", [&] { net_->encode(xq_); });
    stage("trunk", [&] { net_->convblocks(0, 6); });
    net_->save_trunk();
  }
  prepared_ = true;
}

Frame CpuRuntime::mid(float t) {
  if (!prepared_) throw Error(ErrorKind::internal, "mid() before prepare_pair()");
  if (!(t >= 0.0f && t <= 1.0f))
    throw Error(ErrorKind::invalid_argument, "t = " + std::to_string(t) + " is outside [0, 1]");
  if (options_.profile) profile_.clear();
  if (model_.variant() == Variant::classic) {
    stage("prep_quarter", [&] { prep_quarter(imgs_, padded_width_, padded_height_, 7, t, xq_); });
    stage("encoder", [&] { net_->encode(xq_); });
    stage("trunk", [&] { net_->convblocks(0, 8); });
  } else {
    net_->restore_trunk();
    stage("film", [&] { net_->film(film_params(model_, t)); });
    stage("trunk_tail", [&] { net_->convblocks(6, 8); });
  }
  stage("deconv", [&] { net_->decode(tmp8_); });
  const Planes* residual = nullptr;
  if (model_.variant() == Variant::tfact2) {
    stage("refine", [&] {
      refine_prep(tmp8_, imgs_, rin_);
      net_->refine(rin_, refine_features_);
      refine_out(refine_features_, model_, residual_);
    });
    residual = &residual_;
  }
  Frame out(width(), height(), depth_);
  stage("flow_out", [&] { flow_out(tmp8_, imgs_, residual, options_.static_guard, out); });
  return out;
}

std::string CpuRuntime::describe() const {
  return std::string(path_ == CpuPath::fast ? "cpu (oneDNN" : "cpu-reference (plain loops") +
         ", f32, " + std::to_string(omp_get_max_threads()) + " threads)";
}

}  // namespace framecast::cpu
