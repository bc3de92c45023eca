#include "backends/vulkan/buffers.hpp"

#include <cstring>
#include <utility>

#include "framecast/error.hpp"

namespace framecast::vulkan {

Buffer::Buffer(std::shared_ptr<const Context> context, VkDeviceSize bytes, MemoryUse use)
    : context_(std::move(context)), size_((std::max<VkDeviceSize>(bytes, 4) + 3) / 4 * 4) {
  const VkDevice device = context_->device();
  auto info = make_struct<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  info.size = size_;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  // With copies on a queue of another family, both families use every buffer: concurrent
  // sharing spares the ownership transfers (buffers have no layouts it could cost).
  const DeviceCaps& caps = context_->caps();
  const std::uint32_t families[] = {caps.queue_family, caps.copy_family};
  if (caps.copy_family != caps.queue_family) {
    info.sharingMode = VK_SHARING_MODE_CONCURRENT;
    info.queueFamilyIndexCount = 2;
    info.pQueueFamilyIndices = families;
  } else {
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  }
  check(vkCreateBuffer(device, &info, nullptr, &buffer_), "vkCreateBuffer");
  try {
    VkMemoryRequirements needs{};
    vkGetBufferMemoryRequirements(device, buffer_, &needs);
    VkMemoryPropertyFlags required = 0, preferred = 0;
    switch (use) {
      case MemoryUse::device:
        required = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
        break;
      case MemoryUse::upload:
        required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
        preferred = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        break;
      case MemoryUse::readback:
        required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
        preferred = VK_MEMORY_PROPERTY_HOST_CACHED_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        break;
    }
    auto alloc = make_struct<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
    alloc.allocationSize = needs.size;
    alloc.memoryTypeIndex = context_->memory_type(needs.memoryTypeBits, required, preferred);
    const VkResult result = vkAllocateMemory(device, &alloc, nullptr, &memory_);
    if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY)
      throw Error(ErrorKind::out_of_memory,
                  "Vulkan: out of " +
                      std::string(use == MemoryUse::device ? "device" : "host-visible") +
                      " memory allocating " + std::to_string(size_ >> 20) + " MiB");
    check(result, "vkAllocateMemory");
    check(vkBindBufferMemory(device, buffer_, memory_, 0), "vkBindBufferMemory");
    coherent_ = context_->memory_flags(alloc.memoryTypeIndex) & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if (use != MemoryUse::device)
      check(vkMapMemory(device, memory_, 0, VK_WHOLE_SIZE, 0, &mapped_), "vkMapMemory");
  } catch (...) {
    release();
    throw;
  }
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& other) noexcept { *this = std::move(other); }

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    context_ = std::move(other.context_);
    buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, nullptr);
    coherent_ = other.coherent_;
  }
  return *this;
}

void Buffer::release() noexcept {
  if (!context_) return;
  const VkDevice device = context_->device();
  if (mapped_) vkUnmapMemory(device, memory_);
  if (buffer_) vkDestroyBuffer(device, buffer_, nullptr);
  if (memory_) vkFreeMemory(device, memory_, nullptr);
  mapped_ = nullptr;
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
}

void Buffer::write(const void* data, std::size_t bytes, std::size_t offset) {
  if (!mapped_ || offset + bytes > size_)
    throw Error(ErrorKind::internal, "Buffer::write outside a host-visible buffer");
  std::memcpy(static_cast<char*>(mapped_) + offset, data, bytes);
  flush(bytes, offset);
}

void Buffer::read(void* data, std::size_t bytes, std::size_t offset) const {
  if (!mapped_ || offset + bytes > size_)
    throw Error(ErrorKind::internal, "Buffer::read outside a host-visible buffer");
  invalidate(bytes, offset);
  std::memcpy(data, static_cast<const char*>(mapped_) + offset, bytes);
}

// Non-coherent memory is flushed and invalidated whole: ranges would have to be aligned to
// nonCoherentAtomSize, and these buffers are small next to the work around them.
void Buffer::flush(std::size_t, std::size_t) {
  if (coherent_) return;
  auto range = make_struct<VkMappedMemoryRange>(VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE);
  range.memory = memory_;
  range.size = VK_WHOLE_SIZE;
  check(vkFlushMappedMemoryRanges(context_->device(), 1, &range), "vkFlushMappedMemoryRanges");
}

void Buffer::invalidate(std::size_t, std::size_t) const {
  if (coherent_) return;
  auto range = make_struct<VkMappedMemoryRange>(VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE);
  range.memory = memory_;
  range.size = VK_WHOLE_SIZE;
  check(vkInvalidateMappedMemoryRanges(context_->device(), 1, &range),
        "vkInvalidateMappedMemoryRanges");
}

}  // namespace framecast::vulkan
