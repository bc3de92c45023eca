// All weights of a runtime in one device-local buffer: each tensor converted to its storage
// type (conv weights pre-packed for the chosen kernel) at an offset that the device accepts
// for a binding. Uploaded once, through one staging buffer and one submission.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "backends/vulkan/buffers.hpp"
#include "backends/vulkan/commands.hpp"
#include "backends/vulkan/kernels.hpp"

namespace framecast::vulkan {

class WeightArena {
 public:
  // Returns the tensor's index for range().
  std::size_t add(std::span<const float> values, Storage storage);
  void upload(const std::shared_ptr<const Context>& context, const CommandPool& pool,
              Timeline& timeline);
  BufferRange range(std::size_t index) const;
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  struct Entry {
    std::size_t offset, size;
  };
  std::vector<unsigned char> host_;
  std::vector<Entry> entries_;
  std::size_t bytes_ = 0;
  Buffer device_;
};

}  // namespace framecast::vulkan
