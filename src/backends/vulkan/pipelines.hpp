// Compute pipelines: one SPIR-V module specialized with sizes and tuning knobs (specialization
// constants, numbered in order of the values given), storage-buffer bindings 0..N-1 and an
// optional push-constant block; and the descriptor sets that bind buffers to them.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backends/vulkan/buffers.hpp"
#include "backends/vulkan/context.hpp"

namespace framecast::vulkan {

// Values of specialization constants 0, 1, 2, ... (int, float or bool, 4 bytes each).
class SpecConstants {
 public:
  SpecConstants& add(int value);
  SpecConstants& add(float value);
  SpecConstants& add(bool value);
  std::span<const std::uint32_t> words() const { return words_; }

 private:
  std::vector<std::uint32_t> words_;
};

struct Extent3 {
  std::uint32_t x = 1, y = 1, z = 1;
};

class Pipeline {
 public:
  // `module` names an embedded SPIR-V module. `per_group` is how many elements of the
  // dispatch's index space one workgroup covers (e.g. 16x16 pixels x COC channels), from
  // which dispatches derive their group counts. Throws Error(device) if the driver fails,
  // Error(cancelled) without building when the context's `cancelled` says so.
  Pipeline(std::shared_ptr<const Context> context, std::string module, int bindings,
           std::uint32_t push_bytes, const SpecConstants& constants, Extent3 per_group);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  VkPipeline handle() const noexcept { return pipeline_; }
  VkPipelineLayout layout() const noexcept { return layout_; }
  VkDescriptorSetLayout set_layout() const noexcept { return set_layout_; }
  int bindings() const noexcept { return bindings_; }
  std::uint32_t push_bytes() const noexcept { return push_bytes_; }
  Extent3 per_group() const noexcept { return per_group_; }
  const std::string& name() const noexcept { return name_; }
  const Context& context() const noexcept { return *context_; }
  // What the driver reports about the compiled kernel, "name value" joined by ", " (e.g.
  // registers and spills); empty where the device has no pipeline statistics.
  std::string statistics() const;

 private:
  std::shared_ptr<const Context> context_;
  std::string name_;
  int bindings_;
  std::uint32_t push_bytes_;
  Extent3 per_group_;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
};

// A descriptor pool of fixed capacity from which a runtime takes one set per dispatch site.
class DescriptorPool {
 public:
  DescriptorPool(std::shared_ptr<const Context> context, std::uint32_t sets,
                 std::uint32_t buffers_per_set = 8);
  ~DescriptorPool();
  DescriptorPool(const DescriptorPool&) = delete;
  DescriptorPool& operator=(const DescriptorPool&) = delete;

  // A set for `pipeline` with `ranges` bound to bindings 0..N-1.
  VkDescriptorSet allocate(const Pipeline& pipeline, std::span<const BufferRange> ranges);
  // A set bound to nothing yet: bind_buffers before its first use.
  VkDescriptorSet allocate(const Pipeline& pipeline);

 private:
  std::shared_ptr<const Context> context_;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
};

// Points the bindings of `set` at `ranges` (the set must not be in use by pending work).
// Throws Error(unsupported) when a range exceeds the device's storage-buffer limits.
void bind_buffers(const Context& context, VkDescriptorSet set, std::span<const BufferRange> ranges);

}  // namespace framecast::vulkan
