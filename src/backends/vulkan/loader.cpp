#include "backends/vulkan/loader.hpp"

#include <dlfcn.h>

#include <mutex>

#include "framecast/error.hpp"

namespace framecast::vulkan {

#define FRAMECAST_VK_DEFINE(name) PFN_##name name = nullptr;
FRAMECAST_VK_GLOBAL_FUNCTIONS(FRAMECAST_VK_DEFINE)
FRAMECAST_VK_INSTANCE_FUNCTIONS(FRAMECAST_VK_DEFINE)
#undef FRAMECAST_VK_DEFINE
PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV vkGetPhysicalDeviceCooperativeMatrixPropertiesNV =
    nullptr;
PFN_vkGetPipelineExecutablePropertiesKHR vkGetPipelineExecutablePropertiesKHR = nullptr;
PFN_vkGetPipelineExecutableStatisticsKHR vkGetPipelineExecutableStatisticsKHR = nullptr;

std::string load_global_functions() {
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] {
    // Never closed: the trampolines must outlive every Vulkan object of the process.
    void* library = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      failure = "no Vulkan loader (libvulkan.so.1 could not be opened)";
      return;
    }
    vkGetInstanceProcAddr =
        reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(library, "vkGetInstanceProcAddr"));
    if (!vkGetInstanceProcAddr) {
      failure = "the Vulkan loader has no vkGetInstanceProcAddr";
      return;
    }
#define FRAMECAST_VK_LOAD(name) \
  name = reinterpret_cast<PFN_##name>(vkGetInstanceProcAddr(nullptr, #name));
    FRAMECAST_VK_GLOBAL_FUNCTIONS(FRAMECAST_VK_LOAD)
#undef FRAMECAST_VK_LOAD
    if (!vkCreateInstance || !vkEnumerateInstanceLayerProperties ||
        !vkEnumerateInstanceExtensionProperties)
      failure = "the Vulkan loader lacks the global functions";
    // vkEnumerateInstanceVersion is missing from Vulkan 1.0 loaders; callers treat null as 1.0.
  });
  return failure;
}

void load_instance_functions(VkInstance instance) {
  static std::mutex mutex;
  static bool loaded = false;
  std::lock_guard lock(mutex);
  if (loaded) return;
  std::string missing;
#define FRAMECAST_VK_LOAD(name)                                                        \
  name = reinterpret_cast<PFN_##name>(vkGetInstanceProcAddr(instance, #name));        \
  if (!name) missing += std::string(missing.empty() ? "" : ", ") + #name;
  FRAMECAST_VK_INSTANCE_FUNCTIONS(FRAMECAST_VK_LOAD)
#undef FRAMECAST_VK_LOAD
  if (!missing.empty())
    throw Error(ErrorKind::device, "the Vulkan loader lacks " + missing + " (Vulkan 1.2 needed)");
  vkGetPhysicalDeviceCooperativeMatrixPropertiesNV =
      reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
          vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"));
  vkGetPipelineExecutablePropertiesKHR = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
      vkGetInstanceProcAddr(instance, "vkGetPipelineExecutablePropertiesKHR"));
  vkGetPipelineExecutableStatisticsKHR = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
      vkGetInstanceProcAddr(instance, "vkGetPipelineExecutableStatisticsKHR"));
  loaded = true;
}

}  // namespace framecast::vulkan
