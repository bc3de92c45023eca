// GPU faults in the middle of `interpolate`'s pipeline: a lost device and exhausted device
// memory, injected where the Vulkan backend calls the driver; and a signal while the kernels
// are built. Every Vulkan call goes through
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

// Device lost on every queue but the first to submit: one of two devices fails.
std::atomic<VkQueue> healthy_queue{VK_NULL_HANDLE};
VKAPI_ATTR VkResult VKAPI_CALL lost_submit_on_one_queue(VkQueue queue, std::uint32_t count,
                                                        const VkSubmitInfo* infos, VkFence fence) {
  VkQueue none = VK_NULL_HANDLE;
  healthy_queue.compare_exchange_strong(none, queue);
  if (queue == healthy_queue || calls_left-- > 0) return real_submit(queue, count, infos, fence);
  return VK_ERROR_DEVICE_LOST;
}

PFN_vkAllocateMemory real_allocate = nullptr;
VKAPI_ATTR VkResult VKAPI_CALL exhausted_allocate(VkDevice device, const VkMemoryAllocateInfo* info,
                                                  const VkAllocationCallbacks* callbacks, VkDeviceMemory* memory) {
  if (calls_left-- > 0) return real_allocate(device, info, callbacks, memory);
  return VK_ERROR_OUT_OF_DEVICE_MEMORY;
}

// SIGINT/SIGTERM as the CLI passes them on: a flag that the engine's BackendRequest and the
// job's hooks both read. The stub raises it during the third kernel build.
std::atomic<bool> signalled{false};
std::atomic<int> kernel_builds{0};

PFN_vkCreateComputePipelines real_create_pipelines = nullptr;
VKAPI_ATTR VkResult VKAPI_CALL signalling_create_pipelines(VkDevice device, VkPipelineCache cache,
                                                           std::uint32_t count,
                                                           const VkComputePipelineCreateInfo* infos,
                                                           const VkAllocationCallbacks* callbacks,
                                                           VkPipeline* pipelines) {
  if (++kernel_builds == 3) signalled = true;
  return real_create_pipelines(device, cache, count, infos, callbacks, pipelines);
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
    signalled = false;
    kernel_builds = 0;
    try {
      engine_.emplace(Model::load(tiny_model(dir_.path())),
                      BackendRequest{"vulkan", -1, [] { return signalled.load(); }});
    } catch (const Error& e) {
      GTEST_SKIP() << "no Vulkan device: " << e.what();
    }
  }

  // Runs the job on the fixture's engine, or on `engines`; returns the error it ended with.
  Error run() { return run({&*engine_}); }
  Error run(const std::vector<Engine*>& engines) {
    video::InterpolateJob job;
    job.input = (dir_ / "in.y4m").string();
    job.output = (dir_ / "out.mkv").string();
    job.rate = {video::Rational(2), true};
    video::PipelineHooks hooks;
    hooks.cancelled = [] { return signalled.load(); };
    try {
      video::run_interpolation(job, engines, hooks);
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

// The runtime's kernels are built with the first frame: seconds in all where the driver
// compiles slowly, one driver call each. A signal then ends the job after the build in
// progress, as interrupted, leaving nothing. Before BackendRequest::cancelled the job built
// every kernel first.
TEST_F(DeviceFaults, SignalWhileTheKernelsAreBuilt) {
  Swap swap(vk::vkCreateComputePipelines, &signalling_create_pipelines, real_create_pipelines);
  expect_clean_failure(run(), ErrorKind::cancelled, "interrupted");
  EXPECT_EQ(kernel_builds, 3) << "kernels were built after the signal";
}

// Two devices (lavapipe listed twice), one of them lost mid-stream: the job ends with that
// device's error alone, and the other device's frames are not written under the output name.
TEST_F(DeviceFaults, OneOfTwoDevicesLostMidStream) {
  TwoLavapipes lavapipes;
  std::vector<std::unique_ptr<Engine>> engines;
  for (int device : {0, 1}) {
    try {
      engines.push_back(std::make_unique<Engine>(Model::load(tiny_model(dir_.path())),
                                                 BackendRequest{"vulkan", device}));
    } catch (const Error& e) {
      GTEST_SKIP() << "no second Vulkan device: " << e.what();
    }
  }
  healthy_queue = VK_NULL_HANDLE;
  calls_left = 6;
  Swap swap(vk::vkQueueSubmit, &lost_submit_on_one_queue, real_submit);
  expect_clean_failure(run({engines[0].get(), engines[1].get()}), ErrorKind::device,
                       "VK_ERROR_DEVICE_LOST");
  EXPECT_LT(calls_left, 0) << "the second device never failed";
}

TEST_F(DeviceFaults, DeviceMemoryExhausted) {
  calls_left = 0;  // the runtime of the video's size allocates its planes on the first pair
  Swap swap(vk::vkAllocateMemory, &exhausted_allocate, real_allocate);
  expect_clean_failure(run(), ErrorKind::out_of_memory, "out of device memory");
}

}  // namespace
}  // namespace framecast::test
