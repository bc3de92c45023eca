// A host frame: interleaved RGB with 8 or 16 bits per sample. 16-bit frames carry 10- and
// 12-bit video without a detour through 8 bits; the engine interpolates at the input's depth.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace framecast {

enum class SampleDepth { u8, u16 };

class Frame {
 public:
  static constexpr int max_side = 32768;  // widths and heights are 1 .. max_side

  Frame() = default;
  Frame(int width, int height, SampleDepth depth = SampleDepth::u8);

  int width() const noexcept { return width_; }
  int height() const noexcept { return height_; }
  SampleDepth depth() const noexcept { return depth_; }
  bool empty() const noexcept { return width_ == 0 || height_ == 0; }
  // The largest sample value: 255 or 65535.
  int max_value() const noexcept { return depth_ == SampleDepth::u8 ? 255 : 65535; }
  std::size_t sample_count() const noexcept { return std::size_t(width_) * height_ * 3; }

  // Interleaved RGB rows without padding; only the accessor of the frame's depth is valid.
  std::span<std::uint8_t> rgb8();
  std::span<const std::uint8_t> rgb8() const;
  std::span<std::uint16_t> rgb16();
  std::span<const std::uint16_t> rgb16() const;

  // This frame at another depth (8 -> 16 bits multiplies by 257, 16 -> 8 rounds).
  Frame converted(SampleDepth depth) const;

  // Sample i of the interleaved data (any depth), as stored.
  int sample(std::size_t i) const noexcept {
    return depth_ == SampleDepth::u8 ? samples8_[i] : samples16_[i];
  }

 private:
  int width_ = 0;
  int height_ = 0;
  SampleDepth depth_ = SampleDepth::u8;
  std::vector<std::uint8_t> samples8_;
  std::vector<std::uint16_t> samples16_;
};

}  // namespace framecast
