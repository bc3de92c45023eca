// framecast info: backends, devices and the default model.
#include <omp.h>

#include <iostream>

#include "backends/cpu/conv_net.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "framecast/error.hpp"
#ifdef FRAMECAST_HAVE_VULKAN
#include "backends/vulkan/vulkan_backend.hpp"
#endif

namespace framecast::cli {
namespace {

void print_model(const std::string& name) {
  try {
    const Model model = load_model(name);
    const auto& s = model.shape();
    std::cout << "  " << name << ": " << model.source() << "\n    " << variant_name(s.variant)
              << ", C1=" << s.c1 << ", C2=" << s.c2;
    if (s.film_hidden) std::cout << ", FiLM hidden " << s.film_hidden;
    if (s.refine_width) std::cout << ", refine width " << s.refine_width;
    if (!s.blocks.empty()) std::cout << ", " << s.blocks.size() << " refinement blocks";
    std::cout << ", " << model.parameter_count() << " parameters\n";
  } catch (const Error& e) {
    std::cout << "  " << name << ": not available (" << e.what() << ")\n";
  }
}

const char* bf16_text(cpu::CpuBf16 bf16) {
  switch (bf16) {
    case cpu::CpuBf16::amx: return "AMX (auto precision is bf16)";
    case cpu::CpuBf16::instructions:
      return "AVX512-BF16 without AMX (auto precision is f32, faster here; --precision bf16 runs)";
    case cpu::CpuBf16::none: break;
  }
  return "no bfloat16 instructions (auto precision is f32)";
}

void run_info() {
  std::cout << "Framecast 0.1.0\n\nBackends:";
  for (const auto& name : backend_names()) std::cout << " " << name;
  std::cout << "\n\nCPU: " << omp_get_max_threads() << " threads (oneDNN for the fast path); "
            << bf16_text(cpu::cpu_bf16()) << "\n";
#ifdef FRAMECAST_HAVE_VULKAN
  std::cout << "\nVulkan devices:\n" << vulkan::device_report();
#else
  std::cout << "\nVulkan: not built into this binary\n";
#endif
  std::cout << "\nModels:\n";
  for (const char* name : {"fast", "quality", "slim"}) print_model(name);
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "list backends, devices and the shipped models");
  cmd->callback(run_info);
}

}  // namespace framecast::cli
