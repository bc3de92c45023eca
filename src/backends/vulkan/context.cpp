#include "backends/vulkan/context.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "framecast/error.hpp"

namespace framecast::vulkan {
namespace {

std::atomic<bool> validation_requested{false};
std::mutex handler_mutex;
std::function<void(const std::string&)> validation_handler;

bool validation_wanted() {
  const char* env = std::getenv("FRAMECAST_VULKAN_VALIDATION");
  return validation_requested || (env && std::strcmp(env, "1") == 0);
}

// FRAMECAST_VULKAN_COPY_QUEUE=compute keeps the copies on the compute queue, in turn with the
// kernels, as before there was a copy queue: for measuring what the copy queue is worth with
// one binary, and a way around a driver whose transfer queue misbehaves.
bool copies_on_compute_queue() {
  const char* env = std::getenv("FRAMECAST_VULKAN_COPY_QUEUE");
  return env && std::strcmp(env, "compute") == 0;
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT,
    const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
  if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
    std::lock_guard lock(handler_mutex);
    if (validation_handler) validation_handler(data && data->pMessage ? data->pMessage : "?");
  }
  return VK_FALSE;
}

bool has_layer(const char* name) {
  std::uint32_t count = 0;
  if (vkEnumerateInstanceLayerProperties(&count, nullptr) != VK_SUCCESS) return false;
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  return std::any_of(layers.begin(), layers.end(),
                     [&](const VkLayerProperties& l) { return std::strcmp(l.layerName, name) == 0; });
}

bool has_instance_extension(const char* layer, const char* name) {
  std::uint32_t count = 0;
  if (vkEnumerateInstanceExtensionProperties(layer, &count, nullptr) != VK_SUCCESS) return false;
  std::vector<VkExtensionProperties> extensions(count);
  vkEnumerateInstanceExtensionProperties(layer, &count, extensions.data());
  return std::any_of(extensions.begin(), extensions.end(), [&](const VkExtensionProperties& e) {
    return std::strcmp(e.extensionName, name) == 0;
  });
}

std::vector<std::string> device_extensions(VkPhysicalDevice physical) {
  std::uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, extensions.data());
  std::vector<std::string> names;
  for (const auto& e : extensions) names.emplace_back(e.extensionName);
  return names;
}

DeviceCaps query_caps(VkPhysicalDevice physical, int index) {
  DeviceCaps caps;
  caps.index = index;
  VkPhysicalDeviceProperties basic{};
  vkGetPhysicalDeviceProperties(physical, &basic);
  caps.name = basic.deviceName;
  caps.vendor_id = basic.vendorID;
  caps.device_id = basic.deviceID;
  caps.driver_version = basic.driverVersion;
  caps.api_version = basic.apiVersion;
  caps.type = basic.deviceType;
  if (basic.apiVersion < VK_API_VERSION_1_2) {
    caps.unusable = "Vulkan " + std::to_string(VK_API_VERSION_MAJOR(basic.apiVersion)) + "." +
                    std::to_string(VK_API_VERSION_MINOR(basic.apiVersion)) +
                    " device; Framecast needs 1.2";
    return caps;
  }

  auto p12 = make_struct<VkPhysicalDeviceVulkan12Properties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES);
  auto p11 = make_struct<VkPhysicalDeviceVulkan11Properties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES);
  p11.pNext = &p12;
  auto props = make_struct<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
  props.pNext = &p11;
  vkGetPhysicalDeviceProperties2(physical, &props);
  const VkPhysicalDeviceLimits& limits = props.properties.limits;
  caps.driver = std::string(p12.driverName) + " " + p12.driverInfo;
  caps.subgroup_size = p11.subgroupSize;
  caps.subgroup_broadcast = (p11.subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                            (p11.subgroupSupportedOperations & VK_SUBGROUP_FEATURE_BALLOT_BIT);
  caps.max_shared_memory = limits.maxComputeSharedMemorySize;
  caps.max_push_constants = limits.maxPushConstantsSize;
  for (int i = 0; i < 3; ++i) caps.max_group_count[i] = limits.maxComputeWorkGroupCount[i];
  caps.max_group_invocations = limits.maxComputeWorkGroupInvocations;
  caps.max_storage_range = limits.maxStorageBufferRange;
  caps.storage_alignment = std::max<VkDeviceSize>(limits.minStorageBufferOffsetAlignment, 4);
  caps.timestamp_period_ns = limits.timestampPeriod;

  auto executables = make_struct<VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR);
  auto f12 = make_struct<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  auto f11 = make_struct<VkPhysicalDeviceVulkan11Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
  f11.pNext = &f12;
  auto features = make_struct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  features.pNext = &f11;
  const auto extensions = device_extensions(physical);
  const bool has_executables =
      std::find(extensions.begin(), extensions.end(),
                VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME) != extensions.end();
  if (has_executables) f12.pNext = &executables;  // chained only where the device knows it
  vkGetPhysicalDeviceFeatures2(physical, &features);
  caps.f16 = f12.shaderFloat16 && f11.storageBuffer16BitAccess;
  const bool memory_model = f12.vulkanMemoryModel;

  for (const auto& e : extensions) {
    caps.cooperative_matrix_khr |= e == "VK_KHR_cooperative_matrix";
    caps.cooperative_matrix_nv |= e == "VK_NV_cooperative_matrix";
    caps.cooperative_matrix2_nv |= e == "VK_NV_cooperative_matrix2";
  }
  caps.pipeline_statistics = has_executables && executables.pipelineExecutableInfo &&
                             vkGetPipelineExecutablePropertiesKHR &&
                             vkGetPipelineExecutableStatisticsKHR;

  if (caps.cooperative_matrix_nv && caps.f16 && memory_model &&
      vkGetPhysicalDeviceCooperativeMatrixPropertiesNV) {
    std::uint32_t count = 0;
    vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(physical, &count, nullptr);
    std::vector<VkCooperativeMatrixPropertiesNV> shapes(
        count, make_struct<VkCooperativeMatrixPropertiesNV>(
                   VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV));
    vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(physical, &count, shapes.data());
    for (const auto& m : shapes) {
      if (m.MSize != 16 || m.KSize != 16 || m.scope != VK_SCOPE_SUBGROUP_NV ||
          m.AType != VK_COMPONENT_TYPE_FLOAT16_NV || m.BType != VK_COMPONENT_TYPE_FLOAT16_NV ||
          m.CType != VK_COMPONENT_TYPE_FLOAT32_NV || m.DType != VK_COMPONENT_TYPE_FLOAT32_NV)
        continue;
      caps.coop_n8 |= m.NSize == 8;
      caps.coop_n16 |= m.NSize == 16;
    }
  }

  VkPhysicalDeviceMemoryProperties memory{};
  vkGetPhysicalDeviceMemoryProperties(physical, &memory);
  for (std::uint32_t i = 0; i < memory.memoryHeapCount; ++i)
    if (memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      caps.device_local_bytes = std::max(caps.device_local_bytes, memory.memoryHeaps[i].size);

  // A compute queue; among several, one that can write timestamps.
  std::uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
  int chosen = -1;
  for (std::uint32_t i = 0; i < count; ++i) {
    if (!(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
    if (chosen < 0 || (families[i].timestampValidBits && !families[chosen].timestampValidBits))
      chosen = int(i);
  }
  if (chosen < 0) {
    caps.unusable = "no compute queue";
    return caps;
  }
  caps.queue_family = std::uint32_t(chosen);
  caps.timestamps = families[chosen].timestampValidBits > 0 && limits.timestampPeriod > 0.0f;
  const QueueChoice copy = copies_on_compute_queue() ? QueueChoice{caps.queue_family, 0}
                                                     : choose_copy_queue(families, caps.queue_family);
  caps.copy_family = copy.family;
  caps.copy_queue_index = copy.index;
  caps.host_query_reset = f12.hostQueryReset;
  caps.copy_timestamps = caps.host_query_reset && families[copy.family].timestampValidBits > 0 &&
                         limits.timestampPeriod > 0.0f;
  if (!f12.timelineSemaphore) caps.unusable = "no timeline semaphores";
  return caps;
}

}  // namespace

QueueChoice choose_copy_queue(std::span<const VkQueueFamilyProperties> families,
                              std::uint32_t compute_family) {
  for (std::uint32_t i = 0; i < families.size(); ++i) {
    const VkQueueFlags flags = families[i].queueFlags;
    if ((flags & VK_QUEUE_TRANSFER_BIT) && !(flags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) &&
        families[i].queueCount > 0)
      return {i, 0};
  }
  if (families[compute_family].queueCount >= 2) return {compute_family, 1};
  return {compute_family, 0};
}

namespace {

// Higher is better: discrete GPUs first, software rasterizers last; then memory.
long long device_rank(const DeviceCaps& caps) {
  int type_rank = 0;
  switch (caps.type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: type_rank = 4; break;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: type_rank = 3; break;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: type_rank = 2; break;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: type_rank = 0; break;
    default: type_rank = 1; break;
  }
  return (long long)type_rank << 50 | (long long)(caps.device_local_bytes >> 20);
}

}  // namespace

const char* result_name(VkResult result) {
  switch (result) {
    case VK_SUCCESS: return "VK_SUCCESS";
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_INCOMPLETE: return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_OUT_OF_POOL_MEMORY: return "VK_ERROR_OUT_OF_POOL_MEMORY";
    case VK_ERROR_INVALID_SHADER_NV: return "VK_ERROR_INVALID_SHADER_NV";
    default: return "VkResult error";
  }
}

void check(VkResult result, const char* what) {
  if (result == VK_SUCCESS) return;
  const std::string message = std::string(what) + " failed: " + result_name(result) + " (" +
                              std::to_string(int(result)) + ")";
  switch (result) {
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_OUT_OF_POOL_MEMORY:
      throw Error(ErrorKind::out_of_memory, "Vulkan: " + message);
    case VK_ERROR_DEVICE_LOST:
      throw Error(ErrorKind::device, "Vulkan device lost: " + message);
    default:
      throw Error(ErrorKind::device, "Vulkan: " + message);
  }
}

void set_validation(bool enabled) { validation_requested = enabled; }

void set_validation_handler(std::function<void(const std::string&)> handler) {
  std::lock_guard lock(handler_mutex);
  validation_handler = std::move(handler);
}

std::string DeviceCaps::type_name() const {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU (hardware)";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU (hardware)";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU (software)";
    default: return "other";
  }
}

Instance::Instance() {
  if (auto failure = load_global_functions(); !failure.empty())
    throw Error(ErrorKind::device, failure);
  std::uint32_t loader_version = VK_API_VERSION_1_0;
  if (vkEnumerateInstanceVersion) vkEnumerateInstanceVersion(&loader_version);
  if (loader_version < VK_API_VERSION_1_2)
    throw Error(ErrorKind::device, "the Vulkan loader is older than 1.2");

  auto app = make_struct<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.pApplicationName = "framecast";
  app.pEngineName = "framecast";
  app.apiVersion = VK_API_VERSION_1_2;
  std::vector<const char*> layers, extensions;
  const char* validation_layer = "VK_LAYER_KHRONOS_validation";
  const bool validate = validation_wanted() && has_layer(validation_layer) &&
                        (has_instance_extension(nullptr, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) ||
                         has_instance_extension(validation_layer, VK_EXT_DEBUG_UTILS_EXTENSION_NAME));
  auto messenger = make_struct<VkDebugUtilsMessengerCreateInfoEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT);
  messenger.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT |
                              VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
  messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT;
  messenger.pfnUserCallback = on_validation_message;
  auto info = make_struct<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  info.pApplicationInfo = &app;
  // Synchronization validation too: it finds a missing barrier on any driver, even on one
  // (lavapipe) that runs dispatches one at a time and so never shows the race.
  const VkValidationFeatureEnableEXT sync =
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
  auto features =
      make_struct<VkValidationFeaturesEXT>(VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT);
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = &sync;
  if (validate) {
    layers.push_back(validation_layer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    info.pNext = &messenger;  // also reports errors of vkCreateInstance itself
    if (has_instance_extension(validation_layer, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME)) {
      extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
      features.pNext = &messenger;  // the messenger's own pNext stays null: it is reused below
      info.pNext = &features;
    }
  }
  info.enabledLayerCount = std::uint32_t(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = std::uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  const VkResult result = vkCreateInstance(&info, nullptr, &instance_);
  if (result == VK_ERROR_INCOMPATIBLE_DRIVER)
    throw Error(ErrorKind::device, "no Vulkan driver (no installable client driver found)");
  check(result, "vkCreateInstance");
  try {
    load_instance_functions(instance_);
  } catch (...) {
    // vkDestroyInstance may be the missing function; leak rather than crash.
    if (vkDestroyInstance) vkDestroyInstance(instance_, nullptr);
    throw;
  }
  if (validate) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
    destroy_messenger_ = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (create && destroy_messenger_) create(instance_, &messenger, nullptr, &messenger_);
  }
}

Instance::~Instance() {
  if (messenger_) destroy_messenger_(instance_, messenger_, nullptr);
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

std::vector<DeviceCaps> Instance::devices() const {
  std::uint32_t count = 0;
  check(vkEnumeratePhysicalDevices(instance_, &count, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> physicals(count);
  check(vkEnumeratePhysicalDevices(instance_, &count, physicals.data()),
        "vkEnumeratePhysicalDevices");
  std::vector<DeviceCaps> caps;
  for (std::uint32_t i = 0; i < count; ++i) caps.push_back(query_caps(physicals[i], int(i)));
  return caps;
}

std::shared_ptr<Context> Context::create(int device, Cancelled cancelled) {
  return std::shared_ptr<Context>(new Context(device, std::move(cancelled)));
}

Context::Context(int device, Cancelled cancelled) : cancelled_(std::move(cancelled)) {
  const auto all = instance_.devices();
  if (all.empty()) throw Error(ErrorKind::device, "no Vulkan device");
  if (device >= int(all.size()))
    throw Error(ErrorKind::device, "no Vulkan device " + std::to_string(device) + " (there are " +
                                       std::to_string(all.size()) + ", numbered from 0)");
  if (device < -1) throw Error(ErrorKind::device, "invalid device index " + std::to_string(device));
  if (device >= 0) {
    caps_ = all[device];
    if (!caps_.unusable.empty())
      throw Error(ErrorKind::device, "Vulkan device " + std::to_string(device) + " (" +
                                         caps_.name + ") is unusable: " + caps_.unusable);
  } else {
    const DeviceCaps* best = nullptr;
    for (const auto& c : all)
      if (c.unusable.empty() && (!best || device_rank(c) > device_rank(*best))) best = &c;
    if (!best)
      throw Error(ErrorKind::device, "no usable Vulkan device (" + all[0].name + ": " +
                                         all[0].unusable + ")");
    caps_ = *best;
  }
  std::uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance_.handle(), &count, nullptr);
  std::vector<VkPhysicalDevice> physicals(count);
  vkEnumeratePhysicalDevices(instance_.handle(), &count, physicals.data());
  physical_ = physicals.at(std::size_t(caps_.index));
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);

  const float priorities[] = {1.0f, 1.0f};
  std::vector<VkDeviceQueueCreateInfo> queue_infos;
  const auto add_queues = [&](std::uint32_t family, std::uint32_t queues) {
    auto q = make_struct<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
    q.queueFamilyIndex = family;
    q.queueCount = queues;
    q.pQueuePriorities = priorities;
    queue_infos.push_back(q);
  };
  add_queues(caps_.queue_family, caps_.copy_family == caps_.queue_family ? caps_.copy_queue_index + 1 : 1);
  if (caps_.copy_family != caps_.queue_family) add_queues(caps_.copy_family, 1);
  auto f12 = make_struct<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  auto f11 = make_struct<VkPhysicalDeviceVulkan11Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
  f11.pNext = &f12;
  f12.timelineSemaphore = VK_TRUE;
  f12.hostQueryReset = caps_.host_query_reset;
  f12.shaderFloat16 = caps_.f16;
  f11.storageBuffer16BitAccess = caps_.f16;
  auto features = make_struct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  features.pNext = &f11;
  auto info = make_struct<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
  info.pNext = &features;
  info.queueCreateInfoCount = std::uint32_t(queue_infos.size());
  info.pQueueCreateInfos = queue_infos.data();
  // The coop conv's SPIR-V needs the extension, its feature and the Vulkan memory model.
  auto coop = make_struct<VkPhysicalDeviceCooperativeMatrixFeaturesNV>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV);
  std::vector<const char*> extensions;
  void** chain = &f12.pNext;
  if (caps_.coop()) {
    coop.cooperativeMatrix = VK_TRUE;
    *chain = &coop;
    chain = &coop.pNext;
    f12.vulkanMemoryModel = VK_TRUE;
    extensions.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  }
  auto executables = make_struct<VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR);
  if (caps_.pipeline_statistics) {
    executables.pipelineExecutableInfo = VK_TRUE;
    *chain = &executables;
    extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  }
  info.enabledExtensionCount = std::uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  check(vkCreateDevice(physical_, &info, nullptr, &device_), "vkCreateDevice");
  vkGetDeviceQueue(device_, caps_.queue_family, 0, &queue_);
  vkGetDeviceQueue(device_, caps_.copy_family, caps_.copy_queue_index, &copy_queue_);
}

Context::~Context() {
  if (device_) {
    vkDeviceWaitIdle(device_);
    vkDestroyDevice(device_, nullptr);
  }
}

std::uint32_t Context::memory_type(std::uint32_t type_bits, VkMemoryPropertyFlags required,
                                   VkMemoryPropertyFlags preferred) const {
  int fallback = -1;
  for (std::uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
    if (!(type_bits & (1u << i))) continue;
    const auto flags = memory_.memoryTypes[i].propertyFlags;
    if ((flags & required) != required) continue;
    if ((flags & preferred) == preferred) return i;
    if (fallback < 0) fallback = int(i);
  }
  if (fallback < 0)
    throw Error(ErrorKind::out_of_memory, "Vulkan: no memory type with the needed properties");
  return std::uint32_t(fallback);
}

VkMemoryPropertyFlags Context::memory_flags(std::uint32_t type) const {
  return memory_.memoryTypes[type].propertyFlags;
}

}  // namespace framecast::vulkan
