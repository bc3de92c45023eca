// The test-time ensemble (RuntimeOptions::ensemble 2 or 4) on the GPU. The pair is uploaded
// once and turned on the device; each pass runs the inner runtime's GPU-resident entry points
// into frames that stay on the device, and one kernel per mid averages them, so only the
// averages come back. The frames are those of the Engine's host ensemble (engine/ensemble)
// around the same runtime, sample for sample.
#pragma once

#include <memory>

#include "backends/vulkan/context.hpp"
#include "backends/vulkan/vulkan_backend.hpp"

namespace framecast::vulkan {

std::unique_ptr<Runtime> make_gpu_ensemble(std::shared_ptr<const Context> context,
                                           std::unique_ptr<VulkanRuntime> inner, int passes,
                                           bool profile);

}  // namespace framecast::vulkan
