#include "backends/vulkan/pipelines.hpp"

#include <cstring>
#include <string>
#include <vector>

#include "backends/vulkan/spirv.hpp"
#include "engine/cancelled.hpp"
#include "framecast/error.hpp"

namespace framecast::vulkan {
namespace {

const SpirvModule& find_module(const std::string& name) {
  for (const auto& m : spirv_modules())
    if (m.name == name) return m;
  throw Error(ErrorKind::internal, "no embedded SPIR-V module '" + name + "'");
}

}  // namespace

SpecConstants& SpecConstants::add(int value) {
  std::uint32_t w;
  std::memcpy(&w, &value, 4);
  words_.push_back(w);
  return *this;
}

SpecConstants& SpecConstants::add(float value) {
  std::uint32_t w;
  std::memcpy(&w, &value, 4);
  words_.push_back(w);
  return *this;
}

SpecConstants& SpecConstants::add(bool value) {
  words_.push_back(value ? VK_TRUE : VK_FALSE);
  return *this;
}

Pipeline::Pipeline(std::shared_ptr<const Context> context, std::string module, int bindings,
                   std::uint32_t push_bytes, const SpecConstants& constants, Extent3 per_group)
    : context_(std::move(context)),
      name_(std::move(module)),
      bindings_(bindings),
      push_bytes_(push_bytes),
      per_group_(per_group) {
  throw_if_cancelled(context_->cancelled());
  const VkDevice device = context_->device();
  if (push_bytes > context_->caps().max_push_constants)
    throw Error(ErrorKind::unsupported, name_ + ": " + std::to_string(push_bytes) +
                                            " bytes of push constants exceed the device's limit");
  const SpirvModule& spirv = find_module(name_);

  std::vector<VkDescriptorSetLayoutBinding> layout_bindings(static_cast<std::size_t>(bindings_));
  for (int i = 0; i < bindings_; ++i) {
    layout_bindings[std::size_t(i)] = {std::uint32_t(i), VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                       VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  }
  auto set_info = make_struct<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
  set_info.bindingCount = std::uint32_t(bindings_);
  set_info.pBindings = layout_bindings.data();
  VkShaderModule shader = VK_NULL_HANDLE;
  try {
    check(vkCreateDescriptorSetLayout(device, &set_info, nullptr, &set_layout_),
          "vkCreateDescriptorSetLayout");
    const VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes_};
    auto layout_info = make_struct<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
    layout_info.setLayoutCount = 1;
    layout_info.pSetLayouts = &set_layout_;
    layout_info.pushConstantRangeCount = push_bytes_ ? 1 : 0;
    layout_info.pPushConstantRanges = &push;
    check(vkCreatePipelineLayout(device, &layout_info, nullptr, &layout_), "vkCreatePipelineLayout");

    auto module_info = make_struct<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
    module_info.codeSize = spirv.size;
    module_info.pCode = reinterpret_cast<const std::uint32_t*>(spirv.code);
    check(vkCreateShaderModule(device, &module_info, nullptr, &shader), "vkCreateShaderModule");

    const auto words = constants.words();
    std::vector<VkSpecializationMapEntry> entries(words.size());
    for (std::size_t i = 0; i < words.size(); ++i)
      entries[i] = {std::uint32_t(i), std::uint32_t(i * 4), 4};
    VkSpecializationInfo spec{};
    spec.mapEntryCount = std::uint32_t(entries.size());
    spec.pMapEntries = entries.data();
    spec.dataSize = words.size() * 4;
    spec.pData = words.data();

    auto info = make_struct<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
    info.stage = make_struct<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = shader;
    info.stage.pName = "main";
    info.stage.pSpecializationInfo = &spec;
    info.layout = layout_;
    if (context_->caps().pipeline_statistics) info.flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    const VkResult result =
        vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline_);
    vkDestroyShaderModule(device, shader, nullptr);
    shader = VK_NULL_HANDLE;
    if (result != VK_SUCCESS && result != VK_ERROR_OUT_OF_HOST_MEMORY &&
        result != VK_ERROR_OUT_OF_DEVICE_MEMORY)
      throw Error(ErrorKind::device, "Vulkan: the driver failed to build kernel " + name_ + " (" +
                                         result_name(result) + ")");
    check(result, ("vkCreateComputePipelines (" + name_ + ")").c_str());
  } catch (...) {
    if (shader) vkDestroyShaderModule(device, shader, nullptr);
    if (layout_) vkDestroyPipelineLayout(device, layout_, nullptr);
    if (set_layout_) vkDestroyDescriptorSetLayout(device, set_layout_, nullptr);
    throw;
  }
}

namespace {

std::string statistic_value(const VkPipelineExecutableStatisticKHR& s) {
  switch (s.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: return s.value.b32 ? "yes" : "no";
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: return std::to_string(s.value.i64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: return std::to_string(s.value.u64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: return std::to_string(s.value.f64);
    default: return "?";
  }
}

}  // namespace

std::string Pipeline::statistics() const {
  if (!context_->caps().pipeline_statistics) return {};
  const VkDevice device = context_->device();
  auto info = make_struct<VkPipelineInfoKHR>(VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR);
  info.pipeline = pipeline_;
  std::uint32_t executables = 0;
  if (vkGetPipelineExecutablePropertiesKHR(device, &info, &executables, nullptr) != VK_SUCCESS)
    return {};
  std::string out;
  for (std::uint32_t e = 0; e < executables; ++e) {
    auto exec = make_struct<VkPipelineExecutableInfoKHR>(VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR);
    exec.pipeline = pipeline_;
    exec.executableIndex = e;
    std::uint32_t count = 0;
    if (vkGetPipelineExecutableStatisticsKHR(device, &exec, &count, nullptr) != VK_SUCCESS) continue;
    std::vector<VkPipelineExecutableStatisticKHR> stats(
        count, make_struct<VkPipelineExecutableStatisticKHR>(
                   VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR));
    if (vkGetPipelineExecutableStatisticsKHR(device, &exec, &count, stats.data()) != VK_SUCCESS)
      continue;
    for (const auto& s : stats)
      out += (out.empty() ? "" : ", ") + std::string(s.name) + " " + statistic_value(s);
  }
  return out;
}

Pipeline::~Pipeline() {
  const VkDevice device = context_->device();
  vkDestroyPipeline(device, pipeline_, nullptr);
  vkDestroyPipelineLayout(device, layout_, nullptr);
  vkDestroyDescriptorSetLayout(device, set_layout_, nullptr);
}

DescriptorPool::DescriptorPool(std::shared_ptr<const Context> context, std::uint32_t sets,
                               std::uint32_t buffers_per_set)
    : context_(std::move(context)) {
  const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, sets * buffers_per_set};
  auto info = make_struct<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
  info.maxSets = sets;
  info.poolSizeCount = 1;
  info.pPoolSizes = &size;
  check(vkCreateDescriptorPool(context_->device(), &info, nullptr, &pool_),
        "vkCreateDescriptorPool");
}

DescriptorPool::~DescriptorPool() { vkDestroyDescriptorPool(context_->device(), pool_, nullptr); }

VkDescriptorSet DescriptorPool::allocate(const Pipeline& pipeline,
                                         std::span<const BufferRange> ranges) {
  if (int(ranges.size()) != pipeline.bindings())
    throw Error(ErrorKind::internal, pipeline.name() + ": " + std::to_string(ranges.size()) +
                                         " buffers for " + std::to_string(pipeline.bindings()) +
                                         " bindings");
  const VkDescriptorSet set = allocate(pipeline);
  bind_buffers(*context_, set, ranges);
  return set;
}

VkDescriptorSet DescriptorPool::allocate(const Pipeline& pipeline) {
  auto info = make_struct<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
  info.descriptorPool = pool_;
  info.descriptorSetCount = 1;
  const VkDescriptorSetLayout layout = pipeline.set_layout();
  info.pSetLayouts = &layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  check(vkAllocateDescriptorSets(context_->device(), &info, &set), "vkAllocateDescriptorSets");
  return set;
}

void bind_buffers(const Context& context, VkDescriptorSet set, std::span<const BufferRange> ranges) {
  const DeviceCaps& caps = context.caps();
  std::vector<VkDescriptorBufferInfo> infos(ranges.size());
  std::vector<VkWriteDescriptorSet> writes(ranges.size());
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const BufferRange& r = ranges[i];
    if (r.size > caps.max_storage_range)
      throw Error(ErrorKind::unsupported,
                  "a buffer of " + std::to_string(r.size >> 20) + " MiB exceeds this device's " +
                      "storage-buffer range (" + std::to_string(caps.max_storage_range >> 20) +
                      " MiB); use a smaller frame size");
    if (r.offset % caps.storage_alignment)
      throw Error(ErrorKind::internal, "misaligned storage-buffer offset");
    infos[i] = {r.buffer, r.offset, r.size};
    writes[i] = make_struct<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
    writes[i].dstSet = set;
    writes[i].dstBinding = std::uint32_t(i);
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  vkUpdateDescriptorSets(context.device(), std::uint32_t(writes.size()), writes.data(), 0, nullptr);
}

}  // namespace framecast::vulkan
