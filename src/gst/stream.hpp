// The element's work on one stretch of video of one format and rate (between flushes,
// segments and caps changes): source buffers in, buffers on the output rate's grid out.
// Output frame n is shown at origin + n / rate, computed with gst_util_uint64_scale from the
// stretch's origin (the segment's start, or where the previous stretch stopped), never
// accumulated; every buffer has its duration. The pairing, scene cuts and the slots' t are
// those of `framecast interpolate` (video/pairing.hpp).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "framecast/engine.hpp"
#include "frames.hpp"
#include "video/duplicates.hpp"
#include "video/pairing.hpp"

namespace framecast::gst {

class Stream {
 public:
  // `tolerance`: how near an output time a source frame counts as at it (Scheduler);
  // `threshold` empty: no scene-cut detection; `dedup` empty: repeated frames are kept.
  Stream(Engine& engine, const FrameConverter& converter, video::Rational rate, GstClockTime origin,
         video::Rational tolerance, std::optional<double> threshold,
         std::optional<video::DedupSettings> dedup);

  // Takes a timestamped source buffer lasting `duration` seconds. False when its timestamp
  // does not follow the previous one's (the buffer is dropped). A repeat dropped by the
  // duplicate filter only extends the previous frame.
  bool add(BufferPtr buffer, video::Rational duration);
  // The end of the stretch: the frames still held back for scene-cut decisions, then repeats
  // of the last source frame up to its end, so the output lasts as long as the input.
  void finish();

  // Whether to skip an interpolated frame at `pts` lasting `duration` (QoS): source frames
  // and their repeats are never skipped.
  using Skip = std::function<bool(GstClockTime pts, GstClockTime duration)>;
  // The next output buffer, or null when it needs more input.
  BufferPtr next(const Skip& skip);

  // The time of the next output frame: where a following stretch continues the grid.
  GstClockTime resume_time() const;

 private:
  struct Source {
    BufferPtr buffer;
    Frame rgb;
  };
  struct Held {
    std::shared_ptr<const Source> source;
    video::Rational time, duration;
  };
  struct Pending {
    video::Slot slot;
    std::shared_ptr<const Source> previous, next;
  };

  bool queue(const std::vector<video::Slot>& slots, const Held* previous, const Held& next);
  GstClockTime pts(std::int64_t slot_index) const;
  BufferPtr interpolate(const Pending& pending);

  Engine& engine_;
  const FrameConverter& converter_;
  video::Rational rate_;
  GstClockTime origin_;
  video::Rational tolerance_;
  std::optional<double> threshold_;
  std::optional<video::DuplicateFilter> duplicates_;
  std::int64_t first_ = 0;                            // the grid index of the scheduler's slot 0
  std::optional<video::FramePairing<Held>> pairing_;  // from the first frame, which sets first_
  std::deque<Pending> pending_;
  std::shared_ptr<const Source> prepared_[2];  // the pair the runtime holds
  bool discont_ = true;
};

}  // namespace framecast::gst
