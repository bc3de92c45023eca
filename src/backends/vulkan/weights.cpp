#include "backends/vulkan/weights.hpp"

#include <cstring>

#include "engine/half.hpp"
#include "framecast/error.hpp"

namespace framecast::vulkan {
namespace {

// Every device's minStorageBufferOffsetAlignment is at most 256.
constexpr std::size_t kAlignment = 256;

}  // namespace

std::size_t WeightArena::add(std::span<const float> values, Storage storage) {
  const std::size_t offset = (host_.size() + kAlignment - 1) / kAlignment * kAlignment;
  const std::size_t size = values.size() * storage_bytes(storage);
  host_.resize(offset + size);
  bytes_ = host_.size();
  unsigned char* out = host_.data() + offset;
  if (storage == Storage::f32) {
    std::memcpy(out, values.data(), size);
  } else {
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::uint16_t h = to_half(values[i]);
      std::memcpy(out + 2 * i, &h, 2);
    }
  }
  entries_.push_back({offset, size});
  return entries_.size() - 1;
}

void WeightArena::upload(const std::shared_ptr<const Context>& context, const CommandPool& pool,
                         Timeline& timeline) {
  device_ = Buffer(context, host_.size(), MemoryUse::device);
  Buffer staging(context, host_.size(), MemoryUse::upload);
  staging.write(host_.data(), host_.size());
  run_now(context, pool, timeline,
          [&](CommandBuffer& cmd) { cmd.copy(staging.handle(), device_.handle(), host_.size()); });
  host_.clear();
  host_.shrink_to_fit();
}

BufferRange WeightArena::range(std::size_t index) const {
  if (!device_.valid() || index >= entries_.size())
    throw Error(ErrorKind::internal, "weight range before upload");
  const Entry& e = entries_[index];
  return device_.range(e.offset, (e.size + 3) / 4 * 4);
}

}  // namespace framecast::vulkan
