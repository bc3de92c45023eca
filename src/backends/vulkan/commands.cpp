#include "backends/vulkan/commands.hpp"

#include <algorithm>

#include "framecast/error.hpp"

namespace framecast::vulkan {

Timeline::Timeline(std::shared_ptr<const Context> context) : context_(std::move(context)) {
  auto type = make_struct<VkSemaphoreTypeCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO);
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  type.initialValue = 0;
  auto info = make_struct<VkSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO);
  info.pNext = &type;
  check(vkCreateSemaphore(context_->device(), &info, nullptr, &semaphore_), "vkCreateSemaphore");
}

Timeline::~Timeline() { vkDestroySemaphore(context_->device(), semaphore_, nullptr); }

std::uint64_t Timeline::completed() const {
  std::uint64_t value = 0;
  check(vkGetSemaphoreCounterValue(context_->device(), semaphore_, &value),
        "vkGetSemaphoreCounterValue");
  return value;
}

void Timeline::wait(std::uint64_t value) const {
  auto info = make_struct<VkSemaphoreWaitInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO);
  info.semaphoreCount = 1;
  info.pSemaphores = &semaphore_;
  info.pValues = &value;
  const VkResult result = vkWaitSemaphores(context_->device(), &info, kGpuTimeoutNs);
  if (result == VK_TIMEOUT)
    throw Error(ErrorKind::device, "the GPU did not finish its work within " +
                                       std::to_string(kGpuTimeoutNs / 1000000000) +
                                       " s (hung or lost device)");
  check(result, "vkWaitSemaphores");
}

CommandPool::CommandPool(std::shared_ptr<const Context> context, QueueKind kind)
    : context_(std::move(context)), kind_(kind) {
  auto info = make_struct<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  info.queueFamilyIndex =
      kind == QueueKind::copy ? context_->caps().copy_family : context_->caps().queue_family;
  check(vkCreateCommandPool(context_->device(), &info, nullptr, &pool_), "vkCreateCommandPool");
}

CommandPool::~CommandPool() { vkDestroyCommandPool(context_->device(), pool_, nullptr); }

CommandBuffer::CommandBuffer(std::shared_ptr<const Context> context, const CommandPool& pool,
                             std::uint32_t max_marks)
    : context_(std::move(context)), pool_(pool.handle()), kind_(pool.kind()),
      capacity_(max_marks + 2) {
  auto info = make_struct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  info.commandPool = pool_;
  info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  info.commandBufferCount = 1;
  check(vkAllocateCommandBuffers(context_->device(), &info, &buffer_), "vkAllocateCommandBuffers");
  if (kind_ == QueueKind::compute ? context_->caps().timestamps : context_->caps().copy_timestamps) {
    auto query = make_struct<VkQueryPoolCreateInfo>(VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO);
    query.queryType = VK_QUERY_TYPE_TIMESTAMP;
    query.queryCount = capacity_;
    const VkResult result = vkCreateQueryPool(context_->device(), &query, nullptr, &queries_);
    if (result != VK_SUCCESS) {
      vkFreeCommandBuffers(context_->device(), pool_, 1, &buffer_);
      check(result, "vkCreateQueryPool");
    }
  }
}

CommandBuffer::~CommandBuffer() {
  if (queries_) vkDestroyQueryPool(context_->device(), queries_, nullptr);
  vkFreeCommandBuffers(context_->device(), pool_, 1, &buffer_);
}

void CommandBuffer::barrier(VkPipelineStageFlags src, VkAccessFlags src_access,
                            VkPipelineStageFlags dst, VkAccessFlags dst_access) {
  auto b = make_struct<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  b.srcAccessMask = src_access;
  b.dstAccessMask = dst_access;
  vkCmdPipelineBarrier(buffer_, src, dst, 0, 1, &b, 0, nullptr, 0, nullptr);
}

VkPipelineStageFlags CommandBuffer::stages() const {
  return kind_ == QueueKind::copy ? VK_PIPELINE_STAGE_TRANSFER_BIT
                                  : VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
}

VkAccessFlags CommandBuffer::writes() const {
  return kind_ == QueueKind::copy ? VK_ACCESS_TRANSFER_WRITE_BIT
                                  : VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT;
}

VkAccessFlags CommandBuffer::accesses() const {
  const VkAccessFlags transfer = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  return kind_ == QueueKind::copy ? transfer
                                  : transfer | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
}

void CommandBuffer::begin(bool profile) {
  profile_ = profile && queries_;
  together_ = false;  // a recording abandoned by an exception may have left it set
  used_ = 0;
  stages_.clear();
  waits_.clear();
  check(vkResetCommandBuffer(buffer_, 0), "vkResetCommandBuffer");
  auto info = make_struct<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(vkBeginCommandBuffer(buffer_, &info), "vkBeginCommandBuffer");
  // Work of earlier submissions (and the host's writes before this submission) completes
  // before anything here reads or overwrites it.
  barrier(stages(), writes(), stages(), accesses());
  if (queries_) {
    // A transfer queue cannot reset queries; the host can, as the last use has completed.
    if (kind_ == QueueKind::copy)
      vkResetQueryPool(context_->device(), queries_, 0, capacity_);
    else
      vkCmdResetQueryPool(buffer_, queries_, 0, capacity_);
    vkCmdWriteTimestamp(buffer_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, used_++);
  }
}

void CommandBuffer::wait_for(const Timeline& timeline, std::uint64_t value) {
  waits_.push_back({timeline.handle(), value});
}

void CommandBuffer::end() {
  // Results in readback buffers become visible to the host once the timeline is reached.
  barrier(stages(), writes(), VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  if (queries_)
    vkCmdWriteTimestamp(buffer_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, used_++);
  check(vkEndCommandBuffer(buffer_), "vkEndCommandBuffer");
}

void CommandBuffer::check_push(const Pipeline& pipeline, std::size_t bytes) const {
  if (bytes != pipeline.push_bytes())
    throw Error(ErrorKind::internal, pipeline.name() + ": dispatched with " +
                                         std::to_string(bytes) + " bytes of push constants, " +
                                         "built for " + std::to_string(pipeline.push_bytes()));
}

Extent3 CommandBuffer::groups_for(const Pipeline& pipeline, Extent3 elements) const {
  const Extent3 per = pipeline.per_group();
  if (elements.z % per.z)
    throw Error(ErrorKind::internal, pipeline.name() + ": " + std::to_string(elements.z) +
                                         " channels are not a multiple of " +
                                         std::to_string(per.z));
  return {(elements.x + per.x - 1) / per.x, (elements.y + per.y - 1) / per.y, elements.z / per.z};
}

Extent3 CommandBuffer::linear_groups(const Pipeline& pipeline, std::uint64_t count,
                                     std::uint32_t layers) const {
  const std::uint64_t groups = (count + pipeline.per_group().x - 1) / pipeline.per_group().x;
  const std::uint64_t x = std::min<std::uint64_t>(std::max<std::uint64_t>(groups, 1), 32768);
  return {std::uint32_t(x), std::uint32_t((groups + x - 1) / x), layers};
}

void CommandBuffer::record_dispatch(const Pipeline& pipeline, VkDescriptorSet set, const void* push,
                                    Extent3 groups) {
  if (kind_ != QueueKind::compute)
    throw Error(ErrorKind::internal, pipeline.name() + ": dispatched in a copy command buffer");
  const DeviceCaps& caps = context_->caps();
  const std::uint32_t counts[3] = {groups.x, groups.y, groups.z};
  for (int i = 0; i < 3; ++i)
    if (counts[i] > caps.max_group_count[i])
      throw Error(ErrorKind::unsupported,
                  pipeline.name() + ": " + std::to_string(counts[i]) +
                      " workgroups exceed this device's limit of " +
                      std::to_string(caps.max_group_count[i]) + "; use a smaller frame size");
  if (!groups.x || !groups.y || !groups.z) return;
  vkCmdBindPipeline(buffer_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
  vkCmdBindDescriptorSets(buffer_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0, 1, &set,
                          0, nullptr);
  if (push)
    vkCmdPushConstants(buffer_, pipeline.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                       pipeline.push_bytes(), push);
  vkCmdDispatch(buffer_, groups.x, groups.y, groups.z);
  if (together_)
    barrier_owed_ = true;
  else
    dispatch_barrier();
}

void CommandBuffer::dispatch_barrier() {
  barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT);
}

void CommandBuffer::together(const std::function<void()>& work) {
  if (profile_ || together_) {
    work();
    return;
  }
  together_ = true;
  barrier_owed_ = false;
  work();
  together_ = false;
  if (barrier_owed_) dispatch_barrier();
}

void CommandBuffer::copy(VkBuffer src, VkBuffer dst, VkDeviceSize bytes, VkDeviceSize src_offset,
                         VkDeviceSize dst_offset) {
  const VkBufferCopy region{src_offset, dst_offset, bytes};
  vkCmdCopyBuffer(buffer_, src, dst, 1, &region);
  barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, stages(), accesses());
}

void CommandBuffer::mark(const std::string& stage) {
  if (!profile_ || used_ + 1 >= capacity_) return;  // keep one query for end()
  vkCmdWriteTimestamp(buffer_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, used_++);
  stages_.push_back(stage);
}

std::vector<std::uint64_t> CommandBuffer::timestamps() const {
  std::vector<std::uint64_t> ts(used_);
  if (!queries_ || used_ == 0) return ts;
  check(vkGetQueryPoolResults(context_->device(), queries_, 0, used_, ts.size() * 8, ts.data(), 8,
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
        "vkGetQueryPoolResults");
  return ts;
}

double CommandBuffer::device_ms() const {
  if (!queries_ || used_ < 2) return -1.0;
  const auto ts = timestamps();
  return double(ts.back() - ts.front()) * context_->caps().timestamp_period_ns * 1e-6;
}

std::vector<StageTime> CommandBuffer::stage_times() const {
  std::vector<StageTime> out;
  if (!profile_ || stages_.empty()) return out;
  const auto ts = timestamps();
  const double period = context_->caps().timestamp_period_ns * 1e-6;
  for (std::size_t i = 0; i < stages_.size(); ++i)
    out.push_back({stages_[i], double(ts[i + 1] - ts[i]) * period});
  return out;
}

void submit(const Context& context, Timeline& timeline, std::span<CommandBuffer* const> buffers) {
  const std::size_t n = buffers.size();
  if (n == 0) return;
  const QueueKind kind = buffers[0]->kind();
  std::vector<VkCommandBuffer> handles(n);
  std::vector<std::uint64_t> values(n);
  std::vector<VkTimelineSemaphoreSubmitInfo> timeline_infos(n);
  std::vector<VkSubmitInfo> infos(n);
  std::vector<std::vector<VkSemaphore>> wait_semaphores(n);
  std::vector<std::vector<std::uint64_t>> wait_values(n);
  std::vector<std::vector<VkPipelineStageFlags>> wait_stages(n);
  const VkSemaphore semaphore = timeline.handle();
  const std::uint64_t first = timeline.last() + 1;
  for (std::size_t i = 0; i < n; ++i) {
    if (buffers[i]->kind() != kind)
      throw Error(ErrorKind::internal, "one submission for command buffers of two queues");
    handles[i] = buffers[i]->handle();
    values[i] = first + i;
    for (const auto& w : buffers[i]->waits()) {
      wait_semaphores[i].push_back(w.semaphore);
      wait_values[i].push_back(w.value);
      wait_stages[i].push_back(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
    }
    timeline_infos[i] = make_struct<VkTimelineSemaphoreSubmitInfo>(VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO);
    timeline_infos[i].waitSemaphoreValueCount = std::uint32_t(wait_values[i].size());
    timeline_infos[i].pWaitSemaphoreValues = wait_values[i].data();
    timeline_infos[i].signalSemaphoreValueCount = 1;
    timeline_infos[i].pSignalSemaphoreValues = &values[i];
    infos[i] = make_struct<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    infos[i].pNext = &timeline_infos[i];
    infos[i].waitSemaphoreCount = std::uint32_t(wait_semaphores[i].size());
    infos[i].pWaitSemaphores = wait_semaphores[i].data();
    infos[i].pWaitDstStageMask = wait_stages[i].data();
    infos[i].commandBufferCount = 1;
    infos[i].pCommandBuffers = &handles[i];
    infos[i].signalSemaphoreCount = 1;
    infos[i].pSignalSemaphores = &semaphore;
  }
  const VkQueue queue = kind == QueueKind::copy ? context.copy_queue() : context.queue();
  check(vkQueueSubmit(queue, std::uint32_t(n), infos.data(), VK_NULL_HANDLE), "vkQueueSubmit");
  for (std::size_t i = 0; i < n; ++i) buffers[i]->signal_value() = timeline.reserve();
}

void run_now(const std::shared_ptr<const Context>& context, const CommandPool& pool,
             Timeline& timeline, const std::function<void(CommandBuffer&)>& work) {
  CommandBuffer buffer(context, pool, 0);
  buffer.begin(false);
  work(buffer);
  buffer.end();
  CommandBuffer* const buffers[] = {&buffer};
  submit(*context, timeline, buffers);
  timeline.wait(buffer.signal_value());
}

}  // namespace framecast::vulkan
