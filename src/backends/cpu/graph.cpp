#include "backends/cpu/graph.hpp"

#include <omp.h>

#include "backends/cpu/ops_fast.hpp"
#include "backends/cpu/ops_reference.hpp"
#include "engine/round_up.hpp"
#include "framecast/error.hpp"

namespace framecast::cpu {
namespace {

// bf16 where asked for, or by default where the CPU has bfloat16 instructions (AMX, or
// AVX512-BF16 alone as on AMD's Zen 4: 1.3-1.9x faster than f32 there); f32 otherwise.
bool use_bf16(Precision precision, CpuPath path) {
  if (precision == Precision::f16)
    throw Error(ErrorKind::unsupported, "the CPU backend computes in f32 or bf16 (--precision f16)");
  if (precision == Precision::bf16 && path == CpuPath::reference)
    throw Error(ErrorKind::unsupported, "cpu-reference computes in f32 only (--precision bf16)");
  if (precision == Precision::bf16 && cpu_bf16() == CpuBf16::none)
    throw Error(ErrorKind::unsupported,
                "this CPU has no bfloat16 instructions (--precision bf16); use f32 or auto");
  if (path == CpuPath::reference || precision == Precision::f32) return false;
  return cpu_bf16() != CpuBf16::none;
}

// The full-resolution per-pixel passes of each path (the convolutions are the ConvNet's): the
// reference ops are the oracle, the fast ones (ops_fast.hpp) compute the same up to float
// rounding.
struct PixelPasses {
  decltype(&cpu::frames_to_planes) frames_to_planes;
  decltype(&cpu::upsample_flow) upsample_flow;
  decltype(&cpu::add_flow_residual) add_flow_residual;
  decltype(&cpu::add_convex_residual) add_convex_residual;
  decltype(&cpu::refinement_input) refinement_input;
  decltype(&cpu::warp_disagreement) warp_disagreement;
  decltype(&cpu::refine_prep) refine_prep;
  decltype(&cpu::refine_out) refine_out;
  decltype(&cpu::flow_out) flow_out;
};

constexpr PixelPasses kReferencePasses{
    &cpu::frames_to_planes,    &cpu::upsample_flow,    &cpu::add_flow_residual,
    &cpu::add_convex_residual, &cpu::refinement_input, &cpu::warp_disagreement,
    &cpu::refine_prep,         &cpu::refine_out,       &cpu::flow_out};
constexpr PixelPasses kFastPasses{
    &fast::frames_to_planes,    &fast::upsample_flow,    &fast::add_flow_residual,
    &fast::add_convex_residual, &fast::refinement_input, &fast::warp_disagreement,
    &fast::refine_prep,         &fast::refine_out,       &fast::flow_out};

const PixelPasses& passes(CpuPath path) {
  return path == CpuPath::fast ? kFastPasses : kReferencePasses;
}

}  // namespace

CpuRuntime::CpuRuntime(const Model& model, int width, int height, const RuntimeOptions& options,
                       CpuPath path, const Cancelled& cancelled)
    : Runtime(width, height),
      model_(model),
      options_(options),
      cancelled_(cancelled),
      path_(path),
      bf16_(use_bf16(options.precision, path)),
      padded_width_(round_up(width, 16)),
      padded_height_(round_up(height, 16)),
      half_width_(round_up(width, 32)),
      half_height_(round_up(height, 32)) {
  if (width <= 0 || height <= 0)
    throw Error(ErrorKind::invalid_argument, "invalid frame size");
  const auto make_net = [&](const BlockSpec& block) {
    throw_if_cancelled(cancelled_);
    return (path == CpuPath::fast ? make_dnnl_net : make_reference_net)(model, block);
  };
  nets_.push_back(make_net({"block0", padded_width_ / 4, padded_height_ / 4,
                            model.variant() == Variant::tfact2, bf16_}));
  for (const auto& b : model.shape().blocks)
    nets_.push_back(make_net({"block" + std::to_string(b.index), padded_width_ / b.scale,
                              padded_height_ / b.scale, false, bf16_}));
  if (options.large_motion)
    half_net_ = make_net({"block0", half_width_ / 8, half_height_ / 8, false, bf16_});
}

template <typename F>
void CpuRuntime::stage(const std::string& name, F&& work) {
  throw_if_cancelled(cancelled_);
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
  prepared_ = false;  // until every stage has run: a cancelled pair is no pair
  profile_.clear();
  pair_profile_.clear();
  depth_ = frame0.depth();
  stage("prep", [&] { passes(path_).frames_to_planes(frame0, frame1, imgs_); });
  if (model_.variant() != Variant::classic) {  // the t-free trunk, once per pair
    block0_head(*nets_[0], 4, 0.0f, "");
    nets_[0]->save_trunk();
    if (half_net_) {
      block0_head(*half_net_, 8, 0.0f, "half.");
      half_net_->save_trunk();
    }
  }
  pair_profile_ = profile_;
  prepared_ = true;
  second_ = frame1;
}

void CpuRuntime::prepare_next(const Frame& next) {
  check_next(next, prepared_, depth_);  // a cancelled pair is no pair
  const Frame first = std::move(second_);
  prepare_pair(first, next);
}

Frame CpuRuntime::mid(float t) {
  if (!prepared_) throw Error(ErrorKind::internal, "mid() before prepare_pair()");
  if (!(t >= 0.0f && t <= 1.0f))
    throw Error(ErrorKind::invalid_argument, "t = " + std::to_string(t) + " is outside [0, 1]");
  profile_ = pair_profile_;  // the pair's stages, then this mid's (as the Vulkan runtime reports)
  const FlowField block0 = block0_flow(t);
  // The 1-block student reads block0's coarse output directly (the seed's fused pass).
  if (nets_.size() > 1) run_refinement_blocks(block0, t);
  const FlowField flow = nets_.size() > 1 ? FlowField(field_, 1) : block0;
  const PixelPasses& ops = passes(path_);
  const Planes* residual = nullptr;
  if (model_.variant() == Variant::tfact2) {
    stage("refine_prep", [&] { ops.refine_prep(flow, imgs_, rin_); });
    stage("refine_convs", [&] { nets_[0]->refine(rin_, refine_features_); });
    stage("refine_out", [&] { ops.refine_out(refine_features_, model_, residual_); });
    residual = &residual_;
  }
  Frame out(width(), height(), depth_);
  stage("flow_out", [&] { ops.flow_out(flow, imgs_, residual, options_.static_guard, out); });
  return out;
}

void CpuRuntime::block0_head(ConvNet& net, int scale, float t, const std::string& label) {
  const bool classic = model_.variant() == Variant::classic;
  const bool quarter = scale == 4;
  Planes& input = quarter ? xq_ : xh_;
  stage(label + "prep_quarter", [&] {
    prep_quarter(imgs_, quarter ? padded_width_ : half_width_,
                 quarter ? padded_height_ : half_height_, classic ? 7 : 6, t, input, scale);
  });
  stage(label + "encoder", [&] { net.encode(input); });
  stage(label + "trunk", [&] { net.convblocks(0, classic ? 8 : 6); });
}

FlowField CpuRuntime::block0_tail(ConvNet& net, int scale, float t, const std::string& label) {
  if (model_.variant() == Variant::classic) {
    block0_head(net, scale, t, label);
  } else {
    net.restore_trunk();
    stage(label + "film", [&] { net.film(film_params(model_, t)); });
    stage(label + "trunk_tail", [&] { net.convblocks(6, 8); });
  }
  Planes& coarse = scale == 4 ? tmp8_ : tmp16_;
  stage(label + "deconv", [&] { net.decode(coarse); });
  if (!model_.shape().convex_block0) return FlowField(coarse, 2 * scale);
  // Convex by f = 2, flows times f (exact): a field of factor 2 scale / f that the bilinear
  // passes take the rest of the way, as the reference resizes the convex output.
  const int f = ModelShape::block0_convex_factor;
  Planes& up = scale == 4 ? up4_ : up8_;
  stage(label + "upmask", [&] { net.upmask(logits_); });
  stage(label + "convex_up", [&] {
    up = Planes(5, f * coarse.height, f * coarse.width);
    passes(path_).add_convex_residual(coarse, logits_, f, up);
  });
  return FlowField(up, 2 * scale / f);
}

FlowField CpuRuntime::block0_flow(float t) {
  const FlowField quarter = block0_tail(*nets_[0], 4, t, "");
  if (!half_net_) return quarter;
  const FlowField half = block0_tail(*half_net_, 8, t, "half.");
  const PixelPasses& ops = passes(path_);
  stage("scale_choice", [&] {
    half_chosen_ = ops.warp_disagreement(half, imgs_) < ops.warp_disagreement(quarter, imgs_);
  });
  return half_chosen_ ? half : quarter;
}

void CpuRuntime::run_refinement_blocks(const FlowField& block0, float t) {
  const PixelPasses& ops = passes(path_);
  stage("flow_field", [&] {
    ops.upsample_flow(block0.planes, padded_width_, padded_height_, float(block0.factor), field_);
  });
  const bool classic = model_.variant() == Variant::classic;
  for (std::size_t i = 1; i < nets_.size(); ++i) {
    const RefinementBlock& b = model_.shape().blocks[i - 1];
    const std::string name = "block" + std::to_string(b.index);  // stages "blockK.input", ...
    ConvNet& net = *nets_[i];
    stage(name + ".input",
          [&] { ops.refinement_input(imgs_, field_, classic, t, b.scale, block_input_); });
    stage(name + ".trunk", [&] {
      net.encode(block_input_);
      net.convblocks(0, 6);
      if (!classic) net.film(film_params(model_, name + ".film", t));
      net.convblocks(6, 8);
      net.decode(tmp8_);
      if (b.convex) net.upmask(logits_);
    });
    stage(name + ".flow", [&] {
      if (b.convex) {
        ops.add_convex_residual(tmp8_, logits_, b.upsample_factor(), field_);
      } else {
        ops.add_flow_residual(tmp8_, float(b.upsample_factor()), field_);
      }
    });
  }
}

std::string CpuRuntime::describe() const {
  return std::string(path_ == CpuPath::fast ? "cpu (oneDNN" : "cpu-reference (plain loops") +
         (bf16_ ? ", bf16, " : ", f32, ") + std::to_string(omp_get_max_threads()) + " threads" +
         (half_net_ ? ", large-motion pass)" : ")");
}

}  // namespace framecast::cpu
