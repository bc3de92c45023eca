// GPU faults in the middle of `interpolate`'s pipeline: a lost device and exhausted device
// memory, injected where the Vulkan backend calls the driver. Every Vulkan call goes through
// the function table of backends/vulkan/loader.hpp, so a test swaps one entry for a stub
// that fails after N calls; no test-only code in the library. Each fault must end the job
// with one Error of the right kind, a one-line message, and nothing under the output name.
#include <gtest/gtest.h>

#include <atomic>

#include "backends/vulkan/loader.hpp"
#include "framecast/engine.hpp"
#include "framecast/error.hpp"
#include "video/pipeline.hpp"
#include "video/video_support.hpp"

namespace framecast::test {
namespace {

namespace vk = framecast::vulkan;

std::atomic<int> calls_left{0};

PFN_vkQueueSubmit real_submit = nullptr;
VKAPI_ATTR VkResult VKAPI_CALL lost_submit(VkQueue queue, std::uint32_t count, const VkSubmitInfo* infos,
                                           VkFence fence) {
  if (calls_left-- > 0) return real_submit(queue, count, infos, fence);
  return VK_ERROR_DEVICE_LOST;
}

PFN_vkAllocateMemory real_allocate = nullptr;
VKAPI_ATTR VkResult VKAPI_CALL exhausted_allocate(VkDevice device, const VkMemoryAllocateInfo* info,
                                                  const VkAllocationCallbacks* callbacks, VkDeviceMemory* memory) {
  if (calls_left-- > 0) return real_allocate(device, info, callbacks, memory);
  return VK_ERROR_OUT_OF_DEVICE_MEMORY;
}

// Swaps a table entry for the test's lifetime.
template <typename F>
class Swap {
 public:
  Swap(F& entry, F stub, F& real) : entry_(entry), saved_(entry) {
    real = entry;
    entry = stub;
  }
  ~Swap() { entry_ = saved_; }

 private:
  F& entry_;
  F saved_;
};

class DeviceFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    make_clip("-f lavfi -i testsrc2=s=64x48:r=24:d=1 " + (dir_ / "in.y4m").string());
    try {
      engine_.emplace(Model::load(tiny_model(dir_.path())), BackendRequest{"vulkan", -1});
    } catch (const Error& e) {
      GTEST_SKIP() << "no Vulkan device: " << e.what();
    }
  }

  // Runs the job; returns the error it ended with.
  Error run() {
    video::InterpolateJob job;
    job.input = (dir_ / "in.y4m").string();
    job.output = (dir_ / "out.mkv").string();
    job.rate = {video::Rational(2), true};
    try {
      video::run_interpolation(job, *engine_, {});
    } catch (const Error& e) {
      return e;
    }
    ADD_FAILURE() << "the job succeeded despite the fault";
    return Error(ErrorKind::internal, "");
  }

  void expect_clean_failure(const Error& e, ErrorKind kind, const std::string& words) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    const std::string message = e.what();
    EXPECT_NE(message.find(words), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    for (const auto& entry : std::filesystem::directory_iterator(dir_.path()))
      EXPECT_TRUE(entry.path().filename().string().rfind("in", 0) == 0 ||
                  entry.path().filename().string().rfind("tiny", 0) == 0)
          << "left behind: " << entry.path();
  }

  ScratchDir dir_;
  std::optional<Engine> engine_;
};

TEST_F(DeviceFaults, DeviceLostAtTheFirstSubmit) {
  calls_left = 0;
  Swap swap(vk::vkQueueSubmit, &lost_submit, real_submit);
  expect_clean_failure(run(), ErrorKind::device, "VK_ERROR_DEVICE_LOST");
}

TEST_F(DeviceFaults, DeviceLostMidStream) {
  calls_left = 12;  // some pairs are interpolated before the device goes
  Swap swap(vk::vkQueueSubmit, &lost_submit, real_submit);
  expect_clean_failure(run(), ErrorKind::device, "VK_ERROR_DEVICE_LOST");
  EXPECT_LT(calls_left, 0);
}

TEST_F(DeviceFaults, DeviceMemoryExhausted) {
  calls_left = 0;  // the runtime of the video's size allocates its planes on the first pair
  Swap swap(vk::vkAllocateMemory, &exhausted_allocate, real_allocate);
  expect_clean_failure(run(), ErrorKind::out_of_memory, "out of device memory");
}

}  // namespace
}  // namespace framecast::test
