// The per-pixel arithmetic the reference ops and the fast ops share, so both paths compute
// bilinear taps, warps, the blend's static guard and the output rounding with one formula
// (the reference's, which must not change).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "backends/cpu/planes.hpp"
#include "framecast/frame.hpp"

namespace framecast::cpu::pixel {

// WGSL's mix(): the seed's interpolation formula, kept literally.
inline float mix(float a, float b, float f) { return a * (1.0f - f) + b * f; }

inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// Softmax in place, as PyTorch computes it: exp(x - max), divided by the sum of those.
inline void softmax9(float (&x)[9]) {
  float max = x[0];
  for (int k = 1; k < 9; ++k) max = std::max(max, x[k]);
  float sum = 0.0f;
  for (float& v : x) {
    v = std::exp(v - max);
    sum += v;
  }
  for (float& v : x) v /= sum;
}

inline float smoothstep(float e0, float e1, float x) {
  const float t = std::clamp((x - e0) / (e1 - e0), 0.0f, 1.0f);
  return t * t * (3.0f - 2.0f * t);
}

// One axis of a bilinear read at s with taps clamped to [0, size): the two taps and the
// weight of the second.
struct Tap {
  int a, b;
  float f;
};

inline Tap tap(float s, int size) {
  const float s0 = std::floor(s);
  const int i0 = int(s0);
  return {std::clamp(i0, 0, size - 1), std::clamp(i0 + 1, 0, size - 1), s - s0};
}

// The source coordinate of destination index i when resampling by `ratio` (source size over
// destination size) with align_corners=false.
inline float source_coordinate(int i, float ratio) { return (float(i) + 0.5f) * ratio - 0.5f; }

// Bilinear interpolation of four taps (top left, top right, bottom left, bottom right) by
// weights (fx, fy): horizontal mixes, then the vertical one.
inline float bilerp(float tl, float tr, float bl, float br, float fx, float fy) {
  return mix(mix(tl, tr, fx), mix(bl, br, fx), fy);
}

// Bilinear read of one plane at taps (tx, ty).
inline float read(const float* plane, int width, const Tap& tx, const Tap& ty) {
  const float* ra = plane + std::size_t(ty.a) * width;
  const float* rb = plane + std::size_t(ty.b) * width;
  return bilerp(ra[tx.a], ra[tx.b], rb[tx.a], rb[tx.b], tx.f, ty.f);
}

// Bilinear read of one plane at (sx, sy) with taps clamped to the plane's border: the
// seed's up(), sampleQ() and warp3() alike.
inline float bilinear(const float* plane, int width, int height, float sx, float sy) {
  return read(plane, width, tap(sx, width), tap(sy, height));
}

// Backward warp of the three planes starting at `base` (0: frame0, 3: frame1).
inline void warp3(const Planes& imgs, int base, float sx, float sy, float out[3]) {
  const Tap tx = tap(sx, imgs.width), ty = tap(sy, imgs.height);
  for (int c = 0; c < 3; ++c) out[c] = read(imgs.plane(base + c), imgs.width, tx, ty);
}

// The static guard's weight of the frames' average at (x, y): 1 where both frames agree over
// the 3x3 neighbourhood, 0 where they differ.
inline float static_weight(const Planes& imgs, int x, int y) {
  const int w = imgs.width, h = imgs.height;
  float d = 0.0f;
  for (int dy = -1; dy <= 1; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      const int xx = std::clamp(x + dx, 0, w - 1), yy = std::clamp(y + dy, 0, h - 1);
      d += std::max({std::abs(imgs.at(0, yy, xx) - imgs.at(3, yy, xx)),
                     std::abs(imgs.at(1, yy, xx) - imgs.at(4, yy, xx)),
                     std::abs(imgs.at(2, yy, xx) - imgs.at(5, yy, xx))});
    }
  }
  d *= 1.0f / 9.0f;
  return 1.0f - smoothstep(0.03f, 0.09f, d);
}

// The static guard on a clamped BGR pixel at (x, y): the frames' average mixed back in by
// their static weight.
inline void guard_static(const Planes& imgs, int x, int y, float bgr[3]) {
  const float w_static = static_weight(imgs, x, y);
  if (w_static > 0.001f)
    for (int c = 0; c < 3; ++c)
      bgr[c] = mix(bgr[c], (imgs.at(c, y, x) + imgs.at(3 + c, y, x)) * 0.5f, w_static);
}

// Clamps a blended BGR pixel at (x, y) and applies the static guard (if asked).
inline void finish(const Planes& imgs, bool static_guard, int x, int y, float bgr[3]) {
  for (int c = 0; c < 3; ++c) bgr[c] = std::clamp(bgr[c], 0.0f, 1.0f);
  if (static_guard) guard_static(imgs, x, y, bgr);
}

// A finished BGR pixel as RGB samples (uint8_t or uint16_t), rounded to nearest.
template <typename Sample>
inline void write_rgb(const float bgr[3], float max_value, Sample* rgb) {
  for (int c = 0; c < 3; ++c) rgb[c] = static_cast<Sample>(std::floor(bgr[2 - c] * max_value + 0.5f));
}

}  // namespace framecast::cpu::pixel
