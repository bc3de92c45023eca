#include "backends/cpu/cpu_backend.hpp"

#include "backends/cpu/graph.hpp"

namespace framecast::cpu {
namespace {

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(CpuPath path) : path_(path) {}
  std::string name() const override { return path_ == CpuPath::fast ? "cpu" : "cpu-reference"; }
  std::unique_ptr<Runtime> create_runtime(const Model& model, int width, int height,
                                          const RuntimeOptions& options) override {
    return std::make_unique<CpuRuntime>(model, width, height, options, path_);
  }

 private:
  CpuPath path_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(CpuPath path) {
  return std::make_unique<CpuBackend>(path);
}

}  // namespace framecast::cpu
