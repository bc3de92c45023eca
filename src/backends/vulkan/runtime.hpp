// The Vulkan runtime: the seed's schedule on the GPU. Per (model, size) it owns the weights
// (uploaded once), the activations, double-buffered upload staging and readback slots, and
// one pipeline per kernel. A pair is one command buffer (full-resolution planes and, for tfact
// models, block0's whole t-free trunk), submitted at once without waiting; each t is one
// command buffer (the rest of block0, the refinement blocks, the refine head and the output),
// and mids(ts) submits them all in one vkQueueSubmit whose batches signal their own timeline
// values, so the host reads mid i while the GPU computes mid i + 1. The frames' uploads and
// the mids' readbacks are command buffers of their own on the copy queue, which on most GPUs
// runs beside the kernels: the next pair's frame crosses the bus while this pair's mids
// compute, and mid i's pixels while mid i + 1 computes.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/vulkan/buffers.hpp"
#include "backends/vulkan/commands.hpp"
#include "backends/vulkan/context.hpp"
#include "backends/vulkan/conv_layer.hpp"
#include "backends/vulkan/flow_block.hpp"
#include "backends/vulkan/kernels.hpp"
#include "backends/vulkan/large_motion.hpp"
#include "backends/vulkan/pipelines.hpp"
#include "backends/vulkan/refinement.hpp"
#include "backends/vulkan/tune_cache.hpp"
#include "backends/vulkan/vulkan_backend.hpp"
#include "backends/vulkan/weights.hpp"

namespace framecast::vulkan {

class GraphRuntime final : public VulkanRuntime {
 public:
  GraphRuntime(std::shared_ptr<const Context> context, const Model& model, int width, int height,
               const RuntimeOptions& options);
  ~GraphRuntime() override;

  void prepare_pair(const Frame& frame0, const Frame& frame1) override;
  void prepare_next(const Frame& next) override;
  Frame mid(float t) override;
  std::vector<Frame> mids(std::span<const float> ts) override;
  void start_mids(std::span<const float> ts) override;
  std::vector<Frame> take_mids() override;
  std::vector<StageTime> last_profile() const override;
  std::string describe() const override;

  double last_device_ms() const override;
  std::vector<std::string> warnings() const override { return warnings_; }
  DeviceHandles handles() const override;
  VkSemaphore timeline() const override { return timeline_.handle(); }
  std::uint64_t prepare_pair_gpu(VkBuffer frame0, VkBuffer frame1, SampleDepth depth) override;
  std::uint64_t mids_gpu(std::span<const float> ts, std::span<const VkBuffer> outputs) override;
  void wait(std::uint64_t ticket) override;

  Storage storage() const noexcept { return storage_; }
  // The trunk conv of block0, and of every block (block0, the refinement blocks, then block0
  // at 1/8 of the large-motion pass).
  const ConvChoice& trunk_choice() const noexcept { return block0_->trunk_choice(); }
  std::vector<ConvChoice> trunk_choices() const;

 private:
  // The trunk conv for a trunk of `width` channels on a plane_w x plane_h plane: the tuning
  // cache's entry when there is a usable one, else the default; notes why in warnings_.
  ConvChoice choose_trunk_conv(const TuneCache& cache, int width, int plane_w, int plane_h);
  void warn(const std::string& warning);
  void allocate_buffers();
  void build_pipelines();
  void build_descriptor_sets();
  const Pipeline& prep_full(bool deep);
  const Pipeline& flow_out(bool deep);
  // The flow blocks in trunk_choices()'s order.
  std::vector<const FlowBlock*> flow_blocks() const;
  // Where refine_prep and flow_out read the flow: block0's output, or the full-resolution
  // field (refinement blocks, the large-motion pass).
  bool has_field() const noexcept { return refinement_ || large_motion_; }
  const Buffer& flow_field() const;
  int flow_factor() const noexcept { return has_field() ? 1 : block0_->flow_factor(4); }
  std::array<BufferRange, 5> flow_out_ranges(BufferRange output) const;
  CommandBuffer& acquire(QueueKind kind);
  // Where a pair's packed frames come from: both from the upload slot, only the second (the
  // first is the last pair's second, still on the device), or the caller's GPU buffers.
  enum class PairSource { upload, upload_next, gpu };
  void record_pair(CommandBuffer& cmd, bool deep, PairSource source, int slot);
  // block0's input and head at 1/4 and, beside it, the large-motion pass's at 1/8.
  void record_block0_head(CommandBuffer& cmd, float t);
  const FlowBlock* block0_beside() const;  // the 1/8 block, or none
  // Submits the upload (unless the frames are the caller's GPU buffers) and the pair's work,
  // resets the per-pair state; returns the timeline value reached when it is done.
  std::uint64_t submit_pair(bool deep, PairSource source, int slot);
  // The next upload slot, once the pair before last has stopped reading it.
  std::size_t next_upload_slot();
  void record_mid(CommandBuffer& cmd, int slot, float t, bool deep, VkDescriptorSet flow_set);
  void write_film_params(int slot, float t);
  void check_ts(std::span<const float> ts) const;
  // Records and submits up to kMaxBatch mids of the prepared pair, mid i writing its output
  // through sets[i], each after the copy timeline reaches `after_copies` (0: at once).
  std::vector<CommandBuffer*> submit_mid_buffers(std::span<const float> ts,
                                                 std::span<const VkDescriptorSet> sets,
                                                 std::uint64_t after_copies);
  // Mids submitted and not yet read back: per t, in order, its command buffer and its
  // readback's on the copy queue.
  struct Batch {
    std::vector<CommandBuffer*> buffers, readbacks;
    bool deep = false;
    std::uint64_t pair = 0;  // the pair they belong to (PairTimes::pair)
  };
  // Submits up to kMaxBatch mids of the prepared pair without waiting for them, and records
  // their readbacks, which wait on the copy queue for them. A queue runs its submissions in
  // order, so the readbacks are submitted only when the host asks for the mids or the next
  // pair's upload has gone ahead of them: that upload then crosses the bus while these mids
  // compute instead of after them.
  Batch submit_mids(std::span<const float> ts);
  void submit_readbacks();  // the held ones, if any
  std::vector<Frame> read_mids(const Batch& batch);
  // Adds device time and profile of the submissions that have completed.
  void collect();

  std::shared_ptr<const Context> context_;
  const Model& model_;
  RuntimeOptions options_;
  Storage storage_;
  Variant variant_;
  int ci0_, refine_width_;
  int padded_w_, padded_h_;
  bool film_, refine_;
  std::vector<std::string> trunk_sources_;  // per block: "tuned" or "default"
  std::vector<std::string> warnings_;

  CommandPool pool_, copy_pool_;
  Timeline timeline_;  // the compute queue's submissions
  Timeline copies_;    // the copy queue's
  std::unique_ptr<DescriptorPool> descriptors_;
  WeightArena weights_;

  std::unique_ptr<FlowBlock> block0_;
  std::unique_ptr<LargeMotionPass> large_motion_;  // null unless RuntimeOptions::large_motion
  std::unique_ptr<RefinementChain> refinement_;   // null without refinement blocks
  Buffer field_;                                  // the full-resolution flow (has_field())
  std::unique_ptr<Pipeline> field_init_;  // block0's output into the field, without the pass
  VkDescriptorSet field_init_set_ = VK_NULL_HANDLE;
  std::vector<ConvLayer> refine_convs_;
  std::unique_ptr<Pipeline> refine_c0_pipeline_, refine_c_pipeline_;
  std::size_t refine_out_weight_ = 0, refine_out_bias_ = 0;

  std::unique_ptr<Pipeline> prep_quarter_, refine_prep_, refine_out_;
  std::array<std::unique_ptr<Pipeline>, 2> prep_full_, flow_out_;  // by depth (8, 16 bits)

  Buffer in0_, in1_;                   // packed frames on the device
  std::array<Buffer, 2> upload_;       // both frames of a pair, host-visible, double-buffered
  std::array<Buffer, 2> landing_;      // the upload slots' copies in device memory
  std::array<std::uint64_t, 2> upload_busy_{0, 0};  // the pair that read the slot, by timeline_
  int upload_slot_ = 0;
  Buffer img0_, img1_;                 // each frame's image: f32 (b, g, r, 0) per pixel
  Buffer rin_, refine_a_, refine_b_, residual_;
  std::vector<Buffer> outs_;           // the packed mids on the device, one per t of a batch
  std::vector<Buffer> readback_;       // their host-visible copies

  VkDescriptorSet prep_full_set_ = VK_NULL_HANDLE, prep_full_gpu_set_ = VK_NULL_HANDLE;
  std::uint64_t prep_full_gpu_busy_ = 0;
  VkDescriptorSet prep_quarter_set_ = VK_NULL_HANDLE, refine_prep_set_ = VK_NULL_HANDLE,
                  refine_out_set_ = VK_NULL_HANDLE;
  std::vector<VkDescriptorSet> flow_sets_;      // flow_out into outs_[i]
  std::vector<VkDescriptorSet> flow_gpu_sets_;  // into the caller's buffers (mids_gpu)
  std::vector<std::uint64_t> flow_gpu_busy_;
  std::uint64_t film_busy_ = 0;
  std::vector<ConvCall> refine_calls_;

  std::vector<std::unique_ptr<CommandBuffer>> commands_, copy_commands_;
  std::uint32_t marks_ = 64;  // stage marks a mid's command buffer may need
  enum class Work { upload, pair, mid, readback };
  struct Pending {
    CommandBuffer* cmd;
    Work work;
    std::uint64_t pair_number;
  };
  std::vector<Pending> pending_;
  // What the GPU spent on one pair, its mids included, as their submissions complete. With
  // mids started and the next pair prepared, two pairs are being timed at once.
  // Its device time is the compute queue's: copies on a queue of their own run beside it.
  struct PairTimes {
    std::uint64_t pair = 0;  // pairs are numbered from 1 as they are submitted
    double device_ms = 0.0;  // negative without timestamp queries
    std::vector<StageTime> pair_stages;  // the upload's and the pair's
    std::vector<StageTime> mid_stages, readback_stages;  // the last mid's
  };
  std::vector<PairTimes> times_;  // the last few pairs'
  std::uint64_t pairs_submitted_ = 0;
  std::uint64_t reported_pair_ = 0;  // whose times last_device_ms and last_profile give
  PairTimes& times_of(std::uint64_t pair);
  std::optional<Batch> started_;  // start_mids' batch, until take_mids
  std::optional<Batch> held_readbacks_;  // recorded, not yet submitted
  bool prepared_ = false;
  bool deep_ = false;
  bool second_in_device_ = false;  // in1_ holds the last pair's second frame (prepare_next)
};

}  // namespace framecast::vulkan
