// Planar float activations [channels][height][width]: the CPU backend's tensor.
#pragma once

#include <cstddef>
#include <vector>

namespace framecast::cpu {

struct Planes {
  int channels = 0;
  int height = 0;
  int width = 0;
  std::vector<float> values;

  Planes() = default;
  Planes(int c, int h, int w) : channels(c), height(h), width(w), values(std::size_t(c) * h * w) {}

  // Gives the planes this shape, keeping the storage when the size is unchanged (a runtime's
  // buffers per mid): the values are then unspecified, for passes that write every one.
  void reshape(int c, int h, int w) {
    channels = c;
    height = h;
    width = w;
    values.resize(std::size_t(c) * h * w);
  }

  std::size_t plane_size() const noexcept { return std::size_t(height) * width; }
  float* plane(int c) noexcept { return values.data() + c * plane_size(); }
  const float* plane(int c) const noexcept { return values.data() + c * plane_size(); }
  float* row(int c, int y) noexcept { return plane(c) + std::size_t(y) * width; }
  const float* row(int c, int y) const noexcept { return plane(c) + std::size_t(y) * width; }
  float& at(int c, int y, int x) noexcept { return plane(c)[std::size_t(y) * width + x]; }
  float at(int c, int y, int x) const noexcept { return plane(c)[std::size_t(y) * width + x]; }
};

}  // namespace framecast::cpu
