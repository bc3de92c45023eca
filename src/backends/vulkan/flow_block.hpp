// One flow block of the graph on the GPU, block0 or a refinement block: the conv0 pair
// (stride 2), eight convblocks with FiLM(t) before the seventh when the block has a FiLM MLP,
// the residual of the eighth, and the deconv into its coarse flow and mask [5, in_h / 2,
// in_w / 2] f32; in a convex block (a convex model's refinement blocks, and block0 of a
// `--convex-block0` model) also the upmask beside it, the logits of its convex upsampling.
// The upmask runs as a parity conv on the trunk's plane (tensor cores where the device has
// them) into [4 x 9 f^2, in_h / 4, in_w / 4] in storage precision, channel 4 c + 2 r + s
// holding the deconv's channel c at parity (r, s) (deconv_as_parity_conv). It owns its
// weights' places in the arena, its activations, pipelines, descriptor sets and FiLM
// parameter slots; the runtime fills its input and decides when its two halves run (block0's
// head is t-free in t-factored models and runs once per pair).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/vulkan/conv_layer.hpp"

namespace framecast::vulkan {

class FlowBlock {
 public:
  struct Layout {
    std::string name;   // tensor prefix: "block0", "block1", ...
    std::string label;  // profile stage prefix: "" (block0's stages), "block1.", ...
    int ci = 0, c1 = 0, c2 = 0;
    int in_w = 0, in_h = 0;  // input plane: the padded size / the block's scale
    std::string film;        // FiLM MLP tensor prefix ("film", "block1.film"); empty: none
    int upmask = 0;  // convex blocks: the channels of `name`.upmask, 9 f^2; 0: none
    // A convex block0 (upmask 36): the block upsamples its own output by 2 under its logits,
    // into flow() [5, in_h, in_w] with the flows doubled (flow_accumulate's convex kind).
    bool convex_output = false;
  };
  // Descriptor sets that build() takes from a pool.
  static constexpr std::uint32_t kDescriptorSets = 14;

  // Adds the block's weights to `weights` (before its upload); `trunk` is the wanted kernel of
  // the eight trunk convs.
  FlowBlock(const Model& model, Layout layout, const DeviceCaps& caps, Storage storage,
            const ConvChoice& trunk, WeightArena& weights);

  // After the arena's upload: activations, pipelines and descriptor sets, and `slots` FiLM
  // parameter sets (one per t of a batch). A block with an upmask writes its logits into
  // `logits` (logits_bytes() at least), which blocks that run one after another may share;
  // a block with convex_output keeps its own.
  void build(const std::shared_ptr<const Context>& context, const WeightArena& weights,
             DescriptorPool& sets, int slots, const Buffer* logits = nullptr);

  // The encoder and convblocks 0-5 (t-free when the block's t enters through FiLM). With
  // `beside`, a block of the same structure on its own buffers (block0 at 1/4 and at 1/8), the
  // two blocks' steps are recorded pairwise together() so that the GPU can overlap them.
  void record_head(CommandBuffer& cmd, const FlowBlock* beside = nullptr) const;
  // FiLM from parameter slot `slot` (when the block has one), convblocks 6-7, the deconv
  // (and the upmask beside it; with convex_output then the convex step into flow()).
  void record_tail(CommandBuffer& cmd, int slot, const FlowBlock* beside = nullptr) const;
  // The FiLM MLP at t (run on the host: it is tiny) into slot `slot`, which no pending work
  // may still read. Nothing for blocks without FiLM.
  void write_film(const Model& model, int slot, float t);

  const Layout& layout() const noexcept { return layout_; }
  const ConvChoice& trunk_choice() const noexcept { return trunk_[0].choice; }
  const Buffer& input() const noexcept { return input_; }    // [ci, in_h, in_w], storage type
  const Buffer& output() const noexcept { return output_; }  // [5, in_h / 2, in_w / 2], f32
  int output_w() const noexcept { return layout_.in_w / 2; }
  int output_h() const noexcept { return layout_.in_h / 2; }
  // The block's flow as the passes after it read it: output(), or the convex step's
  // [5, in_h, in_w] f32 with convex_output; and how many grid pixels one of its pixels spans
  // when the block's input has 1 / `input_factor` of the grid.
  const Buffer& flow() const noexcept { return layout_.convex_output ? up_ : output_; }
  int flow_w() const noexcept { return layout_.convex_output ? layout_.in_w : output_w(); }
  int flow_h() const noexcept { return layout_.convex_output ? layout_.in_h : output_h(); }
  int flow_factor(int input_factor) const noexcept {
    return layout_.convex_output ? input_factor : 2 * input_factor;
  }
  // The upmask's logits [4 upmask, plane_h, plane_w] in storage precision; 0 without one.
  std::size_t logits_bytes() const noexcept {
    return std::size_t(4) * layout_.upmask * plane_w() * plane_h() * storage_bytes(storage_);
  }

 private:
  int plane_w() const noexcept { return layout_.in_w / 4; }  // the trunk's plane
  int plane_h() const noexcept { return layout_.in_h / 4; }
  void record_film(CommandBuffer& cmd, int slot) const;
  void record_deconv(CommandBuffer& cmd) const;
  void record_convex_output(CommandBuffer& cmd) const;
  // `step` for this block and, in the same together(), for `beside`.
  template <typename Step>
  void side_by_side(CommandBuffer& cmd, const FlowBlock* beside, const Step& step) const;

  Layout layout_;
  Storage storage_;
  bool film_;
  ConvLayer conv0a_, conv0b_;
  std::vector<ConvLayer> trunk_;
  ConvLayer upmask_;  // convex blocks only
  std::size_t deconv_weight_ = 0, deconv_bias_ = 0;

  // half_: conv0a's output [c1, in_h / 2, in_w / 2]; feat0_: conv0b's, the trunk's input and
  // residual; film_params_: [slots][2 c2] f32, host-written.
  // own_logits_, up_: convex_output's logits and flow().
  Buffer input_, half_, feat0_, act_a_, act_b_, trunk_out_, output_, film_params_, own_logits_,
      up_;
  // The eight trunk convs share two pipelines (plain, and with the residual).
  std::unique_ptr<Pipeline> conv0a_pipeline_, conv0b_pipeline_, trunk_pipeline_,
      trunk_residual_pipeline_, deconv_pipeline_, upmask_pipeline_, film_pipeline_,
      convex_output_pipeline_;
  std::vector<ConvCall> head_, tail_;  // encoder + convblocks 0-5; convblocks 6-7
  ConvCall upmask_call_;
  VkDescriptorSet deconv_set_ = VK_NULL_HANDLE, film_set_ = VK_NULL_HANDLE,
                  convex_output_set_ = VK_NULL_HANDLE;
};

}  // namespace framecast::vulkan
