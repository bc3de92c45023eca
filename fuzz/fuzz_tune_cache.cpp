// The tuning cache (tune.json): anything unreadable is an empty cache with a warning, never an
// exception or a crash; entries that load are within their sanity bounds.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "backends/vulkan/tune_cache.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using framecast::vulkan::TuneCache;
  const auto cache =
      TuneCache::parse(std::string_view(reinterpret_cast<const char*>(data), size), "tune.json");
  if (cache.size() > 0 && !cache.warning().empty()) std::abort();  // all or nothing
  return 0;
}
