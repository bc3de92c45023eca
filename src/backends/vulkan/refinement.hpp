// The refinement blocks of the quality tier on the GPU. The runtime upsamples block0's coarse
// output into a full-resolution flow field [5, padded h, padded w] f32 (flows in pixels, mask
// logits); then each block k builds its input from the field and both frames (warp, concat,
// resize to 1 / scale), runs its FlowBlock, and adds its upsampled output to the field:
// bilinearly, or in convex models by convex upsampling under the logits of the block's upmask
// (one logits buffer serves every block, as they run one after another). The flow depends on
// t, so all of it runs per mid; refine_prep and flow_out then read the field instead of
// block0's output.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/vulkan/flow_block.hpp"

namespace framecast::vulkan {

class RefinementChain {
 public:
  // The trunk conv wanted for a block of trunk width `width` on a plane_w x plane_h plane.
  using TrunkChoice = std::function<ConvChoice(int width, int plane_w, int plane_h)>;

  // Adds every refinement block's weights to `weights` (before its upload).
  RefinementChain(const Model& model, const DeviceCaps& caps, Storage storage, int padded_w,
                  int padded_h, const TrunkChoice& trunk_choice, WeightArena& weights);
  // Descriptor sets that build() takes from a pool.
  std::uint32_t descriptor_sets() const;
  // After the arena's upload. `field` holds block0's flow when record() runs; img0 and img1
  // are the frames' planes.
  void build(const std::shared_ptr<const Context>& context, const WeightArena& weights,
             DescriptorPool& sets, int slots, int width, int height, const Buffer& field,
             const Buffer& img0, const Buffer& img1);

  // Every block's pass over the field, for one t.
  void record(CommandBuffer& cmd, int slot, float t) const;
  void write_film(const Model& model, int slot, float t);

  const std::vector<std::unique_ptr<FlowBlock>>& blocks() const noexcept { return blocks_; }

 private:
  struct Stage {  // one block's passes around its FlowBlock
    RefinementBlock block;
    std::unique_ptr<Pipeline> input, accumulate;
    VkDescriptorSet input_set = VK_NULL_HANDLE, accumulate_set = VK_NULL_HANDLE;
  };

  Storage storage_;
  bool with_t_;
  int padded_w_, padded_h_;
  std::vector<std::unique_ptr<FlowBlock>> blocks_;
  std::vector<Stage> stages_;
  Buffer logits_;  // convex models: the upmask logits of the block that runs, storage precision
};

}  // namespace framecast::vulkan
