// Scene-cut detection that ignores fades and flashes.
//
// Metric: each frame becomes a 56-pixel-wide luma thumbnail. For each 8x8 block that has
// contrast in both frames (standard deviation >= 0.02 of full scale), take the best normalised
// cross-correlation against the other frame's block shifted by up to 2 thumbnail pixels
// (motion tolerance); a block's dissimilarity is (1 - correlation) / 2 in [0, 1]. The score of
// a pair is the median over blocks. Correlation ignores gain and offset, so fades and
// brightness changes score ~0; dark or flat frames have no blocks and score 0.
//
// Decision: a cut lies between frames k and k+1 when the score exceeds the threshold for
// (k, k+1) and the change persists: also for (k, k+2), (k, k+3), (k-1, k+1) and (k-2, k+1)
// where those frames exist. A flash of one or two frames returns to the old picture and so is
// no cut. Calibration (15 DAVIS 960x540 sequences, Xiph bus and park_joy): consecutive
// frames score <= 0.12, cross-sequence cuts >= 0.20; default threshold 0.18.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "framecast/frame.hpp"

namespace framecast::video {

constexpr double default_scene_threshold = 0.18;

struct Thumbnail {
  int width = 0, height = 0;
  std::vector<float> luma;  // row-major, 0..1
};

Thumbnail make_thumbnail(const Frame& frame);
// The pair score described above, in [0, 1]; 0 when no block has contrast in both.
double scene_change(const Thumbnail& a, const Thumbnail& b);

class SceneCutDetector {
 public:
  // Frames on each side of a pair that a cut must persist for (the pair's own included).
  static constexpr int span = 3;

  // Throws Error(invalid_argument) unless 0 < threshold <= 1.
  explicit SceneCutDetector(double threshold);

  // Appends the stream's next frame (index = number of frames added before); all frames of
  // a stream have one size. A thumbnail may be made elsewhere (another thread) beforehand.
  void add(const Frame& frame) { add(make_thumbnail(frame)); }
  void add(Thumbnail thumbnail);
  // Whether a cut lies between frames k and k+1. Decides with the frames added so far, so
  // call it once frame k + span is added, or at the end of the stream. Frames before k - span
  // + 1 are forgotten: ask in increasing k.
  bool cut_between(std::int64_t k);
  std::int64_t frames_added() const noexcept { return first_ + std::int64_t(window_.size()); }

 private:
  bool exceeds(std::int64_t a, std::int64_t b) const;

  double threshold_;
  std::int64_t first_ = 0;  // index of window_.front()
  std::deque<Thumbnail> window_;
};

}  // namespace framecast::video
