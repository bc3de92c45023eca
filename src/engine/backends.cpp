#include "backends/cpu/cpu_backend.hpp"
#include "framecast/backend.hpp"
#include "framecast/error.hpp"
#ifdef FRAMECAST_HAVE_VULKAN
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
    throw Error(ErrorKind::invalid_argument,
                "unknown backend '" + request.name + "' (auto, cpu, cpu-reference, vulkan)");
  }
  return choice;
}

}  // namespace framecast
