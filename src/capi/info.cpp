// The C API's questions about the library itself: version, status names, backends, devices.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "capi/guard.hpp"
#include "framecast/backend.hpp"
#ifdef FRAMECAST_HAVE_VULKAN
#include "backends/vulkan/context.hpp"
#endif

// The header's version is the project's (CMakeLists.txt passes it): one release, one number.
static_assert(FRAMECAST_VERSION_MAJOR == FRAMECAST_PROJECT_VERSION_MAJOR &&
                  FRAMECAST_VERSION_MINOR == FRAMECAST_PROJECT_VERSION_MINOR &&
                  FRAMECAST_VERSION_PATCH == FRAMECAST_PROJECT_VERSION_PATCH,
              "framecast.h's version differs from the project's");

namespace framecast::capi {
namespace {

void check_index(int index, std::size_t count, const char* what) {
  if (index < 0 || static_cast<std::size_t>(index) >= count)
    throw Error(ErrorKind::invalid_argument, "no " + std::string(what) + " " + std::to_string(index) +
                                                 " (there are " + std::to_string(count) + ")");
}

// Every Vulkan device; none (not an error) without a loader, a device or a Vulkan backend in
// this build, as `framecast info` says.
std::vector<framecast_device_info> devices() {
  std::vector<framecast_device_info> out;
#ifdef FRAMECAST_HAVE_VULKAN
  const auto copy_text = [](char (&to)[256], const std::string& text) {
    std::snprintf(to, sizeof to, "%s", text.c_str());
  };
  std::vector<vulkan::DeviceCaps> caps;
  try {
    caps = vulkan::Instance().devices();
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::device) throw;
  }
  for (const auto& d : caps) {
    framecast_device_info info{};
    info.struct_size = sizeof info;
    info.index = d.index;
    copy_text(info.name, d.name);
    info.hardware = !d.software();
    info.usable = d.unusable.empty();
    copy_text(info.reason, d.unusable);
    info.f16 = d.f16;
    info.vendor_id = d.vendor_id;
    info.device_id = d.device_id;
    info.memory_bytes = d.device_local_bytes;
    out.push_back(info);
  }
#endif
  return out;
}

}  // namespace
}  // namespace framecast::capi

using framecast::Error;
using framecast::ErrorKind;
using framecast::capi::guarded;
using framecast::capi::require;

extern "C" {

void framecast_version(int* major, int* minor, int* patch) {
  if (major) *major = FRAMECAST_VERSION_MAJOR;
  if (minor) *minor = FRAMECAST_VERSION_MINOR;
  if (patch) *patch = FRAMECAST_VERSION_PATCH;
}

const char* framecast_version_string(void) { return FRAMECAST_PROJECT_VERSION; }

const char* framecast_status_name(framecast_status status) {
  switch (framecast::capi::enum_number(status)) {
    case FRAMECAST_OK: return "FRAMECAST_OK";
    case FRAMECAST_ERROR_INVALID_ARGUMENT: return "FRAMECAST_ERROR_INVALID_ARGUMENT";
    case FRAMECAST_ERROR_IO: return "FRAMECAST_ERROR_IO";
    case FRAMECAST_ERROR_MODEL: return "FRAMECAST_ERROR_MODEL";
    case FRAMECAST_ERROR_UNSUPPORTED: return "FRAMECAST_ERROR_UNSUPPORTED";
    case FRAMECAST_ERROR_DEVICE: return "FRAMECAST_ERROR_DEVICE";
    case FRAMECAST_ERROR_OUT_OF_MEMORY: return "FRAMECAST_ERROR_OUT_OF_MEMORY";
    case FRAMECAST_ERROR_INTERNAL: return "FRAMECAST_ERROR_INTERNAL";
  }
  return "unknown status";
}

framecast_status framecast_backend_count(int* count) {
  return guarded(__func__, [&] {
    require(count, "count");
    *count = static_cast<int>(framecast::backend_names().size());
  });
}

framecast_status framecast_backend_name(int index, const char** name) {
  return guarded(__func__, [&] {
    // Fixed for a build: kept once, so that the strings can be handed out.
    static const std::vector<std::string> names = framecast::backend_names();
    require(name, "name");
    framecast::capi::check_index(index, names.size(), "backend");
    *name = names[index].c_str();
  });
}

framecast_status framecast_device_count(int* count) {
  return guarded(__func__, [&] {
    require(count, "count");
    *count = static_cast<int>(framecast::capi::devices().size());
  });
}

framecast_status framecast_device_get(int index, framecast_device_info* info) {
  return guarded(__func__, [&] {
    require(info, "info");
    if (info->struct_size < sizeof(framecast_device_info))
      throw Error(ErrorKind::invalid_argument,
                  "info->struct_size is " + std::to_string(info->struct_size) +
                      ", less than sizeof(framecast_device_info)");
    const auto all = framecast::capi::devices();
    framecast::capi::check_index(index, all.size(), "device");
    // This version's fields; fields of a newer caller's larger struct stay as it set them.
    std::memcpy(info, &all[index], sizeof all[index]);
  });
}

}  // extern "C"
