#include "backends/vulkan/vulkan_backend.hpp"

#include "backends/vulkan/context.hpp"
#include "backends/vulkan/ensemble.hpp"
#include "backends/vulkan/runtime.hpp"
#include "framecast/error.hpp"

namespace framecast::vulkan {
namespace {

class VulkanBackend final : public Backend {
 public:
  explicit VulkanBackend(std::shared_ptr<const Context> context) : context_(std::move(context)) {}
  std::string name() const override { return "vulkan"; }
  bool hardware_gpu() const override { return !context_->caps().software(); }
  bool runs_ensembles() const override { return true; }
  std::unique_ptr<Runtime> create_runtime(const Model& model, int width, int height,
                                          const RuntimeOptions& options) override {
    auto runtime = std::make_unique<GraphRuntime>(context_, model, width, height, options);
    if (options.ensemble == 1) return runtime;
    return make_gpu_ensemble(context_, std::move(runtime), options.ensemble, options.profile);
  }

 private:
  std::shared_ptr<const Context> context_;  // one device, shared by the runtimes of all sizes
};

}  // namespace

std::unique_ptr<Backend> make_vulkan_backend(int device, bool hardware_only,
                                             std::function<bool()> cancelled) {
  auto context = Context::create(device, std::move(cancelled));
  if (hardware_only && context->caps().type == VK_PHYSICAL_DEVICE_TYPE_CPU)
    throw Error(ErrorKind::device, "the only Vulkan device is " + context->caps().name +
                                       ", a software rasterizer slower than the CPU backend");
  return std::make_unique<VulkanBackend>(std::move(context));
}

std::unique_ptr<VulkanRuntime> make_vulkan_runtime(const Model& model, int width, int height,
                                                   const RuntimeOptions& options, int device) {
  return std::make_unique<GraphRuntime>(Context::create(device), model, width, height, options);
}

}  // namespace framecast::vulkan
