#include "video/schedule.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "framecast/error.hpp"

namespace framecast::video {

Scheduler::Scheduler(Rational rate, Rational start, Rational tolerance)
    : rate_(rate), start_(start), tolerance_(tolerance), last_(start) {
  if (rate <= Rational(0)) throw Error(ErrorKind::invalid_argument, "the output rate must be positive");
}

Rational Scheduler::time_of(std::int64_t index) const { return start_ + Rational(index) / rate_; }

namespace {

// Refuses a gap between source frames (or after the last one) that would take more than
// max_slots_per_gap output frames to fill: such timestamps are damaged, and filling them would
// take memory (the slots) and time without bound.
void check_gap(Rational from, Rational to, Rational rate) {
  if ((to - from) * rate <= Rational(max_slots_per_gap)) return;
  throw Error(ErrorKind::io, "the timestamps jump by " + std::to_string((to - from).to_double()) +
                                 " s between two frames, more than " + std::to_string(max_slots_per_gap) +
                                 " output frames to fill: the input's timestamps are damaged");
}

}  // namespace

bool Scheduler::at_time(Rational at, Rational time) const {
  return at == time || (at > time ? at - time : time - at) < tolerance_;
}

std::vector<Slot> Scheduler::add(Rational time, bool cut) {
  if (started_ && time <= last_)
    throw Error(ErrorKind::internal, "scheduler: source timestamps must increase");
  check_gap(time_of(next_index_), time, rate_);
  std::vector<Slot> slots;
  for (;; ++next_index_) {
    const Rational at = time_of(next_index_);
    const bool snapped = at_time(at, time);
    if (at > time && !snapped) break;
    Slot slot{next_index_, Slot::Use::next, 0.0f};
    // Before the first source frame there is nothing to blend with: the first one is held.
    if (started_ && !snapped) {
      slot.use = cut ? Slot::Use::previous : Slot::Use::blend;
      slot.t = float(((at - last_) / (time - last_)).to_double());
    }
    slots.push_back(slot);
  }
  started_ = true;
  last_ = time;
  return slots;
}

void Scheduler::resume_after(Rational time) {
  // The first output frame add(time) would not have made: after `time` and not snapped to it.
  const auto made_by_time = [&](std::int64_t n) { return time_of(n) <= time || at_time(time_of(n), time); };
  std::int64_t n = std::max<std::int64_t>(0, ((time - start_) * rate_).floor());
  while (made_by_time(n)) ++n;
  started_ = true;
  last_ = time;
  next_index_ = n;
}

std::vector<Slot> Scheduler::finish(Rational end) {
  std::vector<Slot> slots;
  if (!started_) return slots;
  check_gap(time_of(next_index_), end, rate_);
  const std::int64_t total = end > start_ ? output_frame_count(end - start_, rate_) : 1;
  for (; next_index_ < total; ++next_index_) slots.push_back({next_index_, Slot::Use::previous, 0.0f});
  return slots;
}

std::int64_t output_frame_count(Rational duration, Rational rate) {
  return std::max<std::int64_t>(1, (duration * rate).round());
}

Rational snap_tolerance(Rational time_base, Rational frame_rate) {
  return time_base * frame_rate * Rational(16) <= Rational(1) ? time_base : Rational(0);
}

std::int64_t OutputClock::pts(std::int64_t index) const {
  return ((start + Rational(index) / rate) / time_base).round();
}

std::int64_t OutputClock::ticks_per_frame() const { return (Rational(1) / rate / time_base).round(); }

OutputClock make_output_clock(Rational rate, Rational start, bool rate_only_container) {
  const Rational frame = Rational(1) / rate;
  constexpr std::int64_t limit = std::numeric_limits<std::int32_t>::max();
  if (rate_only_container || (start / frame).den() == 1) return {rate, start, frame};
  const Rational fine = start > Rational(0) ? gcd(frame, start) : frame;
  if (fine.num() <= limit && fine.den() <= limit) return {rate, start, fine};
  return {rate, Rational((start / frame).round()) * frame, frame};
}

}  // namespace framecast::video
