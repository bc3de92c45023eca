// Which output frames to make and from what. Output frame n is shown at start + n / rate; it
// is made from the two source frames around that time, at t = its fractional position
// between their real timestamps (so variable frame rate input works). Pure: no FFmpeg.
#pragma once

#include <cstdint>
#include <vector>

#include "video/rational.hpp"

namespace framecast::video {

// How output frame `index` is made from the pair (previous source frame, newest one).
struct Slot {
  enum class Use { previous, next, blend };
  std::int64_t index = 0;
  Use use = Use::blend;
  float t = 0.0f;  // for blend: position in (0, 1) between previous and next
};

// The most output frames one gap between source frames may ask for (4.9 hours at 60 fps);
// a larger one is taken for damaged timestamps (Error(io)), not filled.
inline constexpr std::int64_t max_slots_per_gap = std::int64_t(1) << 20;

class Scheduler {
 public:
  // `start`: the time of output frame 0 (the source's start), in seconds. Source timestamps
  // closer than `tolerance` to an output time count as that time (see snap_tolerance).
  Scheduler(Rational rate, Rational start, Rational tolerance);

  // The slots made possible by a new source frame at `time` (strictly after the previous
  // one's: the caller drops others); Error(io) past max_slots_per_gap. `cut`: a scene cut lies between the previous frame and
  // this one, so nothing is blended across it and the previous frame is repeated.
  std::vector<Slot> add(Rational time, bool cut);
  // The slots after the last source frame, up to the source's `end` (last timestamp plus
  // its duration): repeats of that frame. The output then lasts as long as the source.
  std::vector<Slot> finish(Rational end);
  // Starts mid-stream, as a whole run stands once the source frame at `time` was added: for a
  // segment whose decoding began at a keyframe. That frame's own slots and those before it
  // are not made.
  void resume_after(Rational time);

  bool started() const noexcept { return started_; }
  Rational last_time() const noexcept { return last_; }
  std::int64_t emitted() const noexcept { return next_index_; }
  Rational time_of(std::int64_t index) const;

 private:
  bool at_time(Rational at, Rational time) const;

  Rational rate_, start_, tolerance_;
  Rational last_;
  bool started_ = false;
  std::int64_t next_index_ = 0;
};

// Frames in `duration` seconds at `rate` fps, rounded to the nearest whole frame, at least 1.
std::int64_t output_frame_count(Rational duration, Rational rate);

// How near a source timestamp must be to an output time to count as equal: one tick of the
// source's time base (containers round timestamps to it, e.g. Matroska to 1 ms), unless the
// ticks are coarse against the frame interval, where timestamps are exact and nothing snaps.
Rational snap_tolerance(Rational time_base, Rational frame_rate);

// Output timestamps: frame n at (start + n / rate) / time_base ticks.
struct OutputClock {
  Rational rate;
  Rational start;
  Rational time_base;
  std::int64_t pts(std::int64_t index) const;
  std::int64_t ticks_per_frame() const;
};

// The clock for an output at `rate` starting at `start` seconds. The time base is 1/rate when
// that holds `start` exactly, or when the container stores only a frame rate (y4m); else the
// finest base holding both that a container accepts (32-bit terms); failing that, 1/rate with
// the start rounded to the nearest frame.
OutputClock make_output_clock(Rational rate, Rational start, bool rate_only_container);

}  // namespace framecast::video
