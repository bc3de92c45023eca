#include "backends/cpu/cpu_backend.hpp"

#include "backends/cpu/graph.hpp"
#include "engine/cancelled.hpp"

namespace framecast::cpu {
namespace {

class CpuBackend final : public Backend {
 public:
  CpuBackend(CpuPath path, Cancelled cancelled) : path_(path), cancelled_(std::move(cancelled)) {}
  std::string name() const override { return path_ == CpuPath::fast ? "cpu" : "cpu-reference"; }
  std::unique_ptr<Runtime> create_runtime(const Model& model, int width, int height,
                                          const RuntimeOptions& options) override {
    return std::make_unique<CpuRuntime>(model, width, height, options, path_, cancelled_);
  }

 private:
  CpuPath path_;
  Cancelled cancelled_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(CpuPath path, std::function<bool()> cancelled) {
  return std::make_unique<CpuBackend>(path, std::move(cancelled));
}

}  // namespace framecast::cpu
