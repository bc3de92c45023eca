#include "backends/vulkan/conv_layer.hpp"

namespace framecast::vulkan {

ConvLayer add_conv_layer(const Model& model, WeightArena& weights, const DeviceCaps& caps,
                         Storage storage, const std::string& prefix, const std::string& prelu,
                         const ConvShape& shape, const ConvChoice& wanted) {
  ConvLayer layer;
  layer.shape = shape;
  layer.choice = fit_conv(caps, shape, wanted, storage);
  const auto packed =
      pack_conv_weights(model.tensor(prefix + ".weight").values, shape, layer.choice);
  layer.weight = weights.add(packed, storage);
  layer.bias = weights.add(model.tensor(prefix + ".bias").values, Storage::f32);
  layer.alpha = weights.add(model.tensor(prelu).values, Storage::f32);
  return layer;
}

ConvCall conv_call(DescriptorPool& sets, const WeightArena& weights, const ConvLayer& layer,
                   const Pipeline& pipeline, const Buffer& src, const Buffer& dst,
                   const Buffer* residual, std::string stage) {
  const BufferRange ranges[] = {src.range(),
                                weights.range(layer.weight),
                                weights.range(layer.bias),
                                weights.range(layer.alpha),
                                dst.range(),
                                residual ? residual->range() : dst.range()};
  return {&pipeline, sets.allocate(pipeline, ranges), conv_elements(layer.shape), std::move(stage)};
}

void record(CommandBuffer& cmd, const ConvCall& call) {
  cmd.dispatch(*call.pipeline, call.set, call.elements);
  cmd.mark(call.stage);
}

}  // namespace framecast::vulkan
