// IEEE half-precision conversions on the host (C++20 has no float16 type): F16 model files
// are read with them, GPU weights converted once at load, and tests round their inputs the
// way the GPU stores them.
#pragma once

#include <cstdint>
#include <cstring>

namespace framecast {

// Round to nearest even, with overflow to infinity and subnormals, as a GPU's f32 -> f16.
inline std::uint16_t to_half(float value) {
  std::uint32_t f;
  std::memcpy(&f, &value, 4);
  const std::uint32_t sign = (f >> 16) & 0x8000u;
  const std::uint32_t abs = f & 0x7fffffffu;
  if (abs >= 0x7f800000u)  // inf or nan
    return std::uint16_t(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  if (abs >= 0x477ff000u) return std::uint16_t(sign | 0x7c00u);  // rounds to >= 65520: inf
  if (abs < 0x38800000u) {                                       // subnormal half or zero
    if (abs < 0x33000000u) return std::uint16_t(sign);
    const std::uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
    const int shift = 113 - int(abs >> 23) + 13;
    std::uint32_t half = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return std::uint16_t(sign | half);
  }
  std::uint32_t half = ((abs - 0x38000000u) >> 13);
  const std::uint32_t rest = abs & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
  return std::uint16_t(sign | half);
}

inline float from_half(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu, f;
  if (exponent == 0x1f) {
    f = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent == 0) {
    if (mantissa == 0) {
      f = sign;
    } else {  // subnormal: normalize
      int e = -1;
      do {
        ++e;
        mantissa <<= 1;
      } while (!(mantissa & 0x400u));
      f = sign | std::uint32_t(127 - 15 - e) << 23 | (mantissa & 0x3ffu) << 13;
    }
  } else {
    f = sign | (exponent + 112) << 23 | mantissa << 13;
  }
  float out;
  std::memcpy(&out, &f, 4);
  return out;
}

// The value as stored in f16.
inline float round_to_half(float value) { return from_half(to_half(value)); }

}  // namespace framecast
