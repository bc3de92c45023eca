// Recording and submitting work: a timeline semaphore that orders and tracks every
// submission, and command buffers that carry their own timestamp queries (device-side time
// of the whole buffer always, per stage when profiling). Every dispatch goes through one
// helper that derives the group counts, checks them and the push constants against the
// device, and puts a barrier after it (or after a group of independent dispatches).
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/vulkan/context.hpp"
#include "backends/vulkan/pipelines.hpp"
#include "framecast/backend.hpp"

namespace framecast::vulkan {

// How long a wait for the GPU may take before it counts as a hung device.
inline constexpr std::uint64_t kGpuTimeoutNs = 120ull * 1000 * 1000 * 1000;

class Timeline {
 public:
  explicit Timeline(std::shared_ptr<const Context> context);
  ~Timeline();
  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;

  VkSemaphore handle() const noexcept { return semaphore_; }
  std::uint64_t reserve() noexcept { return ++last_; }  // the value the next batch signals
  std::uint64_t last() const noexcept { return last_; }
  std::uint64_t completed() const;
  // Throws Error(device) when the value is not reached within kGpuTimeoutNs (or device loss).
  void wait(std::uint64_t value) const;

 private:
  std::shared_ptr<const Context> context_;
  VkSemaphore semaphore_ = VK_NULL_HANDLE;
  std::uint64_t last_ = 0;
};

// Which queue a command buffer is for: the compute queue (kernels, and device-local copies)
// or the copy queue (uploads and readbacks only, which a transfer-only queue can run).
enum class QueueKind { compute, copy };

class CommandPool {
 public:
  explicit CommandPool(std::shared_ptr<const Context> context, QueueKind kind = QueueKind::compute);
  ~CommandPool();
  CommandPool(const CommandPool&) = delete;
  CommandPool& operator=(const CommandPool&) = delete;
  VkCommandPool handle() const noexcept { return pool_; }
  QueueKind kind() const noexcept { return kind_; }

 private:
  std::shared_ptr<const Context> context_;
  QueueKind kind_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
};

class CommandBuffer {
 public:
  // `max_marks`: timestamps available for stage marks when profiling. The buffer is for the
  // pool's queue; a copy buffer records copies only.
  CommandBuffer(std::shared_ptr<const Context> context, const CommandPool& pool,
                std::uint32_t max_marks = 64);
  ~CommandBuffer();
  CommandBuffer(const CommandBuffer&) = delete;
  CommandBuffer& operator=(const CommandBuffer&) = delete;

  // Starts recording (the buffer's previous submission must be complete). The leading
  // barrier orders this buffer after everything submitted before it on the queue.
  void begin(bool profile);
  void end();
  // The submission waits until `timeline` reaches `value` (work on the other queue).
  void wait_for(const Timeline& timeline, std::uint64_t value);

  template <typename Push>
    requires std::is_class_v<Push>
  void dispatch(const Pipeline& pipeline, VkDescriptorSet set, const Push& push, Extent3 elements) {
    static_assert(std::is_trivially_copyable_v<Push> && sizeof(Push) % 4 == 0);
    check_push(pipeline, sizeof(Push));
    record_dispatch(pipeline, set, &push, groups_for(pipeline, elements));
  }
  void dispatch(const Pipeline& pipeline, VkDescriptorSet set, Extent3 elements) {
    check_push(pipeline, 0);
    record_dispatch(pipeline, set, nullptr, groups_for(pipeline, elements));
  }
  // 1-D kernels (shaders using linear_index()): `count` elements, `layers` in z.
  template <typename Push>
    requires std::is_class_v<Push>
  void dispatch_linear(const Pipeline& pipeline, VkDescriptorSet set, const Push& push,
                       std::uint64_t count, std::uint32_t layers = 1) {
    static_assert(std::is_trivially_copyable_v<Push> && sizeof(Push) % 4 == 0);
    check_push(pipeline, sizeof(Push));
    record_dispatch(pipeline, set, &push, linear_groups(pipeline, count, layers));
  }
  void dispatch_linear(const Pipeline& pipeline, VkDescriptorSet set, std::uint64_t count,
                       std::uint32_t layers = 1) {
    check_push(pipeline, 0);
    record_dispatch(pipeline, set, nullptr, linear_groups(pipeline, count, layers));
  }
  void copy(VkBuffer src, VkBuffer dst, VkDeviceSize bytes, VkDeviceSize src_offset = 0,
            VkDeviceSize dst_offset = 0);
  // Marks the end of a stage named `stage` (a timestamp when profiling, else nothing).
  void mark(const std::string& stage);
  // The dispatches `work` records get one barrier after all of them instead of one each, so
  // the GPU may run them at once: they must not read what another of them writes. A small
  // plane's conv then fills the GPU beside a large one's. When profiling they stay one after
  // the other, so that each stage's time is its own.
  void together(const std::function<void()>& work);

  VkCommandBuffer handle() const noexcept { return buffer_; }
  QueueKind kind() const noexcept { return kind_; }
  struct Wait {
    VkSemaphore semaphore;
    std::uint64_t value;
  };
  const std::vector<Wait>& waits() const noexcept { return waits_; }
  std::uint64_t& signal_value() noexcept { return signal_value_; }
  // After the submission completed: device time of the whole buffer, and per marked stage.
  double device_ms() const;
  std::vector<StageTime> stage_times() const;

 private:
  void check_push(const Pipeline& pipeline, std::size_t bytes) const;
  Extent3 groups_for(const Pipeline& pipeline, Extent3 elements) const;
  Extent3 linear_groups(const Pipeline& pipeline, std::uint64_t count, std::uint32_t layers) const;
  void record_dispatch(const Pipeline& pipeline, VkDescriptorSet set, const void* push,
                       Extent3 groups);
  void barrier(VkPipelineStageFlags src, VkAccessFlags src_access, VkPipelineStageFlags dst,
               VkAccessFlags dst_access);
  void dispatch_barrier();  // what a dispatch writes, visible to every later read or write
  // The stages and accesses this buffer's queue has: transfer only for a copy buffer.
  VkPipelineStageFlags stages() const;
  VkAccessFlags writes() const;
  VkAccessFlags accesses() const;
  std::vector<std::uint64_t> timestamps() const;

  std::shared_ptr<const Context> context_;
  VkCommandPool pool_;
  QueueKind kind_;
  VkCommandBuffer buffer_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  std::uint32_t capacity_;
  std::uint32_t used_ = 0;
  bool profile_ = false;
  bool together_ = false;  // inside together(): dispatches leave their barrier to its end
  bool barrier_owed_ = false;
  std::vector<std::string> stages_;
  std::vector<Wait> waits_;
  std::uint64_t signal_value_ = 0;
};

// One vkQueueSubmit to the buffers' queue (they share one kind): a batch per command buffer,
// each waiting for what wait_for named and signalling its own timeline value (stored in the
// buffer), so the host can take results of early batches while later ones run.
void submit(const Context& context, Timeline& timeline, std::span<CommandBuffer* const> buffers);

// Records `work` into a fresh command buffer, submits it and waits: set-up uploads and tests.
void run_now(const std::shared_ptr<const Context>& context, const CommandPool& pool,
             Timeline& timeline, const std::function<void(CommandBuffer&)>& work);

}  // namespace framecast::vulkan
