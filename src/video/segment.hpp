// Segments: one job cut into N parts of its output frame sequence, each made by a separate
// run (on another machine), writing only its part's frames. A part's frames, timestamps and
// scene-cut decisions are those of a whole run, so the parts' video concatenated is the whole
// run's video. Pure: no FFmpeg.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace framecast::video {

// A part's decoding starts at the key frame at least this many source frames before its first
// output frame: the cut decision of the pair that makes that frame looks
// SceneCutDetector::span - 1 frames back, and the rest is slack for uneven timestamps.
constexpr int seek_lead_frames = 8;

// Part `index` (0-based) of `count`.
struct Segment {
  std::int64_t index = 0;
  std::int64_t count = 1;
};

// "K/N" with N >= 1 and 0 <= K < N. Throws Error(invalid_argument) naming `what`.
Segment parse_segment(std::string_view text, std::string_view what);

// Output frames [begin, end); no end: to the end of the stream.
struct FrameRange {
  std::int64_t begin = 0;
  std::optional<std::int64_t> end;
  bool contains(std::int64_t index) const { return index >= begin && (!end || index < *end); }
};

// The output frames of `segment` when a whole run makes about `total` frames (from the
// input's declared duration): N equal parts, the first starting at frame 0. The last part
// runs to the stream's real end, so the parts cover every frame exactly once even where the
// declared duration is off by a few frames. Throws Error(invalid_argument) when N > total.
FrameRange segment_frames(Segment segment, std::int64_t total);

// "B:E" (output frames B to E - 1) or "B:" (B to the end), 0 <= B < E: an explicit part, as
// `framecast plan` gives them. Throws Error(invalid_argument) naming `what`.
FrameRange parse_frame_range(std::string_view text, std::string_view what);

// `count` parts of `total` output frames whose boundaries move from the equal split to the
// nearest of `cheap_starts` (increasing output frames where a part decodes from a key frame
// with nothing to spare) that lies within an eighth of a part; the last part runs to the end.
// Throws Error(invalid_argument) when count > total.
std::vector<FrameRange> plan_parts(std::int64_t total, std::int64_t count,
                                   const std::vector<std::int64_t>& cheap_starts);

}  // namespace framecast::video
