// Runs single kernels for the tests: uploads inputs (as f32 or f16 storage), dispatches a
// pipeline once, and reads results back as floats.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "backends/vulkan/buffers.hpp"
#include "backends/vulkan/commands.hpp"
#include "backends/vulkan/kernels.hpp"
#include "backends/vulkan/pipelines.hpp"

namespace framecast::vulkan::testing {

class KernelRunner {
 public:
  explicit KernelRunner(std::shared_ptr<Context> context)
      : context_(std::move(context)), pool_(context_), timeline_(context_), sets_(context_, 64) {}

  // A device buffer holding `values` in `storage` (f16 rounds them).
  Buffer upload(std::span<const float> values, Storage storage = Storage::f32) {
    const auto bytes = encode_values(values, storage);
    return upload_bytes(bytes.data(), bytes.size());
  }
  Buffer upload_bytes(const void* data, std::size_t size) {
    Buffer device(context_, size, MemoryUse::device);
    Buffer staging(context_, size, MemoryUse::upload);
    staging.write(data, size);
    run_now(context_, pool_, timeline_,
            [&](CommandBuffer& cmd) { cmd.copy(staging.handle(), device.handle(), size); });
    return device;
  }
  Buffer output(std::size_t bytes) { return Buffer(context_, bytes, MemoryUse::device); }

  std::vector<unsigned char> download_bytes(const Buffer& buffer) {
    Buffer staging(context_, buffer.size(), MemoryUse::readback);
    run_now(context_, pool_, timeline_,
            [&](CommandBuffer& cmd) { cmd.copy(buffer.handle(), staging.handle(), buffer.size()); });
    std::vector<unsigned char> bytes(buffer.size());
    staging.read(bytes.data(), bytes.size());
    return bytes;
  }
  std::vector<float> download(const Buffer& buffer, std::size_t count, Storage storage = Storage::f32) {
    return decode_values(download_bytes(buffer), count, storage);
  }

  // Binds `buffers` to the pipeline's bindings in order and runs `dispatch` once.
  void run(const Pipeline& pipeline, std::initializer_list<const Buffer*> buffers,
           const std::function<void(CommandBuffer&, VkDescriptorSet)>& dispatch) {
    std::vector<BufferRange> ranges;
    for (const Buffer* b : buffers) ranges.push_back(b->range());
    const VkDescriptorSet set = sets_.allocate(pipeline, ranges);
    run_now(context_, pool_, timeline_, [&](CommandBuffer& cmd) { dispatch(cmd, set); });
  }

  const Context& context() const { return *context_; }
  std::shared_ptr<Context> shared() const { return context_; }

 private:
  std::shared_ptr<Context> context_;
  CommandPool pool_;
  Timeline timeline_;
  DescriptorPool sets_;
};

}  // namespace framecast::vulkan::testing
