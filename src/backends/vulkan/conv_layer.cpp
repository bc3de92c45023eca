#include "backends/vulkan/conv_layer.hpp"

namespace framecast::vulkan {

ConvLayer add_conv_layer(const Model& model, WeightArena& weights, const DeviceCaps& caps,
                         Storage storage, const std::string& prefix, const std::string& prelu,
                         const ConvShape& shape, const ConvChoice& wanted) {
  return add_conv_layer(weights, caps, storage, model.tensor(prefix + ".weight").values,
                        model.tensor(prefix + ".bias").values, model.tensor(prelu).values, shape,
                        wanted);
}

ConvLayer add_conv_layer(WeightArena& weights, const DeviceCaps& caps, Storage storage,
                         std::span<const float> weight, std::span<const float> bias,
                         std::span<const float> alpha, const ConvShape& shape,
                         const ConvChoice& wanted) {
  ConvLayer layer;
  layer.shape = shape;
  layer.choice = fit_conv(caps, shape, wanted, storage);
  layer.weight = weights.add(pack_conv_weights(weight, shape, layer.choice), storage);
  layer.bias = weights.add(bias, Storage::f32);
  layer.alpha = weights.add(alpha, Storage::f32);
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
