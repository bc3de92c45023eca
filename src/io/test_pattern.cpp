#include "io/test_pattern.hpp"

#include <algorithm>
#include <cmath>

namespace framecast::io {

Frame test_pattern(int width, int height, float shift, SampleDepth depth) {
  Frame frame(width, height, depth);
  const float max_value = float(frame.max_value());
  const float cx = float(width) * 0.35f + 2.0f * shift, cy = float(height) * 0.5f + shift * 0.5f;
  const float radius = float(std::min(width, height)) * 0.2f;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const float u = float(x) - shift, v = float(y) - shift / 3.0f;
      float rgb[3] = {
          0.5f + 0.35f * std::sin(u * 0.11f) * std::cos(v * 0.07f),
          float(y) / float(height) * 0.6f + 0.2f + 0.1f * std::sin((u + v) * 0.31f),
          0.4f + 0.3f * std::cos(std::hypot(u - 20.0f, v - 10.0f) * 0.09f),
      };
      if (std::hypot(float(x) - cx, float(y) - cy) < radius) {
        rgb[0] = 0.9f;
        rgb[1] = 0.3f + 0.2f * std::sin(float(x) * 0.5f);
        rgb[2] = 0.15f;
      }
      const std::size_t i = (std::size_t(y) * width + x) * 3;
      for (int c = 0; c < 3; ++c) {
        const float value = std::floor(std::clamp(rgb[c], 0.0f, 1.0f) * max_value + 0.5f);
        if (depth == SampleDepth::u8) {
          frame.rgb8()[i + c] = static_cast<std::uint8_t>(value);
        } else {
          frame.rgb16()[i + c] = static_cast<std::uint16_t>(value);
        }
      }
    }
  }
  return frame;
}

}  // namespace framecast::io
