// Buffers with their own memory. Three uses: device-local (activations, weights), upload
// (host-visible, written by the host, read by copies) and readback (host-visible and, where
// the device offers it, host-cached, for mids read by the host).
#pragma once

#include <cstddef>
#include <memory>

#include "backends/vulkan/context.hpp"

namespace framecast::vulkan {

enum class MemoryUse { device, upload, readback };

// A part of a buffer bound to one shader binding.
struct BufferRange {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  VkDeviceSize size = 0;
};

class Buffer {
 public:
  Buffer() = default;
  // At least `bytes` (rounded up to 4). Throws Error(out_of_memory) when the device has no
  // room. (Binding checks the device's storage-buffer range: see DescriptorSet.)
  Buffer(std::shared_ptr<const Context> context, VkDeviceSize bytes, MemoryUse use);
  ~Buffer();
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  VkBuffer handle() const noexcept { return buffer_; }
  VkDeviceSize size() const noexcept { return size_; }
  bool valid() const noexcept { return buffer_ != VK_NULL_HANDLE; }
  BufferRange range() const noexcept { return {buffer_, 0, size_}; }
  BufferRange range(VkDeviceSize offset, VkDeviceSize size) const noexcept {
    return {buffer_, offset, size};
  }

  // Host access of upload and readback buffers (flushes / invalidates non-coherent memory).
  void write(const void* data, std::size_t bytes, std::size_t offset = 0);
  void read(void* data, std::size_t bytes, std::size_t offset = 0) const;
  // The mapping itself, for callers that fill or read in place; call flush() after writing
  // and invalidate() before reading when the memory is not coherent.
  void* mapped() const noexcept { return mapped_; }
  void flush(std::size_t bytes, std::size_t offset = 0);
  void invalidate(std::size_t bytes, std::size_t offset = 0) const;

 private:
  void release() noexcept;

  std::shared_ptr<const Context> context_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkDeviceSize size_ = 0;
  void* mapped_ = nullptr;
  bool coherent_ = true;
};

}  // namespace framecast::vulkan
