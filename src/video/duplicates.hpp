// Repeated frames dropped before interpolation (--dedup). Animation drawn on twos or threes,
// low-frame-rate webcams and game captures repeat a picture for several frames; interpolating
// between a frame and its repeat gives a still and then a jump, the judder users see. With
// the repeats dropped, the frames that differ keep their own timestamps and the Scheduler
// spreads each change over the whole interval since the last one.
//
// Metric: luma at half resolution (means of 2x2 pixels), the mean absolute difference of each
// 8x8 block of it (16x16 source pixels, in 8-bit levels at any depth). A frame repeats the
// last kept frame when no block differs by `threshold` or more. One block is enough to keep a
// frame, so a mouth or a cursor moving in a still picture is not lost; the block mean
// averages out the encoder's noise on a repeated picture. Calibration (the 45 animation clips
// of ../shared/data/video, H.264 CRF 22 at up to 640 px): repeats score 0-5, drawn changes
// from 10 up, slow pans 3-8; default threshold 6.
//
// Comparing with the last kept frame rather than the previous one keeps a slow drift from
// slipping through: it adds up until a frame is kept, and interpolating across a slow pan
// loses little. At most `max_run` frames in a row are dropped, so a long still is not turned
// into slow motion towards the next change: the change's onset moves by at most max_run frame
// intervals (2 covers animation on twos and threes).
#pragma once

#include <cstdint>
#include <vector>

#include "framecast/frame.hpp"

namespace framecast::video {

struct DedupSettings {
  double threshold = 6.0;  // block difference in 8-bit levels, > 0
  int max_run = 2;         // repeats dropped in a row, >= 1
};

class DuplicateFilter {
 public:
  // Throws Error(invalid_argument) for a threshold <= 0 or a max_run < 1.
  explicit DuplicateFilter(DedupSettings settings);

  // Whether `frame` repeats the last kept frame and is to be dropped; a frame that is not
  // dropped becomes the last kept one. The first frame, and one of another size, are kept.
  bool drop(const Frame& frame);
  std::int64_t dropped() const noexcept { return dropped_; }

 private:
  struct HalfLuma {
    int width = 0, height = 0;
    std::vector<float> values;  // row-major, 8-bit levels
  };
  static void half_luma(const Frame& frame, HalfLuma& luma);
  bool repeats(const HalfLuma& luma) const;

  DedupSettings settings_;
  HalfLuma kept_, candidate_;  // the candidate's buffer is reused frame after frame
  int run_ = 0;  // frames dropped since the last kept one
  std::int64_t dropped_ = 0;
};

}  // namespace framecast::video
