#include "backends/vulkan/tune_cache.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "framecast/error.hpp"
#include "io/atomic_file.hpp"

namespace framecast::vulkan {
namespace {

constexpr const char* kMagic = "framecast-tune";
constexpr int kFormatVersion = 1;

std::optional<ConvKind> kind_from(const std::string& name) {
  for (ConvKind k : kAllConvKinds)
    if (name == conv_kind_name(k)) return k;
  return std::nullopt;
}

std::string hex(std::uint32_t v) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%04x", v);
  return buffer;
}

}  // namespace

TuneKey TuneKey::make(const DeviceCaps& caps, int width, int plane_w, int plane_h,
                      Storage storage) {
  TuneKey k;
  k.vendor_id = caps.vendor_id;
  k.device_id = caps.device_id;
  k.driver_version = caps.driver_version;
  k.width = width;
  k.plane_w = plane_w;
  k.plane_h = plane_h;
  k.storage = storage;
  return k;
}

std::string TuneKey::problem_text() const {
  return hex(vendor_id) + ":" + hex(device_id) + " c" + std::to_string(width) + " " +
         std::to_string(plane_w) + "x" + std::to_string(plane_h) + " " + storage_name(storage);
}

std::string TuneKey::text() const {
  return problem_text() + " driver " + std::to_string(driver_version) + " kernels " +
         std::to_string(kernel_version);
}

std::filesystem::path TuneCache::default_path() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  std::filesystem::path base;
  if (xdg && *xdg && std::filesystem::path(xdg).is_absolute()) {
    base = xdg;
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    base = std::filesystem::path(home) / ".cache";
  } else {
    base = std::filesystem::temp_directory_path();
  }
  return base / "framecast" / "tune.json";
}

TuneCache TuneCache::load(const std::filesystem::path& path) {
  TuneCache cache;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return cache;
  const std::string ignored = "ignoring the tuning cache " + path.string() + ": ";
  try {
    std::ifstream in(path);
    if (!in) {
      cache.warning_ = ignored + "cannot be read";
      return cache;
    }
    const auto doc = nlohmann::json::parse(in);
    if (!doc.is_object() || doc.value("magic", "") != kMagic) {
      cache.warning_ = ignored + "not a Framecast tuning file";
      return cache;
    }
    if (doc.value("version", 0) != kFormatVersion) {
      cache.warning_ = ignored + "written by another version of Framecast";
      return cache;
    }
    for (const auto& [name, e] : doc.at("entries").items()) {
      TuneEntry entry;
      const auto kind = kind_from(e.at("kind").get<std::string>());
      if (!kind) throw std::runtime_error("unknown kernel kind in entry '" + name + "'");
      entry.choice.kind = *kind;
      entry.choice.coc = e.at("coc").get<int>();
      entry.choice.slab = e.at("slab").get<int>();
      entry.choice.tile_stride = e.at("tile_stride").get<int>();
      entry.ms = e.value("ms", 0.0);
      entry.device = e.value("device", "");
      // Only sanity bounds: what a kind accepts is conv_unfit's business, checked against
      // the device and shape when a runtime uses the entry (coop kinds read the knobs
      // differently, e.g. tile_stride is their matrix N, 8 or 16).
      if (entry.choice.coc < 1 || entry.choice.coc > 256 || entry.choice.slab < 1 ||
          entry.choice.slab > 256 || entry.choice.tile_stride < 1 || entry.choice.tile_stride > 64)
        throw std::runtime_error("values out of range in entry '" + name + "'");
      cache.entries_[name] = entry;
    }
  } catch (const std::exception& e) {
    cache.entries_.clear();
    cache.warning_ = ignored + "corrupt (" + e.what() + ")";
  }
  return cache;
}

std::optional<TuneEntry> TuneCache::find(const TuneKey& key, std::string* stale) const {
  if (auto it = entries_.find(key.text()); it != entries_.end()) return it->second;
  if (stale) {
    const std::string prefix = key.problem_text() + " driver ";
    for (const auto& [name, entry] : entries_) {
      if (name.rfind(prefix, 0) == 0) {
        *stale = "ignoring a stale tuning entry (measured with another driver or kernel "
                 "version); run `framecast tune` again";
        break;
      }
    }
  }
  return std::nullopt;
}

void TuneCache::put(const TuneKey& key, const TuneEntry& entry) { entries_[key.text()] = entry; }

void TuneCache::save(const std::filesystem::path& path) const {
  nlohmann::json doc = {{"magic", kMagic}, {"version", kFormatVersion}};
  doc["entries"] = nlohmann::json::object();
  for (const auto& [name, e] : entries_) {
    doc["entries"][name] = {{"kind", conv_kind_name(e.choice.kind)}, {"coc", e.choice.coc},
                            {"slab", e.choice.slab},   {"tile_stride", e.choice.tile_stride},
                            {"ms", e.ms},              {"device", e.device}};
  }
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) throw Error(ErrorKind::io, path.parent_path().string() + ": " + ec.message());
  io::AtomicFile file(path);
  {
    std::ofstream out(file.temp_path());
    out << doc.dump(2) << "\n";
    if (!out) throw Error(ErrorKind::io, path.string() + ": cannot write the tuning cache");
  }
  file.commit();
}

}  // namespace framecast::vulkan
