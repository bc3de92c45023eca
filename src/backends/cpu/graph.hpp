// The CPU runtime: the seed's schedule (prep, encoder, trunk, FiLM, decoder, refine,
// flow-out) over ConvNets, with the pair-only work done once per pair. Models with
// refinement blocks accumulate a full-resolution flow field block by block.
#pragma once

#include <chrono>
#include <memory>

#include "backends/cpu/conv_net.hpp"
#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/ops_reference.hpp"
#include "backends/cpu/planes.hpp"
#include "engine/cancelled.hpp"
#include "framecast/backend.hpp"

namespace framecast::cpu {

class CpuRuntime final : public Runtime {
 public:
  // `cancelled` is asked before each network is set up (oneDNN builds its kernels then) and
  // before each stage of a pair (Error(cancelled); a pair must then be prepared again).
  CpuRuntime(const Model& model, int width, int height, const RuntimeOptions& options,
             CpuPath path, const Cancelled& cancelled = {});

  void prepare_pair(const Frame& frame0, const Frame& frame1) override;
  void prepare_next(const Frame& next) override;
  Frame mid(float t) override;
  std::vector<StageTime> last_profile() const override { return profile_; }
  std::string describe() const override;
  // The large-motion pass's choice for the last mid: block0 at 1/8 (else 1/4).
  bool half_chosen() const noexcept { return half_chosen_; }

 private:
  // Times one stage into the profile when profiling; asks `cancelled_` first.
  template <typename F>
  void stage(const std::string& name, F&& work);

  const Model& model_;
  RuntimeOptions options_;
  Cancelled cancelled_;
  CpuPath path_;
  bool bf16_;  // the oneDNN convs store bfloat16
  int padded_width_, padded_height_;  // the grid: multiples of 16
  int half_width_, half_height_;      // the large-motion pass's block0 at 1/8: multiples of 32
  // Block0 on the frames at 1/scale (4, or 8 for the large-motion pass, on the frames padded
  // to 32): its input and the trunk's t-free part (all of it for classic models); then the
  // rest, into tmp8_ / tmp16_ (and, convex by 2, up4_ / up8_), returned as a flow field.
  // `label` prefixes the profile's stages ("half." for 1/8). The 1/8 output covers more than
  // the grid; the flow passes read it by its factor within the grid.
  void block0_head(ConvNet& net, int scale, float t, const std::string& label);
  FlowField block0_tail(ConvNet& net, int scale, float t, const std::string& label);
  // Block0's flow for t: at 1/4, or with the large-motion pass the better-agreeing of 1/4 and 1/8.
  FlowField block0_flow(float t);
  // The flow and mask after every block: refinement blocks run on the full-resolution field.
  void run_refinement_blocks(const FlowField& block0, float t);

  std::vector<std::unique_ptr<ConvNet>> nets_;  // block0, then the refinement blocks
  std::unique_ptr<ConvNet> half_net_;           // block0 at 1/8: the large-motion pass
  bool half_chosen_ = false;                    // the last mid's choice
  Planes imgs_, xq_, xh_, tmp8_, tmp16_, field_, block_input_, rin_, refine_features_, residual_;
  Planes logits_;  // a convex block's upmask output
  Planes up4_, up8_;  // a convex block0's output upsampled by 2, at 1/4 and 1/8
  SampleDepth depth_ = SampleDepth::u8;
  bool prepared_ = false;
  Frame second_;  // the pair's second frame, the first of prepare_next's pair
  std::vector<StageTime> pair_profile_, profile_;  // prepare_pair's stages; the last mid's
};

}  // namespace framecast::cpu
