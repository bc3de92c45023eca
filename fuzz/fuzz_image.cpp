// A still image as `framecast pair` reads it: the input, in a memory file, goes through
// io::read_image (libpng or libjpeg, chosen by the content). Bad input must end in
// framecast::Error; a decoded image must have the size its header gives (PNG's IHDR, JPEG's
// SOF), positive and within Frame's limits, 16-bit samples only from a 16-bit PNG, and a pixel
// buffer of exactly width * height * 3 samples at its depth.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "framecast/error.hpp"
#include "framecast/frame.hpp"
#include "io/image.hpp"
#include "memory_file.hpp"

namespace {

using framecast::Frame;
using framecast::SampleDepth;

void check(bool ok) {
  if (!ok) std::abort();
}

std::uint32_t big_endian(const std::uint8_t* p, int bytes) {
  std::uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v = v << 8 | p[i];
  return v;
}

struct Header {
  std::uint32_t width, height;
  bool deep;
};

// The size a PNG's IHDR (always the first chunk, at byte 16) gives.
std::optional<Header> png_header(const std::uint8_t* data, std::size_t size) {
  if (size < 25) return std::nullopt;
  return Header{big_endian(data + 16, 4), big_endian(data + 20, 4), data[24] == 16};
}

// The size the first SOFn marker of a JPEG gives, walking the marker segments from SOI.
std::optional<Header> jpeg_header(const std::uint8_t* data, std::size_t size) {
  for (std::size_t at = 2; at + 4 <= size;) {
    if (data[at] != 0xff) return std::nullopt;
    const std::uint8_t marker = data[at + 1];
    if (marker == 0xff) {  // fill byte
      ++at;
      continue;
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker == 0x01) {  // RSTn, TEM: no length
      at += 2;
      continue;
    }
    const std::size_t length = big_endian(data + at + 2, 2);
    const bool sof = marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc;
    if (sof) {
      if (at + 9 > size) return std::nullopt;
      return Header{big_endian(data + at + 7, 2), big_endian(data + at + 5, 2), false};
    }
    if (marker == 0xda || marker == 0xd9) return std::nullopt;  // scan data or end before any SOF
    at += 2 + std::max<std::size_t>(length, 2);  // libjpeg skips a length below 2 as 2
  }
  return std::nullopt;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = "/proc/self/fd/" + std::to_string(fuzz::memory_file(data, size));
  Frame frame;
  try {
    frame = framecast::io::read_image(path);
  } catch (const framecast::Error&) {
    return 0;
  }
  const bool png = size >= 8 && data[0] == 0x89 && data[1] == 'P';
  const std::optional<Header> header = png ? png_header(data, size) : jpeg_header(data, size);
  check(header.has_value());
  check(frame.width() > 0 && frame.height() > 0 && frame.width() <= Frame::max_side &&
        frame.height() <= Frame::max_side);
  check(std::uint32_t(frame.width()) == header->width && std::uint32_t(frame.height()) == header->height);
  check(frame.depth() == (png && header->deep ? SampleDepth::u16 : SampleDepth::u8));
  const std::size_t samples = std::size_t(frame.width()) * std::size_t(frame.height()) * 3;
  check(frame.sample_count() == samples);
  if (frame.depth() == SampleDepth::u8) {
    check(frame.rgb8().size() == samples && frame.rgb16().empty());
  } else {
    check(frame.rgb16().size() == samples && frame.rgb8().empty());
  }
  return 0;
}
