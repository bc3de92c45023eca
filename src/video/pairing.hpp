// Source frames in, pairs with their output slots out: each new frame, once the scene-cut
// detector has seen the frames a decision needs past it, gives the Scheduler's slots between
// it and its predecessor. Shared by `framecast interpolate` and the GStreamer element, which
// hold different things per frame (`Held`: anything with Rational `time` and `duration`).
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "video/scene_cut.hpp"
#include "video/schedule.hpp"

namespace framecast::video {

template <typename Held>
class FramePairing {
 public:
  // `threshold` empty: no scene-cut detection, and no frames held back for it.
  FramePairing(Scheduler scheduler, std::optional<double> threshold) : scheduler_(scheduler) {
    if (threshold) detector_.emplace(*threshold);
  }

  // Timestamps must increase; callers drop a frame that does not follow (and may say so).
  bool follows(Rational time) const { return window_.empty() || time > latest_; }
  bool detecting() const noexcept { return detector_.has_value(); }
  bool empty() const noexcept { return window_.empty(); }
  std::int64_t cuts() const noexcept { return cuts_; }
  const Scheduler& scheduler() const noexcept { return scheduler_; }
  // Frames added before the pair being rendered (inside render: its first frame's index).
  std::int64_t pair_index() const noexcept { return first_index_; }
  // Starts mid-stream, before the first frame is added: that frame, at `time`, is paired
  // onwards only, with the slots a whole run gives after it (a segment decoded from a keyframe).
  void resume_at(Rational time) { scheduler_.resume_after(time); }

  // Adds the next frame (its thumbnail when detecting) and calls
  // render(slots, previous, next) for every pair it completes: `previous` is null before the
  // first frame's slots. Stops early and returns false when render returns false.
  template <typename Render>
  bool add(Held frame, Thumbnail thumbnail, Render&& render) {
    if (detector_) detector_->add(std::move(thumbnail));
    latest_ = frame.time;
    window_.push_back(std::move(frame));
    if (!scheduler_.started())
      return render(scheduler_.add(window_.back().time, false), nullptr, window_.back());
    // Cut decisions look `span` frames ahead; without detection one frame is enough.
    const std::size_t needed = detector_ ? SceneCutDetector::span + 1 : 2;
    while (window_.size() >= needed)
      if (!emit_pair(render)) return false;
    return true;
  }

  // A frame at `time` that repeats the newest one and was dropped (duplicates.hpp), after at
  // least one was added: the newest frame is shown until the next, or to the repeat's `end`.
  void add_repeat(Rational time, Rational end) {
    latest_ = time;
    repeats_end_ = end;
  }

  // The end of the stream: the pairs still held, then repeats of the last frame up to its
  // end (time + duration, or its last dropped repeat's), so the output lasts as long as the
  // source.
  template <typename Render>
  bool finish(Render&& render) {
    if (window_.empty()) return true;
    while (window_.size() >= 2)
      if (!emit_pair(render)) return false;
    const Held& last = window_.front();
    const Rational end = std::max(last.time + last.duration, repeats_end_.value_or(last.time));
    return render(scheduler_.finish(end), &last, last);
  }

 private:
  template <typename Render>
  bool emit_pair(Render& render) {
    const bool cut = detector_ && detector_->cut_between(first_index_);
    if (cut) ++cuts_;
    const bool running = render(scheduler_.add(window_[1].time, cut), &window_[0], window_[1]);
    window_.pop_front();
    ++first_index_;
    return running;
  }

  Scheduler scheduler_;
  std::optional<SceneCutDetector> detector_;
  std::deque<Held> window_;       // window_[0] is the earliest frame not yet paired onwards
  std::int64_t first_index_ = 0;  // detector index of window_[0]
  std::int64_t cuts_ = 0;
  Rational latest_;                      // the newest frame's time, dropped repeats included
  std::optional<Rational> repeats_end_;  // the end of the newest dropped repeat
};

}  // namespace framecast::video
