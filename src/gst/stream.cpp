#include "stream.hpp"

#include <algorithm>
#include <utility>

namespace framecast::gst {

using video::Rational;
using video::Slot;

namespace {

Rational seconds(GstClockTime ns) { return Rational(std::int64_t(ns), GST_SECOND); }

}  // namespace

Stream::Stream(Engine& engine, const FrameConverter& converter, Rational rate, GstClockTime origin,
               Rational tolerance, std::optional<double> threshold,
               std::optional<video::DedupSettings> dedup)
    : engine_(engine),
      converter_(converter),
      rate_(rate),
      origin_(origin),
      tolerance_(tolerance),
      threshold_(threshold) {
  if (dedup) duplicates_.emplace(*dedup);
}

GstClockTime Stream::pts(std::int64_t slot_index) const {
  return origin_ + gst_util_uint64_scale(guint64(first_ + slot_index),
                                         GST_SECOND * guint64(rate_.den()), guint64(rate_.num()));
}

GstClockTime Stream::resume_time() const {
  return pairing_ ? pts(pairing_->scheduler().emitted()) : origin_;
}

bool Stream::add(BufferPtr buffer, Rational duration) {
  const Rational time = seconds(GST_BUFFER_PTS(buffer.get()));
  if (!pairing_) {
    // The grid starts at the origin; its first frame is the last one at or before the first
    // source frame, so a stretch that starts late does not begin with a burst of copies.
    first_ = std::max<std::int64_t>(0, ((time - seconds(origin_)) * rate_).floor());
    pairing_.emplace(
        video::Scheduler(rate_, seconds(origin_) + Rational(first_) / rate_, tolerance_),
        threshold_);
  }
  if (!pairing_->follows(time)) return false;
  auto source = std::make_shared<Source>();
  source->rgb = converter_.to_rgb(buffer.get());
  source->buffer = std::move(buffer);
  if (duplicates_ && duplicates_->drop(source->rgb)) {
    pairing_->add_repeat(time, time + duration);
    return true;
  }
  video::Thumbnail thumbnail =
      pairing_->detecting() ? video::make_thumbnail(source->rgb) : video::Thumbnail{};
  pairing_->add(Held{std::move(source), time, duration}, std::move(thumbnail),
                [this](const auto&... pair) { return queue(pair...); });
  return true;
}

bool Stream::queue(const std::vector<Slot>& slots, const Held* previous, const Held& next) {
  for (const Slot& slot : slots)
    pending_.push_back({slot, previous ? previous->source : nullptr, next.source});
  return true;
}

void Stream::finish() {
  if (!pairing_) return;
  pairing_->finish([this](const auto&... pair) { return queue(pair...); });
}

BufferPtr Stream::interpolate(const Pending& pending) {
  Runtime& runtime = engine_.runtime(pending.next->rgb.width(), pending.next->rgb.height());
  if (prepared_[0] != pending.previous || prepared_[1] != pending.next) {
    if (prepared_[1] && prepared_[1] == pending.previous) {
      runtime.prepare_next(pending.next->rgb);  // the shared frame stays on the device
    } else {
      runtime.prepare_pair(pending.previous->rgb, pending.next->rgb);
    }
    prepared_[0] = pending.previous;
    prepared_[1] = pending.next;
  }
  return converter_.from_rgb(runtime.mid(pending.slot.t));
}

BufferPtr Stream::next(const Skip& skip) {
  while (!pending_.empty()) {
    const Pending pending = std::move(pending_.front());
    pending_.pop_front();
    const GstClockTime at = pts(pending.slot.index);
    const GstClockTime duration = pts(pending.slot.index + 1) - at;
    BufferPtr out;
    if (pending.slot.use == Slot::Use::blend) {
      if (skip(at, duration)) continue;
      out = interpolate(pending);
    } else {
      // A source frame or its repeat: a new buffer sharing the source's memory.
      const auto& source =
          pending.slot.use == Slot::Use::previous ? pending.previous : pending.next;
      out.reset(gst_buffer_copy(source->buffer.get()));
    }
    GstBuffer* buffer = out.get();
    GST_BUFFER_PTS(buffer) = at;
    GST_BUFFER_DTS(buffer) = GST_CLOCK_TIME_NONE;
    GST_BUFFER_DURATION(buffer) = duration;
    GST_BUFFER_OFFSET(buffer) = guint64(first_ + pending.slot.index);
    GST_BUFFER_OFFSET_END(buffer) = GST_BUFFER_OFFSET(buffer) + 1;
    if (discont_)
      GST_BUFFER_FLAG_SET(buffer, GST_BUFFER_FLAG_DISCONT);
    else
      GST_BUFFER_FLAG_UNSET(buffer, GST_BUFFER_FLAG_DISCONT);
    discont_ = false;
    return out;
  }
  return nullptr;
}

}  // namespace framecast::gst
