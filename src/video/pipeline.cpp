#include "video/pipeline.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>

#include "video/bounded_queue.hpp"
#include "video/duplicates.hpp"
#include "video/ordered_pool.hpp"
#include "video/pairing.hpp"
#include "video/scene_cut.hpp"
#include "video/schedule.hpp"
#include "video/sink.hpp"
#include "video/source.hpp"

namespace framecast::video {
namespace {

using Clock = std::chrono::steady_clock;

// Few frames in flight: enough to keep every stage busy, little memory at 4K and 16 bits.
constexpr std::size_t decoded_capacity = 4;
// Pairs dealt out and not yet written: one running and one waiting per engine, and a few
// done for the encoder while an earlier pair is still running.
std::size_t pairs_in_flight(std::size_t engines) { return 2 * engines + 2; }

// A decoded frame with its scene-cut thumbnail, made on the decoding thread: the interpolating
// thread is the pipeline's pace on a GPU, and the thumbnail was its largest host cost.
struct DecodedFrame {
  SourceFrame source;
  Thumbnail thumbnail;  // empty without scene-cut detection
  bool repeat = false;  // a repeat of the last kept frame (--dedup): only its timing counts
};

struct OutputFrame {
  std::shared_ptr<const Frame> image;  // shared when a source frame is repeated
  std::int64_t index = 0;
};

struct HeldFrame {
  std::shared_ptr<const Frame> image;
  Rational time, duration;
};

struct Counters {
  std::atomic<std::int64_t> decoded{0}, made{0}, synthesized{0}, written{0}, cuts{0}, repeats{0};
  std::atomic<std::int64_t> decode_ns{0}, interpolate_ns{0}, encode_ns{0};
};

// Adds the lifetime of its scope to a stage's busy time.
class BusyTimer {
 public:
  explicit BusyTimer(std::atomic<std::int64_t>& total) : total_(total), start_(Clock::now()) {}
  ~BusyTimer() {
    total_ += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start_).count();
  }
  BusyTimer(const BusyTimer&) = delete;
  BusyTimer& operator=(const BusyTimer&) = delete;

 private:
  std::atomic<std::int64_t>& total_;
  Clock::time_point start_;
};

// Warnings raised on the stage threads, handed to the caller's thread.
class Messages {
 public:
  void add(const std::string& text) {
    std::lock_guard lock(mutex_);
    pending_.push_back(text);
  }
  void forward(const std::function<void(const std::string&)>& to) {
    std::vector<std::string> taken;
    {
      std::lock_guard lock(mutex_);
      taken.swap(pending_);
    }
    for (const auto& text : taken)
      if (to) to(text);
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> pending_;
};

// One pair's output frames, dealt to whichever engine is free.
struct PairJob {
  std::vector<Slot> slots;  // those in the output range
  std::vector<float> ts;    // the blended slots' positions
  std::shared_ptr<const Frame> previous, next;  // previous: null before the first frame
};
using PairFrames = std::vector<OutputFrame>;

// An engine with the second frame of the last pair it interpolated: a pair starting there
// needs one upload, not two.
struct Renderer {
  Engine* engine = nullptr;
  std::shared_ptr<const Frame> last_second;
};
using RenderPool = OrderedPool<Renderer, PairJob, PairFrames>;

// Whichever engine renders a pair, its frames are the same: each pair is interpolated whole,
// from its two frames, by one engine. Starts the pair's mids on the engine and returns what
// collects them (RenderPool starts the engine's next pair first when one is waiting).
RenderPool::Finish render_pair(Renderer& renderer, PairJob& job, Counters& counters) {
  const bool blends = !job.ts.empty();
  if (blends) {
    BusyTimer busy(counters.interpolate_ns);
    Engine& engine = *renderer.engine;
    if (job.previous == renderer.last_second) {
      engine.start_next(*job.next, job.ts);
    } else {
      engine.start(*job.previous, *job.next, job.ts);
    }
    renderer.last_second = job.next;
  }
  return [&counters, &engine = *renderer.engine, job = std::move(job), blends] {
    std::vector<Frame> mids;
    if (blends) {
      BusyTimer busy(counters.interpolate_ns);
      mids = engine.finish();
    }
    counters.synthesized += std::int64_t(job.ts.size());
    PairFrames frames;
    std::size_t m = 0;
    for (const Slot& s : job.slots) {
      std::shared_ptr<const Frame> image =
          s.use == Slot::Use::blend      ? std::make_shared<const Frame>(std::move(mids[m++]))
          : s.use == Slot::Use::previous ? job.previous
                                         : job.next;
      frames.push_back({std::move(image), s.index});
    }
    counters.made += std::int64_t(frames.size());
    return frames;
  };
}

// The middle stage: pairs source frames, decides cuts, deals the slots' frames out to the
// engines. Every source frame goes through the pairing, so slots and cut decisions are the
// whole run's; only the frames in `range` are made and handed on.
class Interpolator {
 public:
  Interpolator(RenderPool& pool, const VideoSource& source, Rational rate,
               std::optional<double> threshold, FrameRange range, Counters& counters,
               Messages& messages)
      : pool_(pool), name_(source.name()), range_(range), counters_(counters), messages_(messages),
        pairing_(Scheduler(rate, source.info().start,
                           snap_tolerance(source.info().time_base, source.info().frame_rate > Rational(0)
                                                                        ? source.info().frame_rate
                                                                        : rate)),
                 threshold) {}

  // Every frame of the range is dealt out: later source frames are not needed (read from the
  // decoding thread, which then stops).
  bool done() const noexcept { return done_; }

  // The source was moved to a keyframe (VideoSource::seek_before): its first frame is paired
  // onwards only, as in a whole run that reached it.
  void resume() noexcept { resuming_ = true; }

  // False when stopped.
  bool add(DecodedFrame decoded, std::stop_token stop) {
    if (done_) return true;  // decoded before the decoding thread saw done()
    SourceFrame& frame = decoded.source;
    if (!pairing_.follows(frame.time)) {
      if (!warned_order_)
        messages_.add(name_ + ": a frame at " + clock_text(frame.time) +
                      " does not follow its predecessor in time; such frames are dropped");
      warned_order_ = true;
      return true;
    }
    if (decoded.repeat && !pairing_.empty()) {
      pairing_.add_repeat(frame.time, frame.time + frame.duration);
      ++counters_.repeats;
      return true;
    }
    if (resuming_ && pairing_.empty()) pairing_.resume_at(frame.time);
    HeldFrame held{std::make_shared<const Frame>(std::move(frame.image)), frame.time, frame.duration};
    return pairing_.add(std::move(held), std::move(decoded.thumbnail),
                        [&](const auto&... pair) { return deal(pair..., stop); });
  }

  bool finish(std::stop_token stop) {
    if (done_) return true;
    if (pairing_.empty()) throw Error(ErrorKind::io, name_ + ": no video frame could be decoded");
    return pairing_.finish([&](const auto&... pair) { return deal(pair..., stop); });
  }

 private:
  bool deal(const std::vector<Slot>& slots, const HeldFrame* previous, const HeldFrame& next,
            std::stop_token stop) {
    counters_.cuts = pairing_.cuts();
    PairJob job;
    for (const Slot& s : slots) {
      if (!range_.contains(s.index)) continue;
      if (resuming_ && !checked_start_) check_seen_enough(s.index);
      job.slots.push_back(s);
      if (s.use == Slot::Use::blend) job.ts.push_back(s.t);
    }
    done_ = range_.end && pairing_.scheduler().emitted() >= *range_.end;
    if (job.slots.empty()) return true;
    job.previous = previous ? previous->image : nullptr;
    job.next = next.image;
    return pool_.submit(std::move(job), stop);
  }

  // A pair's cut decision looks back span - 1 frames: a segment's first pair must have them.
  void check_seen_enough(std::int64_t index) {
    checked_start_ = true;
    if (pairing_.detecting() && pairing_.pair_index() < SceneCutDetector::span - 1)
      throw Error(ErrorKind::io, name_ + ": its frames before output frame " + std::to_string(index) +
                                     " are too far apart for a segment to start there exactly");
  }

  RenderPool& pool_;
  std::string name_;
  FrameRange range_;
  std::atomic<bool> done_{false};
  Counters& counters_;
  Messages& messages_;
  FramePairing<HeldFrame> pairing_;
  bool warned_order_ = false;
  bool resuming_ = false;
  bool checked_start_ = false;
};

std::string rate_text(Rational rate) {
  if (rate.den() == 1) return rate.str();
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", rate.to_double());
  return text;
}

Rational output_rate(const RateRequest& request, const VideoSource& source) {
  if (!request.factor) return request.value;
  if (source.info().frame_rate <= Rational(0))
    throw Error(ErrorKind::invalid_argument,
                source.name() + ": its frame rate is unknown, so --factor cannot apply; use --fps");
  return source.info().frame_rate * request.value;
}

// The output frames of a whole run by the input's declared duration: what parts are cut from.
std::int64_t whole_output_frames(const VideoSource& source, Rational rate) {
  if (source.info().duration <= Rational(0))
    throw Error(ErrorKind::invalid_argument,
                source.name() + ": its duration is unknown, so it cannot be cut into segments");
  return output_frame_count(source.info().duration, rate);
}

// The output frames this run writes: all, the job's explicit part, or its segment of those
// the input's declared duration gives (every run of the job computes the same boundaries).
FrameRange output_range(const InterpolateJob& job, const VideoSource& source, Rational rate) {
  if (job.frames) return *job.frames;
  if (!job.segment) return {};
  return segment_frames(*job.segment, whole_output_frames(source, rate));
}

std::string part_text(const InterpolateJob& job, const FrameRange& range) {
  if (!job.segment && !job.frames) return "";
  std::string text = ", segment";
  if (job.segment) {
    text += ' ';
    text += std::to_string(job.segment->index);
    text += '/';
    text += std::to_string(job.segment->count);
  }
  text += " (output frames ";
  text += std::to_string(range.begin);
  text += " to ";
  text += range.end ? std::to_string(*range.end - 1) : std::string("the end");
  return text + ", video only)";
}

// Seconds from the input's start where output frame `index` is shown.
Rational output_time(const VideoSource& source, Rational rate, std::int64_t index) {
  return source.info().start + Rational(index) / rate;
}

// How far before a part's first output frame its decoding must start (seek_lead_frames
// source frames); none without a frame rate, and such a source is decoded from its start.
std::optional<Rational> seek_lead(const VideoSource& source) {
  if (source.info().frame_rate <= Rational(0)) return std::nullopt;
  return Rational(seek_lead_frames) / source.info().frame_rate;
}

std::string devices_text(std::size_t engines) {
  return engines > 1 ? " on " + std::to_string(engines) + " devices" : "";
}

void refuse_same_file(const InterpolateJob& job) {
  std::error_code ec;
  if (job.input != "-" && job.output != "-" && std::filesystem::equivalent(job.input, job.output, ec))
    throw Error(ErrorKind::invalid_argument, job.output + ": is the input; choose another output name");
}

// Which repeats a part drops depends on the frames before it, back to the start of a still.
void refuse_partial_dedup(const InterpolateJob& job) {
  if (job.dedup && (job.segment || job.frames))
    throw Error(ErrorKind::invalid_argument,
                "--dedup applies to whole runs only: which repeats a segment drops depends on "
                "frames before it");
}

}  // namespace

RateRequest parse_rate_request(const std::string& factor, const std::string& fps) {
  if (factor.empty() == fps.empty()) throw Error(ErrorKind::invalid_argument, "give --factor or --fps");
  return fps.empty() ? RateRequest{parse_rational(factor, "--factor"), true}
                     : RateRequest{parse_frame_rate(fps, "--fps"), false};
}

Progress run_interpolation(const InterpolateJob& job, const std::vector<Engine*>& engines,
                           const PipelineHooks& hooks) {
  if (engines.empty()) throw Error(ErrorKind::internal, "run_interpolation without an engine");
  refuse_same_file(job);
  refuse_partial_dedup(job);
  // Used on the decoding thread, in decoding order, like the thumbnails.
  std::optional<DuplicateFilter> duplicates;
  if (job.dedup) duplicates.emplace(*job.dedup);
  const Engine& engine = *engines.front();
  Messages messages;
  const Warn warn = [&](const std::string& text) { messages.add(text); };
  VideoSource source(job.input, job.strict, warn, hooks.cancelled);
  const SourceInfo& in = source.info();
  const Rational rate = output_rate(job.rate, source);
  const FrameRange range = output_range(job, source, rate);
  const bool part = job.segment || job.frames;
  VideoSink sink(job.output, source, rate, job.encoder, warn, hooks.cancelled, part);
  if (hooks.started)
    hooks.started(source.name() + ": " + in.codec + " " + std::to_string(in.width) + "x" +
                  std::to_string(in.height) + " " + av_get_pix_fmt_name(in.pixel_format) + " " +
                  rate_text(in.frame_rate) + " fps -> " + (job.output == "-" ? "stdout" : job.output) +
                  ": " + sink.description() + " " + rate_text(rate) + " fps, " + engine.backend_name() +
                  " backend" + devices_text(engines.size()) +
                  (job.scene_threshold ? "" : ", no scene detection") + part_text(job, range));
  messages.forward(hooks.warning);

  Counters counters;
  BoundedQueue<DecodedFrame> decoded(decoded_capacity);
  std::vector<Renderer> renderers;
  for (Engine* e : engines) renderers.push_back({e, nullptr});
  RenderPool pool(
      std::move(renderers),
      [&](Renderer& renderer, PairJob& pair) { return render_pair(renderer, pair, counters); },
      pairs_in_flight(engines.size()));
  Interpolator interpolator(pool, source, rate, job.scene_threshold, range, counters, messages);
  if (const auto lead = seek_lead(source);
      range.begin > 0 && lead && source.seek_before(output_time(source, rate, range.begin) - *lead))
    interpolator.resume();

  std::mutex mutex;
  std::condition_variable wake;
  std::exception_ptr failure;
  int finished = 0;
  // Each stage records the first error of the job and wakes the monitoring loop below.
  const auto stage = [&](auto body) {
    return [&, body](std::stop_token stop) {
      try {
        body(stop);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
      }
      std::lock_guard lock(mutex);
      ++finished;
      wake.notify_all();
    };
  };

  const auto start = Clock::now();
  std::jthread decode_thread(stage([&](std::stop_token stop) {
    // Both ends: a stopped job must not wait on a read or a write (the decode thread also
    // writes copied packets).
    std::stop_callback abort(stop, [&] {
      source.abort();
      sink.abort();
    });
    while (!interpolator.done()) {
      std::optional<SourceFrame> frame;
      Thumbnail thumbnail;
      bool repeat = false;
      {
        BusyTimer busy(counters.decode_ns);
        frame = source.next([&](AVPacket& packet) { sink.copy(packet); });
        if (frame && duplicates) repeat = duplicates->drop(frame->image);
        if (frame && job.scene_threshold && !repeat) thumbnail = make_thumbnail(frame->image);
      }
      if (!frame) break;
      ++counters.decoded;
      if (!decoded.push({std::move(*frame), std::move(thumbnail), repeat}, stop)) return;
    }
    decoded.close();
  }));
  std::jthread interpolate_thread(stage([&](std::stop_token stop) {
    while (auto frame = decoded.pop(stop))
      if (!interpolator.add(std::move(*frame), stop)) return;
    if (!stop.stop_requested() && interpolator.finish(stop)) pool.close();
  }));
  std::jthread encode_thread(stage([&](std::stop_token stop) {
    while (auto frames = pool.next(stop))
      for (const OutputFrame& frame : *frames) {
        BusyTimer busy(counters.encode_ns);
        sink.write(*frame.image, frame.index);
        ++counters.written;
      }
    if (stop.stop_requested()) return;
    BusyTimer busy(counters.encode_ns);
    sink.finish();
  }));

  const std::int64_t whole = in.duration > Rational(0) ? output_frame_count(in.duration, rate) : 0;
  const std::int64_t estimate = range.end ? *range.end - range.begin : whole - range.begin;
  const auto snapshot = [&](bool complete) {
    Progress p;
    p.done = counters.written;
    p.total = expected_total(estimate, p.done, complete);
    p.finished = complete;
    p.elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
    p.decode = {counters.decoded, double(counters.decode_ns) * 1e-9};
    // The engines work side by side: the stage's rate is its frames over one engine's busy time.
    p.interpolate = {counters.made, double(counters.interpolate_ns) * 1e-9 / double(engines.size())};
    p.encode = {counters.written, double(counters.encode_ns) * 1e-9};
    p.synthesized = counters.synthesized;
    p.scene_cuts = counters.cuts;
    p.repeats = counters.repeats;
    p.damaged = source.damaged_frames();
    return p;
  };

  bool cancelled = false;
  auto last_report = start;
  for (;;) {
    {
      std::unique_lock lock(mutex);
      if (wake.wait_for(lock, std::chrono::milliseconds(100), [&] { return finished == 3 || failure; })) break;
    }
    messages.forward(hooks.warning);
    if (hooks.cancelled && hooks.cancelled()) {
      cancelled = true;
      break;
    }
    if (hooks.progress && Clock::now() - last_report >= std::chrono::seconds(1)) {
      last_report = Clock::now();
      hooks.progress(snapshot(false));
    }
  }
  for (std::jthread* t : {&decode_thread, &interpolate_thread, &encode_thread}) t->request_stop();
  for (std::jthread* t : {&decode_thread, &interpolate_thread, &encode_thread}) t->join();
  messages.forward(hooks.warning);
  // A stage that failed because of the interruption (a write cut short) is not the news.
  if (cancelled || (hooks.cancelled && hooks.cancelled())) throw Error(ErrorKind::cancelled, "interrupted");
  if (failure) std::rethrow_exception(failure);
  sink.commit();
  return snapshot(true);
}

SegmentPlan plan_segments(const std::string& input, const RateRequest& rate_request,
                          std::int64_t count) {
  VideoSource source(input, false, [](const std::string&) {});
  SegmentPlan plan;
  plan.rate = output_rate(rate_request, source);
  plan.total = whole_output_frames(source, plan.rate);
  plan.key_frames = source.scan_key_frames();
  // A part starting at the first output frame at least the seek lead after a key frame
  // decodes from that key frame.
  std::vector<std::int64_t> cheap_starts;
  if (const auto lead = seek_lead(source))
    for (const Rational& key : plan.key_frames) {
      const Rational first = (key + *lead - source.info().start) * plan.rate;
      const std::int64_t start = first.floor() + (Rational(first.floor()) == first ? 0 : 1);  // ceil
      if (start > 0 && (cheap_starts.empty() || start > cheap_starts.back())) cheap_starts.push_back(start);
    }
  plan.parts = plan_parts(plan.total, count, cheap_starts);
  return plan;
}

}  // namespace framecast::video
