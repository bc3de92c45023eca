#include "backends/vulkan/flow_block.hpp"

#include "backends/cpu/ops_reference.hpp"
#include "framecast/error.hpp"

namespace framecast::vulkan {

FlowBlock::FlowBlock(const Model& model, Layout layout, const DeviceCaps& caps, Storage storage,
                     const ConvChoice& trunk, WeightArena& weights)
    : layout_(std::move(layout)), storage_(storage), film_(!layout_.film.empty()) {
  const std::string& n = layout_.name;
  const int c1 = layout_.c1, c2 = layout_.c2;
  auto conv = [&](const std::string& prefix, const ConvShape& shape, const ConvChoice& choice) {
    return add_conv_layer(model, weights, caps, storage, n + prefix + ".0",
                          n + prefix + ".1.weight", shape, choice);
  };
  const ConvShape shape0a{layout_.ci, c1, layout_.in_w, layout_.in_h, 2};
  const ConvShape shape0b{c1, c2, layout_.in_w / 2, layout_.in_h / 2, 2};
  conv0a_ =
      conv(".conv0.0", shape0a, coop_conv_or(caps, storage, shape0a, {ConvKind::direct, 4, 8}));
  conv0b_ =
      conv(".conv0.1", shape0b, coop_conv_or(caps, storage, shape0b, {ConvKind::direct, 8, 8}));
  for (int i = 0; i < 8; ++i)
    trunk_.push_back(conv(".convblock." + std::to_string(i),
                          {c2, c2, plane_w(), plane_h(), 1, true, i == 7}, trunk));
  deconv_weight_ = weights.add(model.tensor(n + ".lastconv.weight").values, Storage::f32);
  deconv_bias_ = weights.add(model.tensor(n + ".lastconv.bias").values, Storage::f32);
  if (layout_.upmask) {
    // Its 9 f^2 outputs (144 at f = 4) took 0.89 ms per 1080p mid on the SIMT deconv (H100);
    // as a parity conv they run on the trunk's tensor cores. No PReLU: the bias stands in for
    // the slopes it binds.
    const ConvShape shape{c2, 4 * layout_.upmask, plane_w(), plane_h(), 1, false};
    const auto bias = parity_conv_bias(model.tensor(n + ".upmask.bias").values);
    upmask_ = add_conv_layer(
        weights, caps, storage,
        deconv_as_parity_conv(model.tensor(n + ".upmask.weight").values, c2, layout_.upmask),
        bias, bias, shape, coop_conv_or(caps, storage, shape, {ConvKind::rb, 8, 8, 24}));
  }
}

void FlowBlock::build(const std::shared_ptr<const Context>& context, const WeightArena& weights,
                      DescriptorPool& sets, int slots, const Buffer* logits) {
  if (layout_.convex_output) {
    own_logits_ = Buffer(context, logits_bytes(), MemoryUse::device);
    logits = &own_logits_;
  }
  if (layout_.upmask && (!logits || logits->size() < logits_bytes()))
    throw Error(ErrorKind::internal, layout_.name + ".upmask has no room for its logits");
  const std::size_t sb = storage_bytes(storage_);
  const std::size_t plane = std::size_t(plane_w()) * plane_h();
  const std::size_t activation = std::size_t(layout_.c2) * plane * sb;
  input_ = Buffer(context, std::size_t(layout_.ci) * layout_.in_w * layout_.in_h * sb,
                  MemoryUse::device);
  half_ =
      Buffer(context, std::size_t(layout_.c1) * output_w() * output_h() * sb, MemoryUse::device);
  feat0_ = Buffer(context, activation, MemoryUse::device);
  act_a_ = Buffer(context, activation, MemoryUse::device);
  act_b_ = Buffer(context, activation, MemoryUse::device);
  output_ = Buffer(context, std::size_t(5) * output_w() * output_h() * 4, MemoryUse::device);

  conv0a_pipeline_ = make_conv(context, storage_, conv0a_.shape, conv0a_.choice);
  conv0b_pipeline_ = make_conv(context, storage_, conv0b_.shape, conv0b_.choice);
  trunk_pipeline_ = make_conv(context, storage_, trunk_[0].shape, trunk_[0].choice);
  trunk_residual_pipeline_ = make_conv(context, storage_, trunk_[7].shape, trunk_[7].choice);
  deconv_pipeline_ = make_deconv(context, storage_, layout_.c2, 5, plane_w(), plane_h());
  if (layout_.upmask) upmask_pipeline_ = make_conv(context, storage_, upmask_.shape, upmask_.choice);
  if (layout_.convex_output) {
    up_ = Buffer(context, std::size_t(5) * layout_.in_w * layout_.in_h * 4, MemoryUse::device);
    convex_output_pipeline_ =
        make_flow_accumulate(context, storage_, layout_.in_w, layout_.in_h, 2, false, true);
    const BufferRange r[] = {output_.range(), up_.range(), own_logits_.range()};
    convex_output_set_ = sets.allocate(*convex_output_pipeline_, r);
  }

  const std::string& label = layout_.label;
  head_.push_back(conv_call(sets, weights, conv0a_, *conv0a_pipeline_, input_, half_, nullptr,
                            label + "conv0a"));
  head_.push_back(conv_call(sets, weights, conv0b_, *conv0b_pipeline_, half_, feat0_, nullptr,
                            label + "conv0b"));
  // Ping-pong through A and B from feat0, which stays as the residual of the eighth conv.
  // With FiLM, convblock 5 ends in trunk_out, which FiLM reads per t into A, so that a head
  // run once per pair (block0's, t-free) serves every t.
  Buffer* const a = &act_a_;
  Buffer* const b = &act_b_;
  if (film_) trunk_out_ = Buffer(context, activation, MemoryUse::device);
  const std::array<const Buffer*, 8> plain_src = {&feat0_, a, b, a, b, a, b, a};
  const std::array<const Buffer*, 8> plain_dst = {a, b, a, b, a, b, a, b};
  const std::array<const Buffer*, 8> film_src = {&feat0_, a, b, a, b, a, a, b};
  const std::array<const Buffer*, 8> film_dst = {a, b, a, b, a, &trunk_out_, b, a};
  for (std::size_t i = 0; i < 8; ++i) {
    const Buffer& src = *(film_ ? film_src : plain_src)[i];
    const Buffer& dst = *(film_ ? film_dst : plain_dst)[i];
    const Pipeline& p = i == 7 ? *trunk_residual_pipeline_ : *trunk_pipeline_;
    (i < 6 ? head_ : tail_)
        .push_back(conv_call(sets, weights, trunk_[i], p, src, dst, i == 7 ? &feat0_ : nullptr,
                             label + "trunk" + std::to_string(i)));
  }
  {
    const Buffer& last = film_ ? act_a_ : act_b_;
    const BufferRange r[] = {last.range(), weights.range(deconv_weight_),
                             weights.range(deconv_bias_), output_.range()};
    deconv_set_ = sets.allocate(*deconv_pipeline_, r);
    if (layout_.upmask)
      upmask_call_ = conv_call(sets, weights, upmask_, *upmask_pipeline_, last, *logits, nullptr,
                               layout_.label + "upmask");
  }
  if (film_) {
    film_params_ = Buffer(context, std::size_t(slots) * 2 * layout_.c2 * 4, MemoryUse::upload);
    film_pipeline_ = make_film(context, storage_, layout_.c2, int(plane));
    const BufferRange r[] = {trunk_out_.range(), film_params_.range(), act_a_.range()};
    film_set_ = sets.allocate(*film_pipeline_, r);
  }
}

template <typename Step>
void FlowBlock::side_by_side(CommandBuffer& cmd, const FlowBlock* beside, const Step& step) const {
  if (beside && (beside->film_ != film_ || beside->head_.size() != head_.size()))
    throw Error(ErrorKind::internal, layout_.name + " recorded beside a block of another shape");
  cmd.together([&] {
    step(*this);
    if (beside) step(*beside);
  });
}

void FlowBlock::record_head(CommandBuffer& cmd, const FlowBlock* beside) const {
  for (std::size_t i = 0; i < head_.size(); ++i)
    side_by_side(cmd, beside, [&](const FlowBlock& b) { record(cmd, b.head_[i]); });
}

void FlowBlock::record_tail(CommandBuffer& cmd, int slot, const FlowBlock* beside) const {
  side_by_side(cmd, beside, [&](const FlowBlock& b) { b.record_film(cmd, slot); });
  for (std::size_t i = 0; i < tail_.size(); ++i)
    side_by_side(cmd, beside, [&](const FlowBlock& b) { record(cmd, b.tail_[i]); });
  side_by_side(cmd, beside, [&](const FlowBlock& b) { b.record_deconv(cmd); });
  if (layout_.convex_output)
    side_by_side(cmd, beside, [&](const FlowBlock& b) { b.record_convex_output(cmd); });
}

void FlowBlock::record_film(CommandBuffer& cmd, int slot) const {
  if (!film_) return;
  cmd.dispatch_linear(*film_pipeline_, film_set_, FilmPush{slot},
                      std::uint64_t(layout_.c2) * plane_w() * plane_h());
  cmd.mark(layout_.label + "film");
}

void FlowBlock::record_deconv(CommandBuffer& cmd) const {
  cmd.dispatch(*deconv_pipeline_, deconv_set_, deconv_elements(5, plane_w(), plane_h()));
  cmd.mark(layout_.label + "deconv");
  if (!upmask_pipeline_) return;
  // Both read the trunk and write apart: record_tail runs them together().
  record(cmd, upmask_call_);
}

void FlowBlock::record_convex_output(CommandBuffer& cmd) const {
  cmd.dispatch(*convex_output_pipeline_, convex_output_set_,
               {std::uint32_t(layout_.in_w), std::uint32_t(layout_.in_h), 1});
  cmd.mark(layout_.label + "convex_up");
}

void FlowBlock::write_film(const Model& model, int slot, float t) {
  if (!film_) return;
  const auto params = cpu::film_params(model, layout_.film, t);
  film_params_.write(params.data(), params.size() * 4, std::size_t(slot) * 2 * layout_.c2 * 4);
}

}  // namespace framecast::vulkan
