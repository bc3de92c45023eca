// `framecast info`'s Vulkan section: every physical device and what Framecast would use.
#include <sstream>

#include "backends/vulkan/context.hpp"
#include "backends/vulkan/vulkan_backend.hpp"
#include "framecast/error.hpp"

namespace framecast::vulkan {

std::string device_report() {
  std::ostringstream out;
  try {
    const Instance instance;
    const auto devices = instance.devices();
    if (devices.empty()) return "  none: the Vulkan loader found no device\n";
    for (const auto& d : devices) {
      char ids[64];
      std::snprintf(ids, sizeof ids, "vendor 0x%04x, device 0x%04x", d.vendor_id, d.device_id);
      out << "  [" << d.index << "] " << d.name << " (" << d.type_name() << ")\n"
          << "      " << ids << ", Vulkan " << VK_API_VERSION_MAJOR(d.api_version) << "."
          << VK_API_VERSION_MINOR(d.api_version) << "." << VK_API_VERSION_PATCH(d.api_version)
          << ", driver " << d.driver << "\n";
      if (!d.unusable.empty()) {
        out << "      unusable: " << d.unusable << "\n";
        continue;
      }
      out << "      f16 arithmetic + 16-bit storage: " << (d.f16 ? "yes" : "no")
          << "; subgroup size " << d.subgroup_size
          << (d.subgroup_broadcast ? " (broadcast in compute)" : " (no compute broadcast)")
          << "\n      shared memory " << d.max_shared_memory / 1024 << " KiB; device memory "
          << d.device_local_bytes / (1024 * 1024) << " MiB; timestamps "
          << (d.timestamps ? "yes" : "no") << "\n      cooperative matrix: ";
      if (!d.cooperative_matrix_khr && !d.cooperative_matrix_nv) out << "no";
      if (d.cooperative_matrix_khr) out << "KHR ";
      if (d.cooperative_matrix_nv) out << "NV ";
      if (d.cooperative_matrix2_nv) out << "NV2 ";
      if (d.coop())
        out << "(the coop conv runs on it: 16x" << (d.coop_n16 ? "16" : "8") << "x16 f16 -> f32)";
      out << "\n      uploads and readbacks: ";
      if (d.copy_family != d.queue_family)
        out << "transfer queue (family " << d.copy_family << "), beside the kernels";
      else if (d.copy_queue_index > 0)
        out << "a second compute queue, beside the kernels";
      else
        out << "the compute queue, in turn with the kernels";
      out << "\n";
    }
  } catch (const Error& e) {
    return std::string("  none: ") + e.what() + "\n";
  } catch (const std::exception& e) {
    return std::string("  none: ") + e.what() + "\n";
  }
  return out.str();
}

}  // namespace framecast::vulkan
