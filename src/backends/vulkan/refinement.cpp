#include "backends/vulkan/refinement.hpp"

#include <algorithm>

namespace framecast::vulkan {

RefinementChain::RefinementChain(const Model& model, const DeviceCaps& caps, Storage storage,
                                 int padded_w, int padded_h, const TrunkChoice& trunk_choice,
                                 WeightArena& weights)
    : storage_(storage),
      with_t_(model.variant() == Variant::classic),
      padded_w_(padded_w),
      padded_h_(padded_h) {
  for (const RefinementBlock& b : model.shape().blocks) {
    const std::string name = "block" + std::to_string(b.index);
    FlowBlock::Layout layout{.name = name,
                             .label = name + ".",
                             .ci = b.input_channels,
                             .c1 = b.c1,
                             .c2 = b.c2,
                             .in_w = padded_w / b.scale,
                             .in_h = padded_h / b.scale,
                             .film = b.film_hidden ? name + ".film" : "",
                             .upmask = b.convex ? 9 * b.upsample_factor() * b.upsample_factor()
                                                : 0};
    const ConvChoice trunk = trunk_choice(b.c2, layout.in_w / 4, layout.in_h / 4);
    blocks_.push_back(
        std::make_unique<FlowBlock>(model, std::move(layout), caps, storage, trunk, weights));
    stages_.push_back({b, nullptr, nullptr});
  }
}

std::uint32_t RefinementChain::descriptor_sets() const {
  return std::uint32_t(blocks_.size()) * (FlowBlock::kDescriptorSets + 2);
}

void RefinementChain::build(const std::shared_ptr<const Context>& context,
                            const WeightArena& weights, DescriptorPool& sets, int slots, int width,
                            int height, const Buffer& field, const Buffer& img0,
                            const Buffer& img1) {
  std::size_t logits_bytes = 0;
  for (const auto& block : blocks_) logits_bytes = std::max(logits_bytes, block->logits_bytes());
  if (logits_bytes) logits_ = Buffer(context, logits_bytes, MemoryUse::device);
  for (std::size_t i = 0; i < blocks_.size(); ++i) {
    FlowBlock& block = *blocks_[i];
    Stage& stage = stages_[i];
    block.build(context, weights, sets, slots, &logits_);
    stage.input = make_block_input(context, storage_, width, height, padded_w_, padded_h_,
                                   stage.block.scale, with_t_);
    const BufferRange in[] = {field.range(), img0.range(), img1.range(), block.input().range()};
    stage.input_set = sets.allocate(*stage.input, in);
    stage.accumulate =
        make_flow_accumulate(context, storage_, padded_w_, padded_h_,
                             stage.block.upsample_factor(), true, stage.block.convex);
    const BufferRange acc[] = {block.output().range(), field.range(),
                               (stage.block.convex ? logits_ : block.output()).range()};
    stage.accumulate_set = sets.allocate(*stage.accumulate, acc);
  }
}

void RefinementChain::record(CommandBuffer& cmd, int slot, float t) const {
  const Extent3 full{std::uint32_t(padded_w_), std::uint32_t(padded_h_), 1};
  for (std::size_t i = 0; i < blocks_.size(); ++i) {
    const FlowBlock& block = *blocks_[i];
    const Stage& stage = stages_[i];
    const std::string& label = block.layout().label;
    cmd.dispatch(*stage.input, stage.input_set, BlockInputPush{t},
                 {std::uint32_t(block.layout().in_w), std::uint32_t(block.layout().in_h), 1});
    cmd.mark(label + "input");
    block.record_head(cmd);
    block.record_tail(cmd, slot);
    cmd.dispatch(*stage.accumulate, stage.accumulate_set, full);
    cmd.mark(label + "flow");
  }
}

void RefinementChain::write_film(const Model& model, int slot, float t) {
  for (auto& block : blocks_) block->write_film(model, slot, t);
}

}  // namespace framecast::vulkan
