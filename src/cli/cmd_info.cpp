// framecast info: backends, devices and the default model, as text or (--json) for programs
// such as tools/farm, whose workers declare their GPUs from it.
#include <omp.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "backends/cpu/conv_net.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "framecast/error.hpp"
#ifdef FRAMECAST_HAVE_VULKAN
#include "backends/vulkan/context.hpp"
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
    case cpu::CpuBf16::instructions: return "AVX512-BF16 without AMX (auto precision is bf16)";
    case cpu::CpuBf16::none: break;
  }
  return "no bfloat16 instructions (auto precision is f32)";
}

std::string device_list(const std::vector<int>& devices) {
  if (devices.empty()) return "none";
  if (devices == std::vector<int>{-1}) return "the CPU";
  std::string text = devices.size() > 1 ? "Vulkan devices" : "Vulkan device";
  for (std::size_t i = 0; i < devices.size(); ++i) text += (i ? ", " : " ") + std::to_string(devices[i]);
  return text;
}

void run_info() {
  std::cout << "Framecast " FRAMECAST_VERSION "\n\nBackends:";
  for (const auto& name : backend_names()) std::cout << " " << name;
  std::cout << "\n\nCPU: " << omp_get_max_threads() << " threads (oneDNN for the fast path); "
            << bf16_text(cpu::cpu_bf16()) << "\n";
#ifdef FRAMECAST_HAVE_VULKAN
  std::cout << "\nVulkan devices:\n" << vulkan::device_report();
#else
  std::cout << "\nVulkan: not built into this binary\n";
#endif
  std::cout << "\n--device all runs on: " << device_list(all_devices("auto"))
            << "; with --backend vulkan: " << device_list(all_devices("vulkan")) << "\n";
  std::cout << "\nModels:\n";
  for (const char* name : {"fast", "quality", "slim"}) print_model(name);
}

const char* bf16_name(cpu::CpuBf16 bf16) {
  switch (bf16) {
    case cpu::CpuBf16::amx: return "amx";
    case cpu::CpuBf16::instructions: return "instructions";
    case cpu::CpuBf16::none: break;
  }
  return "none";
}

// {"devices": [...]}, with "error" when Vulkan cannot list any. "hardware" is what `auto` and
// the model tier go by: any device that is not a software rasterizer.
nlohmann::json vulkan_json() {
#ifdef FRAMECAST_HAVE_VULKAN
  nlohmann::json devices = nlohmann::json::array();
  try {
    const vulkan::Instance instance;
    for (const auto& d : instance.devices())
      devices.push_back({{"index", d.index},
                         {"name", d.name},
                         {"type", d.type_name()},
                         {"hardware", !d.software()},
                         {"usable", d.unusable.empty()},
                         {"unusable", d.unusable},
                         {"memory_mib", d.device_local_bytes / (1024 * 1024)},
                         {"f16", d.f16},
                         {"cooperative_matrix", d.coop()}});
  } catch (const std::exception& e) {
    return {{"devices", devices}, {"error", e.what()}};
  }
  return {{"devices", devices}};
#else
  return {{"devices", nlohmann::json::array()}, {"error", "Vulkan is not built into this binary"}};
#endif
}

nlohmann::json model_json(const std::string& name) {
  try {
    const Model model = load_model(name);
    return {{"file", model.source()},
            {"variant", variant_name(model.shape().variant)},
            {"flow_blocks", 1 + model.shape().blocks.size()},
            {"parameters", model.parameter_count()}};
  } catch (const Error& e) {
    return {{"error", e.what()}};
  }
}

void run_info_json() {
  nlohmann::json models;
  for (const char* name : {"fast", "quality", "slim"}) models[name] = model_json(name);
  std::cout << nlohmann::json{{"version", FRAMECAST_VERSION},
                              {"backends", backend_names()},
                              {"cpu", {{"threads", omp_get_max_threads()},
                                       {"bf16", bf16_name(cpu::cpu_bf16())}}},
                              {"vulkan", vulkan_json()},
                              // -1: one engine on the backend's own pick (the CPU for auto)
                              {"device_all", {{"auto", all_devices("auto")},
                                              {"vulkan", all_devices("vulkan")}}},
                              {"models", models}}
                   .dump(2)
            << "\n";
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "list backends, devices and the shipped models");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "one JSON object: backends, CPU, Vulkan devices, models");
  cmd->callback([json] { *json ? run_info_json() : run_info(); });
}

}  // namespace framecast::cli
