#include "framecast/frame.hpp"

#include "framecast/error.hpp"

namespace framecast {

Frame::Frame(int width, int height, SampleDepth depth)
    : width_(width), height_(height), depth_(depth) {
  if (width <= 0 || height <= 0 || width > max_side || height > max_side)
    throw Error(ErrorKind::invalid_argument,
                "invalid frame size " + std::to_string(width) + "x" + std::to_string(height));
  if (depth == SampleDepth::u8) {
    samples8_.resize(sample_count());
  } else {
    samples16_.resize(sample_count());
  }
}

std::span<std::uint8_t> Frame::rgb8() { return samples8_; }
std::span<const std::uint8_t> Frame::rgb8() const { return samples8_; }
std::span<std::uint16_t> Frame::rgb16() { return samples16_; }
std::span<const std::uint16_t> Frame::rgb16() const { return samples16_; }

Frame Frame::converted(SampleDepth depth) const {
  if (depth == depth_) return *this;
  Frame out(width_, height_, depth);
  for (std::size_t i = 0; i < sample_count(); ++i) {
    if (depth == SampleDepth::u16) {
      out.samples16_[i] = static_cast<std::uint16_t>(samples8_[i] * 257);
    } else {
      out.samples8_[i] = static_cast<std::uint8_t>((samples16_[i] * 255 + 32767) / 65535);
    }
  }
  return out;
}

}  // namespace framecast
