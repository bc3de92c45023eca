// The tuning cache: the fastest trunk conv per device and problem, persisted by `framecast
// tune` in $XDG_CACHE_HOME/framecast/tune.json (~/.cache/... without XDG_CACHE_HOME). The
// file carries a magic and a version, and each entry the device, driver and kernel version it
// was measured with; anything that does not match is ignored, never trusted, and a corrupt
// file is an empty cache plus one warning.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "backends/vulkan/context.hpp"
#include "backends/vulkan/kernels.hpp"

namespace framecast::vulkan {

struct TuneKey {
  std::uint32_t vendor_id = 0, device_id = 0, driver_version = 0;
  int kernel_version = kConvKernelVersion;
  int width = 0;                   // trunk width (C2)
  int plane_w = 0, plane_h = 0;    // trunk plane: the padded frame size / 16
  Storage storage = Storage::f32;

  static TuneKey make(const DeviceCaps& caps, int width, int plane_w, int plane_h, Storage storage);
  std::string text() const;          // the entry's name in the file
  std::string problem_text() const;  // without driver and kernel version: finds stale entries
};

struct TuneEntry {
  ConvChoice choice;
  double ms = 0.0;     // device time of one trunk conv with this choice
  std::string device;  // the device's name, for people reading the file
};

class TuneCache {
 public:
  static std::filesystem::path default_path();
  // A missing file is an empty cache; an unreadable or corrupt one too, with warning() set.
  static TuneCache load(const std::filesystem::path& path);
  // The same from the file's text; `path` names it in the warning.
  static TuneCache parse(std::string_view text, const std::filesystem::path& path);

  // The entry for `key`. When there is none but the file has one for the same device and
  // problem measured with another driver or kernel version, `stale` (if given) says so.
  std::optional<TuneEntry> find(const TuneKey& key, std::string* stale = nullptr) const;
  void put(const TuneKey& key, const TuneEntry& entry);
  // Writes atomically (temporary file + rename). Throws Error(io).
  void save(const std::filesystem::path& path) const;
  const std::string& warning() const noexcept { return warning_; }
  std::size_t size() const noexcept { return entries_.size(); }

 private:
  std::map<std::string, TuneEntry> entries_;
  std::string warning_;
};

}  // namespace framecast::vulkan
