// The Vulkan compute backend: the seed's GPU runtime as GLSL compute shaders, on any Vulkan
// 1.2 device (and on the CPU through Mesa's lavapipe).
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "framecast/backend.hpp"

namespace framecast::vulkan {

// The backend on physical device `device` (-1: the best one). Throws Error(device) when there
// is no loader, no device, or the index is out of range, and with `hardware_only` when the
// device is a software rasterizer (llvmpipe/lavapipe): `auto` must not pick one silently.
// `cancelled` is asked before each kernel build of its runtimes (BackendRequest::cancelled).
std::unique_ptr<Backend> make_vulkan_backend(int device, bool hardware_only = false,
                                             std::function<bool()> cancelled = {});

// One block per physical device (name, ids, driver, software or hardware, f16 and 16-bit
// storage, subgroup size, shared memory, cooperative matrix), or one line saying why there is
// none. Never throws.
std::string device_report();

// What a caller needs to create buffers and synchronize with a runtime's device.
struct DeviceHandles {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;  // the runtime submits here; use it from one thread only
  std::uint32_t queue_family = 0;
};

// The Vulkan runtime beyond framecast::Runtime: frames that stay on the GPU. Runtimes of
// this backend are VulkanRuntime (dynamic_cast). Its last_device_ms() counts the work
// submitted since the last prepare_pair (that call's own included), from timestamp queries.
class VulkanRuntime : public Runtime {
 public:

  // GPU-resident frames. Frames are buffers created by the caller on handles().device with
  // VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, holding packed interleaved RGB exactly like Frame's
  // samples (rows without padding, 1 or 2 little-endian bytes per sample, the size rounded up
  // to 4 bytes), of this runtime's size. The calls only record and submit: they return a
  // ticket, a value of timeline(), reached when the work is done. The caller's writes to the
  // inputs must be complete or submitted earlier on handles().queue, and the outputs are
  // ready once the ticket is reached (wait(), or a semaphore wait in the caller's submission).
  virtual DeviceHandles handles() const = 0;
  virtual VkSemaphore timeline() const = 0;
  virtual std::uint64_t prepare_pair_gpu(VkBuffer frame0, VkBuffer frame1, SampleDepth depth) = 0;
  // outputs[i] receives the frame at ts[i]; all of them in one submission.
  virtual std::uint64_t mids_gpu(std::span<const float> ts, std::span<const VkBuffer> outputs) = 0;
  // Throws Error(device) when the GPU does not get there (hung or lost device).
  virtual void wait(std::uint64_t ticket) = 0;

 protected:
  VulkanRuntime(int width, int height) : Runtime(width, height) {}
};

// A runtime on device `device` (-1: best) for callers that hold frames on the GPU; `model`
// must outlive it. Same errors as make_vulkan_backend() and Backend::create_runtime().
std::unique_ptr<VulkanRuntime> make_vulkan_runtime(const Model& model, int width, int height,
                                                   const RuntimeOptions& options, int device = -1);

}  // namespace framecast::vulkan
