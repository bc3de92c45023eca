// The large-motion pass on the GPU (RuntimeOptions::large_motion): block0 again, on the frames
// padded to multiples of 32 and resampled by 1/8, where motion is half as long; both block0
// outputs' warp disagreement over the frame (a partial sum per workgroup); the choice of the
// smaller in one workgroup; and the chosen output upsampled into the full-resolution flow field
// (the grid padded to 16) that the rest of the graph reads. The choice never leaves the GPU, so
// a mid stays one submission.
#pragma once

#include <functional>
#include <memory>

#include "backends/vulkan/flow_block.hpp"

namespace framecast::vulkan {

class LargeMotionPass {
 public:
  // The trunk conv wanted for a trunk of width `width` on a plane_w x plane_h plane.
  using TrunkChoice = std::function<ConvChoice(int width, int plane_w, int plane_h)>;

  // Adds the 1/8 block's weights to `weights` (before its upload): its own copy of block0's,
  // since its tuned trunk conv may read another layout. `block0` is the 1/4 block's layout;
  // width x height the frames' real size.
  LargeMotionPass(const Model& model, const FlowBlock::Layout& block0, int width, int height,
                  const DeviceCaps& caps, Storage storage, const TrunkChoice& trunk_choice,
                  WeightArena& weights);
  // Descriptor sets that build() takes from a pool.
  static constexpr std::uint32_t kDescriptorSets = FlowBlock::kDescriptorSets + 5;

  // After the arena's upload. `coarse4` is block0's flow (FlowBlock::flow) at 1/4 of the grid
  // padded to 16, whose size is `padded_w` x `padded_h`; img0 and img1 the frames' planes; `field` the
  // full-resolution flow field [5, padded_h, padded_w] it writes.
  void build(const std::shared_ptr<const Context>& context, const WeightArena& weights,
             DescriptorPool& sets, int slots, int padded_w, int padded_h, const Buffer& coarse4,
             const Buffer& img0, const Buffer& img1, const Buffer& field);

  // The 1/8 block's input (with t for classic models). The runtime records the block's head
  // and tail beside block0's at 1/4 (FlowBlock::record_head, record_tail), since they share
  // nothing but the frames and the 1/8 plane alone does not fill a large GPU.
  void record_prep(CommandBuffer& cmd, float t) const;
  // The two disagreements, the choice and the field, after both blocks' tails.
  void record_choice(CommandBuffer& cmd) const;
  void write_film(const Model& model, int slot, float t);

  const FlowBlock& block() const noexcept { return block_; }

 private:
  FlowBlock block_;
  Storage storage_;
  int channels_;
  int width_, height_;             // the frames' real size
  int padded_w_ = 0, padded_h_ = 0;  // the grid the field covers
  Buffer sums_, choice_;
  std::unique_ptr<Pipeline> prep_, disagreement4_, disagreement8_, choose_scale_, field_;
  VkDescriptorSet prep_set_ = VK_NULL_HANDLE, disagreement4_set_ = VK_NULL_HANDLE,
                  disagreement8_set_ = VK_NULL_HANDLE, choose_scale_set_ = VK_NULL_HANDLE,
                  field_set_ = VK_NULL_HANDLE;
};

}  // namespace framecast::vulkan
