#include "backends/vulkan/large_motion.hpp"

#include "backends/vulkan/kernels.hpp"
#include "engine/round_up.hpp"

namespace framecast::vulkan {
namespace {

FlowBlock::Layout half_layout(const FlowBlock::Layout& block0, int width, int height) {
  FlowBlock::Layout half = block0;
  half.label = "half.";  // profile stages "half.conv0a", ...
  half.in_w = round_up(width, 32) / 8;
  half.in_h = round_up(height, 32) / 8;
  return half;
}

}  // namespace

LargeMotionPass::LargeMotionPass(const Model& model, const FlowBlock::Layout& block0, int width,
                                 int height, const DeviceCaps& caps, Storage storage,
                                 const TrunkChoice& trunk_choice, WeightArena& weights)
    : block_(model, half_layout(block0, width, height), caps, storage,
             trunk_choice(block0.c2, round_up(width, 32) / 32, round_up(height, 32) / 32), weights),
      storage_(storage),
      channels_(block0.ci),
      width_(width),
      height_(height) {}

void LargeMotionPass::build(const std::shared_ptr<const Context>& context,
                            const WeightArena& weights, DescriptorPool& sets, int slots,
                            int padded_w, int padded_h, const Buffer& coarse4, const Buffer& img0,
                            const Buffer& img1, const Buffer& field) {
  padded_w_ = padded_w;
  padded_h_ = padded_h;
  block_.build(context, weights, sets, slots);
  const int width = width_, height = height_;
  const FlowBlock& half = block_;
  prep_ = make_prep_quarter(context, storage_, width, height, half.layout().in_w,
                            half.layout().in_h, channels_, 8);
  {
    const BufferRange r[] = {img0.range(), img1.range(), block_.input().range()};
    prep_set_ = sets.allocate(*prep_, r);
  }
  const auto groups = int(warp_disagreement_groups(width, height));
  sums_ = Buffer(context, std::size_t(2) * groups * 4, MemoryUse::device);
  choice_ = Buffer(context, 4, MemoryUse::device);
  // block0's flow at 1/4 spans the same grid pixels as the half block's at 1/8 do at 1/4
  const int factor4 = half.flow_factor(4), factor8 = half.flow_factor(8);
  disagreement4_ = make_warp_disagreement(context, width, height, padded_w / factor4,
                                          padded_h / factor4, factor4, 0);
  disagreement8_ = make_warp_disagreement(context, width, height, half.flow_w(), half.flow_h(),
                                          factor8, groups);
  {
    const BufferRange r4[] = {coarse4.range(), img0.range(), img1.range(), sums_.range()};
    disagreement4_set_ = sets.allocate(*disagreement4_, r4);
    const BufferRange r8[] = {block_.flow().range(), img0.range(), img1.range(), sums_.range()};
    disagreement8_set_ = sets.allocate(*disagreement8_, r8);
  }
  choose_scale_ = make_scale_choice(context, groups);
  {
    const BufferRange r[] = {sums_.range(), choice_.range()};
    choose_scale_set_ = sets.allocate(*choose_scale_, r);
  }
  field_ = make_flow_choose(context, padded_w, padded_h, half.flow_w(), half.flow_h(), factor4);
  {
    const BufferRange r[] = {coarse4.range(), block_.flow().range(), choice_.range(),
                             field.range()};
    field_set_ = sets.allocate(*field_, r);
  }
}

void LargeMotionPass::record_prep(CommandBuffer& cmd, float t) const {
  const FlowBlock::Layout& layout = block_.layout();
  cmd.dispatch(*prep_, prep_set_, PrepQuarterPush{t},
               {std::uint32_t(layout.in_w), std::uint32_t(layout.in_h), 1});
  cmd.mark("half.prep_quarter");
}

void LargeMotionPass::record_choice(CommandBuffer& cmd) const {
  const Extent3 frame{std::uint32_t(width_), std::uint32_t(height_), 1};
  cmd.together([&] {  // each writes its own half of the sums
    cmd.dispatch(*disagreement4_, disagreement4_set_, frame);
    cmd.dispatch(*disagreement8_, disagreement8_set_, frame);
  });
  cmd.dispatch(*choose_scale_, choose_scale_set_, {1, 1, 1});
  cmd.mark("scale_choice");
  cmd.dispatch(*field_, field_set_, {std::uint32_t(padded_w_), std::uint32_t(padded_h_), 1});
  cmd.mark("flow_field");
}

void LargeMotionPass::write_film(const Model& model, int slot, float t) {
  block_.write_film(model, slot, t);
}

}  // namespace framecast::vulkan
