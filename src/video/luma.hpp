// Rec. 709 luma of an interleaved RGB pixel, as the frame analyses (scene cuts, repeats)
// measure it: on the stored (gamma-encoded) values, in integers.
#pragma once

#include <cstdint>

namespace framecast::video {

// The weights in 1/65536 sum to 65536, so a pixel's weighted sum fits 32 bits even at 16 bits
// a sample; divide by 65536 for the luma in sample units.
template <typename Sample>
constexpr std::uint32_t weighted_luma(const Sample* rgb) {
  return 13933u * rgb[0] + 46871u * rgb[1] + 4732u * rgb[2];
}

}  // namespace framecast::video
