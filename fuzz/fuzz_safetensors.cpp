// A .safetensors file: 8-byte header length, JSON header, tensor bytes. Malformed input must
// end in framecast::Error; anything else (a crash, a sanitizer report, another exception)
// is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "framecast/error.hpp"
#include "model/model_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    framecast::model_files::parse_safetensors(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.safetensors");
  } catch (const framecast::Error&) {
  }
  return 0;
}
