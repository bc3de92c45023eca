// The GPU-resident entry points as a caller that holds frames on the GPU uses them: buffers
// created on the runtime's device from handles() alone, tickets on the runtime's timeline.
#include <gtest/gtest.h>

#include <cstring>

#include "backends/cpu/cpu_backend.hpp"
#include "backends/vulkan/loader.hpp"
#include "backends/vulkan/vulkan_backend.hpp"
#include "core/test_support.hpp"
#include "framecast/error.hpp"
#include "io/test_pattern.hpp"
#include "vulkan/vk_test_support.hpp"

namespace framecast::vulkan {
namespace {

// A host-visible storage buffer of the caller's own, on the runtime's device.
class CallerBuffer {
 public:
  CallerBuffer(const DeviceHandles& h, VkDeviceSize size) : device_(h.device) {
    auto info = make_struct<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
    info.size = size;
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    EXPECT_EQ(vkCreateBuffer(device_, &info, nullptr, &buffer_), VK_SUCCESS);
    VkMemoryRequirements needs{};
    vkGetBufferMemoryRequirements(device_, buffer_, &needs);
    VkPhysicalDeviceMemoryProperties props{};
    vkGetPhysicalDeviceMemoryProperties(h.physical_device, &props);
    const VkMemoryPropertyFlags want =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    auto alloc = make_struct<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
    alloc.allocationSize = needs.size;
    for (std::uint32_t i = 0; i < props.memoryTypeCount; ++i)
      if ((needs.memoryTypeBits & (1u << i)) && (props.memoryTypes[i].propertyFlags & want) == want) {
        alloc.memoryTypeIndex = i;
        break;
      }
    EXPECT_EQ(vkAllocateMemory(device_, &alloc, nullptr, &memory_), VK_SUCCESS);
    vkBindBufferMemory(device_, buffer_, memory_, 0);
    vkMapMemory(device_, memory_, 0, VK_WHOLE_SIZE, 0, &mapped_);
  }
  ~CallerBuffer() {
    vkUnmapMemory(device_, memory_);
    vkDestroyBuffer(device_, buffer_, nullptr);
    vkFreeMemory(device_, memory_, nullptr);
  }
  VkBuffer handle() const { return buffer_; }
  void* data() const { return mapped_; }

 private:
  VkDevice device_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  void* mapped_ = nullptr;
};

std::size_t frame_bytes(const Frame& f) {
  return f.sample_count() * (f.depth() == SampleDepth::u16 ? 2 : 1);
}
const void* samples(const Frame& f) {
  return f.depth() == SampleDepth::u16 ? (const void*)f.rgb16().data() : (const void*)f.rgb8().data();
}

// Depth, and a model without and with refinement blocks.
class GpuResident : public ::testing::TestWithParam<std::tuple<SampleDepth, std::string>> {};

TEST_P(GpuResident, MatchesTheHostPath) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  const auto& [depth, model_name] = GetParam();
  const int w = 45, h = 27;
  const Model model = Model::load(framecast::testing::golden_dir() / model_name / "model.json");
  RuntimeOptions options;
  options.precision = Precision::f32;
  auto runtime = make_vulkan_runtime(model, w, h, options);
  const DeviceHandles handles = runtime->handles();
  ASSERT_NE(handles.device, VK_NULL_HANDLE);
  ASSERT_NE(runtime->timeline(), VK_NULL_HANDLE);

  const Frame a = io::test_pattern(w, h, 0.0f, depth), b = io::test_pattern(w, h, 2.0f, depth);
  const std::size_t bytes = (frame_bytes(a) + 3) / 4 * 4;
  CallerBuffer in0(handles, bytes), in1(handles, bytes);
  std::memcpy(in0.data(), samples(a), frame_bytes(a));
  std::memcpy(in1.data(), samples(b), frame_bytes(b));
  const std::vector<float> ts = {0.2f, 0.5f, 0.9f};
  std::vector<std::unique_ptr<CallerBuffer>> outs;
  std::vector<VkBuffer> out_handles;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    outs.push_back(std::make_unique<CallerBuffer>(handles, bytes));
    out_handles.push_back(outs.back()->handle());
  }
  const std::uint64_t pair_ticket = runtime->prepare_pair_gpu(in0.handle(), in1.handle(), depth);
  const std::uint64_t ticket = runtime->mids_gpu(ts, out_handles);
  EXPECT_GT(ticket, pair_ticket);
  runtime->wait(ticket);

  // The host path of the same runtime gives the same frames, bit for bit.
  runtime->prepare_pair(a, b);
  const auto expected = runtime->mids(ts);
  for (std::size_t i = 0; i < ts.size(); ++i) {
    Frame got(w, h, depth);
    std::memcpy(const_cast<void*>(samples(got)), outs[i]->data(), frame_bytes(got));
    EXPECT_EQ(framecast::testing::compare(got, expected[i]).max_error, 0) << "t=" << ts[i];
  }
  EXPECT_THROW(runtime->mids_gpu(ts, std::span<const VkBuffer>(out_handles).first(1)), Error);
}

INSTANTIATE_TEST_SUITE_P(Depths, GpuResident,
                         ::testing::Combine(::testing::Values(SampleDepth::u8, SampleDepth::u16),
                                            ::testing::Values("tfact2_64x48_guard",
                                                              "k3_tfact2_50x38")),
                         [](const auto& p) {
                           return std::get<1>(p.param) +
                                  (std::get<0>(p.param) == SampleDepth::u8 ? "_8bit" : "_16bit");
                         });

}  // namespace
}  // namespace framecast::vulkan
