#include "backends/cpu/cpu_backend.hpp"
#include "framecast/backend.hpp"
#include "framecast/error.hpp"
#ifdef FRAMECAST_HAVE_VULKAN
#include "backends/vulkan/context.hpp"
#include "backends/vulkan/vulkan_backend.hpp"
#endif

namespace framecast {

std::vector<std::string> backend_names() {
  std::vector<std::string> names = {"auto", "cpu", "cpu-reference"};
#ifdef FRAMECAST_HAVE_VULKAN
  names.push_back("vulkan");
#endif
  return names;
}

namespace {

Error unknown_backend(const std::string& name) {
  return Error(ErrorKind::invalid_argument,
               "unknown backend '" + name + "' (auto, cpu, cpu-reference, vulkan)");
}

// Usable Vulkan devices' indices, hardware ones only when `hardware_only`; none without Vulkan.
std::vector<int> vulkan_devices(bool hardware_only) {
  std::vector<int> indices;
#ifdef FRAMECAST_HAVE_VULKAN
  try {
    const vulkan::Instance instance;
    for (const auto& d : instance.devices())
      if (d.unusable.empty() && !(hardware_only && d.software())) indices.push_back(d.index);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::device) throw;
  }
#else
  (void)hardware_only;
#endif
  return indices;
}

}  // namespace

std::vector<int> all_devices(const std::string& backend) {
  if (backend == "vulkan") return vulkan_devices(false);
  if (backend == "auto") {
    auto hardware = vulkan_devices(true);
    return hardware.empty() ? std::vector<int>{-1} : hardware;
  }
  if (backend == "cpu" || backend == "cpu-reference") return {-1};
  throw unknown_backend(backend);
}

BackendChoice make_backend(const BackendRequest& request) {
  BackendChoice choice;
  if (request.name == "cpu") {
    choice.backend = cpu::make_cpu_backend(cpu::CpuPath::fast, request.cancelled);
  } else if (request.name == "cpu-reference") {
    choice.backend = cpu::make_cpu_backend(cpu::CpuPath::reference, request.cancelled);
  } else if (request.name == "vulkan") {
#ifdef FRAMECAST_HAVE_VULKAN
    choice.backend = vulkan::make_vulkan_backend(request.device, false, request.cancelled);
#else
    throw Error(ErrorKind::device, "this build of Framecast has no Vulkan backend");
#endif
  } else if (request.name == "auto") {
#ifdef FRAMECAST_HAVE_VULKAN
    try {
      // A software Vulkan device is picked only when asked for by index.
      choice.backend = vulkan::make_vulkan_backend(request.device, request.device < 0, request.cancelled);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::device) throw;
      choice.warning = std::string("no usable Vulkan GPU (") + e.what() +
                       "); running on the CPU backend, much slower than a GPU";
    }
#else
    choice.warning = "this build has no GPU backend; running on the CPU, which is much slower";
#endif
    if (!choice.backend) choice.backend = cpu::make_cpu_backend(cpu::CpuPath::fast, request.cancelled);
  } else {
    throw unknown_backend(request.name);
  }
  return choice;
}

}  // namespace framecast
