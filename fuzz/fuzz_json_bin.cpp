// A NAME.json manifest and its NAME.bin, given as the manifest, a NUL byte, then the .bin's
// bytes (JSON text holds no NUL). Malformed input must end in framecast::Error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "framecast/error.hpp"
#include "model/model_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto nul = input.find('\0');
  const std::string_view manifest = input.substr(0, nul);
  const std::string_view bin = nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1);
  try {
    framecast::model_files::parse_json_bin(manifest, bin, "fuzz.json", "fuzz.bin");
  } catch (const framecast::Error&) {
  }
  return 0;
}
