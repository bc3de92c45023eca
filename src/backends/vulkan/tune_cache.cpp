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

// A kernel knob of an entry, within sanity bounds only: what a kind accepts is conv_unfit's
// business, checked against the device and shape when a runtime uses the entry (coop kinds
// read the knobs differently, e.g. tile_stride is their matrix N, 8 or 16). Checked as JSON
// before it becomes an int: get<int>() of 1e300 is undefined behaviour.
int knob(const nlohmann::json& entry, const char* key, const std::string& name) {
  const auto& value = entry.at(key);
  const int limit = std::string_view(key) == "tile_stride" ? 64 : 256;
  if (!value.is_number_integer() || value < 1 || value > limit)
    throw std::runtime_error(std::string(key) + " out of range in entry '" + name + "'");
  return value.get<int>();
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
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in || in.bad()) {
    TuneCache cache;
    cache.warning_ = "ignoring the tuning cache " + path.string() + ": cannot be read";
    return cache;
  }
  return parse(text, path);
}

TuneCache TuneCache::parse(std::string_view text, const std::filesystem::path& path) {
  TuneCache cache;
  const std::string ignored = "ignoring the tuning cache " + path.string() + ": ";
  try {
    const auto doc = nlohmann::json::parse(text);
    if (!doc.is_object() || doc.value("magic", "") != kMagic) {
      cache.warning_ = ignored + "not a Framecast tuning file";
      return cache;
    }
    // Compared as JSON: reading 1e300 into an int would be undefined behaviour.
    if (!doc.contains("version") || doc["version"] != kFormatVersion) {
      cache.warning_ = ignored + "written by another version of Framecast";
      return cache;
    }
    for (const auto& [name, e] : doc.at("entries").items()) {
      TuneEntry entry;
      const auto kind = kind_from(e.at("kind").get<std::string>());
      if (!kind) throw std::runtime_error("unknown kernel kind in entry '" + name + "'");
      entry.choice.kind = *kind;
      entry.choice.coc = knob(e, "coc", name);
      entry.choice.slab = knob(e, "slab", name);
      entry.choice.tile_stride = knob(e, "tile_stride", name);
      entry.ms = e.value("ms", 0.0);
      entry.device = e.value("device", "");
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
