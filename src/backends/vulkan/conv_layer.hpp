// A conv layer of the graph on the GPU: its weights packed for its kernel choice in the
// runtime's weight arena, and its call sites (pipeline, buffers, profile label). The flow
// blocks and the refine head build their convs through here.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "backends/vulkan/commands.hpp"
#include "backends/vulkan/kernels.hpp"
#include "backends/vulkan/weights.hpp"
#include "framecast/model.hpp"

namespace framecast::vulkan {

struct ConvLayer {
  ConvShape shape;
  ConvChoice choice;                            // `wanted` fitted to the shape and device
  std::size_t weight = 0, bias = 0, alpha = 0;  // WeightArena indices
};

// Adds the tensors `prefix`.weight (packed for the choice), `prefix`.bias and the PReLU
// slopes `prelu` to `weights`, before its upload.
ConvLayer add_conv_layer(const Model& model, WeightArena& weights, const DeviceCaps& caps,
                         Storage storage, const std::string& prefix, const std::string& prelu,
                         const ConvShape& shape, const ConvChoice& wanted);
// The same from values: `weight` [CO, CI, 3, 3], `bias` [CO] and the PReLU slopes `alpha`
// (which a shape without PReLU binds but does not read).
ConvLayer add_conv_layer(WeightArena& weights, const DeviceCaps& caps, Storage storage,
                         std::span<const float> weight, std::span<const float> bias,
                         std::span<const float> alpha, const ConvShape& shape,
                         const ConvChoice& wanted);

// One call site of a conv: its pipeline, its buffers (a descriptor set) and a stage name.
struct ConvCall {
  const Pipeline* pipeline = nullptr;
  VkDescriptorSet set = VK_NULL_HANDLE;
  Extent3 elements;
  std::string stage;
};

// After the arena's upload: `layer` through `pipeline`, from src to dst, adding `residual`
// when the pipeline's shape has one.
ConvCall conv_call(DescriptorPool& sets, const WeightArena& weights, const ConvLayer& layer,
                   const Pipeline& pipeline, const Buffer& src, const Buffer& dst,
                   const Buffer* residual, std::string stage);

// Records the call and marks its stage.
void record(CommandBuffer& cmd, const ConvCall& call);

}  // namespace framecast::vulkan
