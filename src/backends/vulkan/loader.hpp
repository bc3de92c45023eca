// The Vulkan functions Framecast calls, loaded from libvulkan.so.1 at run time. Not linking the
// loader keeps the binary runnable where no Vulkan is installed: the backend then reports "no
// loader" and `auto` falls back to the CPU. Functions are the loader's trampolines (fetched
// through vkGetInstanceProcAddr), which dispatch on the handle, so one table serves every
// instance and device.
#pragma once

#include <vulkan/vulkan.h>

#include <string>

namespace framecast::vulkan {

#define FRAMECAST_VK_GLOBAL_FUNCTIONS(X) \
  X(vkCreateInstance)                    \
  X(vkEnumerateInstanceVersion)          \
  X(vkEnumerateInstanceLayerProperties)  \
  X(vkEnumerateInstanceExtensionProperties)

#define FRAMECAST_VK_INSTANCE_FUNCTIONS(X)    \
  X(vkDestroyInstance)                        \
  X(vkEnumeratePhysicalDevices)               \
  X(vkGetPhysicalDeviceProperties)            \
  X(vkGetPhysicalDeviceProperties2)           \
  X(vkGetPhysicalDeviceFeatures2)             \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkGetPhysicalDeviceMemoryProperties)      \
  X(vkEnumerateDeviceExtensionProperties)     \
  X(vkCreateDevice)                           \
  X(vkDestroyDevice)                          \
  X(vkGetDeviceQueue)                         \
  X(vkCreateBuffer)                           \
  X(vkDestroyBuffer)                          \
  X(vkGetBufferMemoryRequirements)            \
  X(vkAllocateMemory)                         \
  X(vkFreeMemory)                             \
  X(vkBindBufferMemory)                       \
  X(vkMapMemory)                              \
  X(vkUnmapMemory)                            \
  X(vkInvalidateMappedMemoryRanges)           \
  X(vkFlushMappedMemoryRanges)                \
  X(vkCreateShaderModule)                     \
  X(vkDestroyShaderModule)                    \
  X(vkCreateDescriptorSetLayout)              \
  X(vkDestroyDescriptorSetLayout)             \
  X(vkCreatePipelineLayout)                   \
  X(vkDestroyPipelineLayout)                  \
  X(vkCreateComputePipelines)                 \
  X(vkDestroyPipeline)                        \
  X(vkCreateDescriptorPool)                   \
  X(vkDestroyDescriptorPool)                  \
  X(vkAllocateDescriptorSets)                 \
  X(vkUpdateDescriptorSets)                   \
  X(vkCreateCommandPool)                      \
  X(vkDestroyCommandPool)                     \
  X(vkAllocateCommandBuffers)                 \
  X(vkFreeCommandBuffers)                     \
  X(vkBeginCommandBuffer)                     \
  X(vkEndCommandBuffer)                       \
  X(vkResetCommandBuffer)                     \
  X(vkCmdBindPipeline)                        \
  X(vkCmdBindDescriptorSets)                  \
  X(vkCmdPushConstants)                       \
  X(vkCmdDispatch)                            \
  X(vkCmdPipelineBarrier)                     \
  X(vkCmdCopyBuffer)                          \
  X(vkCmdFillBuffer)                          \
  X(vkCmdWriteTimestamp)                      \
  X(vkCmdResetQueryPool)                      \
  X(vkResetQueryPool)                         \
  X(vkCreateQueryPool)                        \
  X(vkDestroyQueryPool)                       \
  X(vkGetQueryPoolResults)                    \
  X(vkQueueSubmit)                            \
  X(vkDeviceWaitIdle)                         \
  X(vkCreateSemaphore)                        \
  X(vkDestroySemaphore)                       \
  X(vkWaitSemaphores)                         \
  X(vkGetSemaphoreCounterValue)

#define FRAMECAST_VK_DECLARE(name) extern PFN_##name name;
FRAMECAST_VK_GLOBAL_FUNCTIONS(FRAMECAST_VK_DECLARE)
FRAMECAST_VK_INSTANCE_FUNCTIONS(FRAMECAST_VK_DECLARE)
#undef FRAMECAST_VK_DECLARE
extern PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
// Extension functions that may be missing (null then).
extern PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV vkGetPhysicalDeviceCooperativeMatrixPropertiesNV;
extern PFN_vkGetPipelineExecutablePropertiesKHR vkGetPipelineExecutablePropertiesKHR;
extern PFN_vkGetPipelineExecutableStatisticsKHR vkGetPipelineExecutableStatisticsKHR;

// A Vulkan struct with its sType set and every other member zeroed.
template <typename T>
T make_struct(VkStructureType type) {
  T value{};
  value.sType = type;
  return value;
}

// Opens the loader once per process. Returns an empty string on success, else why not.
std::string load_global_functions();
// Fetches the instance and device functions through `instance` (once per process; the
// trampolines serve every later instance too). Throws Error(device) when one is missing.
void load_instance_functions(VkInstance instance);

}  // namespace framecast::vulkan
