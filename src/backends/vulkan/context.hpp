// The Vulkan instance, the chosen physical device and its logical device with one compute
// queue (and one for copies where the device has another), and what Framecast needs to know
// about the device. Shared by every runtime of a backend; runtimes own their buffers,
// pipelines and command buffers.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backends/vulkan/loader.hpp"
#include "engine/cancelled.hpp"

namespace framecast::vulkan {

// Throws framecast::Error for a failed call: device lost -> ErrorKind::device, host or
// device memory exhausted -> ErrorKind::out_of_memory, anything else -> ErrorKind::device.
void check(VkResult result, const char* what);
const char* result_name(VkResult result);

// Validation: VK_LAYER_KHRONOS_validation is enabled on new instances when
// FRAMECAST_VULKAN_VALIDATION=1 is set or after set_validation(true), if the layer exists,
// with its synchronization checks.
// Every validation error goes to the handler (tests turn it into a failure).
void set_validation(bool enabled);
void set_validation_handler(std::function<void(const std::string&)> handler);

struct DeviceCaps {
  int index = -1;  // order of vkEnumeratePhysicalDevices, the --device number
  std::string name;
  std::uint32_t vendor_id = 0, device_id = 0, driver_version = 0, api_version = 0;
  std::string driver;  // driver name and info, e.g. "NVIDIA 580.159.04"
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  bool f16 = false;                 // shaderFloat16 and storageBuffer16BitAccess
  bool subgroup_broadcast = false;  // compute-stage subgroups with ballot (broadcast) operations
  std::uint32_t subgroup_size = 0;
  std::uint32_t max_shared_memory = 0;
  std::uint32_t max_push_constants = 0;
  std::uint32_t max_group_count[3] = {0, 0, 0};
  std::uint32_t max_group_invocations = 0;
  VkDeviceSize max_storage_range = 0;
  VkDeviceSize storage_alignment = 1;
  bool timestamps = false;  // the compute queue family has valid timestamp bits
  float timestamp_period_ns = 1.0f;
  std::uint32_t queue_family = 0;
  // Where the frames' uploads and the mids' readbacks run (choose_copy_queue).
  std::uint32_t copy_family = 0, copy_queue_index = 0;
  // Copy command buffers time themselves: the copy family has timestamp bits, and query
  // pools can be reset from the host (a transfer queue cannot reset them itself).
  bool copy_timestamps = false;
  bool host_query_reset = false;
  bool cooperative_matrix_khr = false, cooperative_matrix_nv = false,
       cooperative_matrix2_nv = false;
  // VK_NV_cooperative_matrix usable by the coop conv (subgroup scope, 16 x N x 16, f16 inputs,
  // f32 accumulators, with the Vulkan memory model): which N the driver offers.
  bool coop_n8 = false, coop_n16 = false;
  bool coop() const { return coop_n8 || coop_n16; }
  // VK_KHR_pipeline_executable_properties: the driver reports what it compiled each kernel
  // to (registers, spills, instructions: whatever it chooses to name), for `tune --show`.
  bool pipeline_statistics = false;
  VkDeviceSize device_local_bytes = 0;
  std::string unusable;  // why Framecast cannot run on it (empty when it can)

  bool software() const { return type == VK_PHYSICAL_DEVICE_TYPE_CPU; }
  std::string type_name() const;
};

// The queue for copies between host and device memory: a transfer-only family's (its copy
// engines work beside the compute units) where the device has one, else a second queue of the
// compute family, else the compute queue itself, where copies run in turn with the kernels.
struct QueueChoice {
  std::uint32_t family = 0, index = 0;
};
QueueChoice choose_copy_queue(std::span<const VkQueueFamilyProperties> families,
                              std::uint32_t compute_family);

// An instance with the validation messenger when validation is on.
class Instance {
 public:
  Instance();  // throws Error(device) without a loader or a Vulkan 1.2 instance
  ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
  VkInstance handle() const noexcept { return instance_; }
  bool validation() const noexcept { return messenger_ != VK_NULL_HANDLE; }
  std::vector<DeviceCaps> devices() const;

 private:
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger_ = nullptr;
};

class Context {
 public:
  // device: an index of Instance::devices(), or -1 for the best usable one. Throws
  // Error(device) when there is none, the index is out of range or the device is unusable.
  // `cancelled` is asked before each kernel build on this device (Pipeline), one driver call
  // that can take a large part of a second.
  static std::shared_ptr<Context> create(int device, Cancelled cancelled = {});
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  VkInstance instance() const noexcept { return instance_.handle(); }
  VkPhysicalDevice physical() const noexcept { return physical_; }
  VkDevice device() const noexcept { return device_; }
  VkQueue queue() const noexcept { return queue_; }
  VkQueue copy_queue() const noexcept { return copy_queue_; }
  // Copies run beside the kernels rather than in turn with them.
  bool separate_copy_queue() const noexcept { return copy_queue_ != queue_; }
  const DeviceCaps& caps() const noexcept { return caps_; }
  bool validation() const noexcept { return instance_.validation(); }
  const Cancelled& cancelled() const noexcept { return cancelled_; }

  // A memory type among `type_bits` with all `required` flags, preferring one that also has
  // `preferred`; throws Error(out_of_memory) when none fits.
  std::uint32_t memory_type(std::uint32_t type_bits, VkMemoryPropertyFlags required,
                            VkMemoryPropertyFlags preferred) const;
  VkMemoryPropertyFlags memory_flags(std::uint32_t type) const;

 private:
  Context(int device, Cancelled cancelled);

  Instance instance_;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkQueue copy_queue_ = VK_NULL_HANDLE;
  DeviceCaps caps_;
  VkPhysicalDeviceMemoryProperties memory_{};
  Cancelled cancelled_;
};

}  // namespace framecast::vulkan
