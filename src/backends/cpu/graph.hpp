// The CPU runtime: the seed's schedule (prep, encoder, trunk, FiLM, decoder, refine,
// flow-out) over ConvNets, with the pair-only work done once per pair. Models with
// refinement blocks accumulate a full-resolution flow field block by block.
#pragma once

#include <chrono>
#include <memory>

#include "backends/cpu/conv_net.hpp"
#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/planes.hpp"
#include "framecast/backend.hpp"

namespace framecast::cpu {

class CpuRuntime final : public Runtime {
 public:
  CpuRuntime(const Model& model, int width, int height, const RuntimeOptions& options,
             CpuPath path);

  void prepare_pair(const Frame& frame0, const Frame& frame1) override;
  Frame mid(float t) override;
  std::vector<StageTime> last_profile() const override { return profile_; }
  std::string describe() const override;

 private:
  // Times one stage into the profile when profiling.
  template <typename F>
  void stage(const std::string& name, F&& work);

  const Model& model_;
  RuntimeOptions options_;
  CpuPath path_;
  bool bf16_;  // the oneDNN convs store bfloat16
  int padded_width_, padded_height_;
  // The flow and mask after every block: refinement blocks run on the full-resolution field.
  void run_refinement_blocks(float t);

  std::vector<std::unique_ptr<ConvNet>> nets_;  // block0, then the refinement blocks
  Planes imgs_, xq_, tmp8_, field_, block_input_, rin_, refine_features_, residual_;
  SampleDepth depth_ = SampleDepth::u8;
  bool prepared_ = false;
  std::vector<StageTime> pair_profile_, profile_;  // prepare_pair's stages; the last mid's
};

}  // namespace framecast::cpu
