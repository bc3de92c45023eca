// The interpolation job: decode -> interpolate -> encode on three threads joined by capped
// queues, so the slowest stage sets the pace and memory stays bounded. Any stage's error
// stops the others; the output appears only when everything succeeded.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "framecast/engine.hpp"
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

struct InterpolateJob {
  std::string input;   // path, URL, or "-" for yuv4mpeg on stdin
  std::string output;  // path (container from the extension), or "-" for yuv4mpeg on stdout
  RateRequest rate;
  std::optional<double> scene_threshold;  // empty: no scene-cut detection
  bool strict = false;                    // damaged input frames are errors
  EncoderSettings encoder;
  // Write only this part of the output frames, video only (see segment.hpp). Every source
  // frame from the start is decoded, so cut decisions have their whole-run history.
  std::optional<Segment> segment;
};

struct PipelineHooks {
  std::function<bool()> cancelled;                            // polled; true stops the job
  std::function<void(const std::string&)> warning;            // from any stage, in order
  std::function<void(const std::string&)> started;            // input and output, one line
  std::function<void(const Progress&)> progress;              // about once a second
};

// Runs the job; hooks are called on the calling thread. Returns the final figures. Throws
// the first stage's Error, or Error(cancelled) when `cancelled` said so.
Progress run_interpolation(const InterpolateJob& job, Engine& engine, const PipelineHooks& hooks);

}  // namespace framecast::video
