// The interpolation job: decode -> interpolate -> encode on three threads joined by capped
// queues, so the slowest stage sets the pace and memory stays bounded; the interpolating
// stage deals its pairs out to one worker thread per engine. Any stage's error
// stops the others; the output appears only when everything succeeded.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "framecast/engine.hpp"
#include "video/duplicates.hpp"
#include "video/encoding.hpp"
#include "video/progress.hpp"
#include "video/rational.hpp"
#include "video/segment.hpp"

namespace framecast::video {

// The output rate: `value` times the input's rate (--factor), or `value` fps (--fps).
struct RateRequest {
  Rational value;
  bool factor = true;
};
// From --factor and --fps as typed, exactly one of them non-empty; else Error(invalid_argument).
RateRequest parse_rate_request(const std::string& factor, const std::string& fps);

struct InterpolateJob {
  std::string input;   // path, URL, or "-" for yuv4mpeg on stdin
  std::string output;  // path (container from the extension), or "-" for yuv4mpeg on stdout
  RateRequest rate;
  std::optional<double> scene_threshold;  // empty: no scene-cut detection
  std::optional<DedupSettings> dedup;     // empty: repeated frames are interpolated as they come
  bool strict = false;                    // damaged input frames are errors
  EncoderSettings encoder;
  // Write only this part of the output frames, video only (see segment.hpp): segment K of N
  // equal parts, or explicit output frames (a plan's). Decoding starts at a key frame before
  // the part, early enough that cut decisions and timestamps are the whole run's.
  std::optional<Segment> segment;
  std::optional<FrameRange> frames;
};

// Where to cut a job into parts: the output rate, the whole run's frame count by the declared
// duration, the video's key frames (seconds from the input's start), and `count` parts whose
// boundaries sit just after key frames where one is near the equal split.
struct SegmentPlan {
  Rational rate;
  std::int64_t total = 0;
  std::vector<Rational> key_frames;
  std::vector<FrameRange> parts;
};
SegmentPlan plan_segments(const std::string& input, const RateRequest& rate, std::int64_t count);

struct PipelineHooks {
  std::function<bool()> cancelled;                            // polled; true stops the job
  std::function<void(const std::string&)> warning;            // from any stage, in order
  std::function<void(const std::string&)> started;            // input and output, one line
  std::function<void(const Progress&)> progress;              // about once a second
};

// Runs the job; hooks are called on the calling thread. Returns the final figures. Throws
// the first stage's Error, or Error(cancelled) when `cancelled` said so. With several
// engines (one per device, all of one model and options) pairs are dealt out to whichever is
// free and their frames written in order: the output is the same as with one of them.
Progress run_interpolation(const InterpolateJob& job, const std::vector<Engine*>& engines,
                           const PipelineHooks& hooks);
inline Progress run_interpolation(const InterpolateJob& job, Engine& engine, const PipelineHooks& hooks) {
  return run_interpolation(job, std::vector<Engine*>{&engine}, hooks);
}

}  // namespace framecast::video
