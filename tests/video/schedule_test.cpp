#include <gtest/gtest.h>

#include "framecast/error.hpp"
#include "video/schedule.hpp"

namespace framecast::video {
namespace {

using Use = Slot::Use;

// Feeds frames at `times` (then the end) and returns every slot in order.
std::vector<Slot> schedule(Scheduler& s, const std::vector<Rational>& times, Rational end,
                           const std::vector<bool>& cuts = {}) {
  std::vector<Slot> all;
  for (std::size_t i = 0; i < times.size(); ++i) {
    const bool cut = i < cuts.size() && cuts[i];
    for (const Slot& slot : s.add(times[i], cut)) all.push_back(slot);
  }
  for (const Slot& slot : s.finish(end)) all.push_back(slot);
  return all;
}

std::vector<Rational> cfr(Rational rate, int count, Rational start = Rational(0)) {
  std::vector<Rational> t;
  for (int i = 0; i < count; ++i) t.push_back(start + Rational(i) / rate);
  return t;
}

TEST(Scheduler, DoublesAConstantRateClip) {
  const Rational in(24000, 1001);
  Scheduler s(in * Rational(2), Rational(0), Rational(0));
  const auto slots = schedule(s, cfr(in, 4), Rational(4) / in);
  ASSERT_EQ(slots.size(), 8u);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    EXPECT_EQ(slots[i].index, std::int64_t(i));
    if (i % 2 == 0) {
      EXPECT_EQ(slots[i].use, Use::next) << i;  // the source frame itself
    } else if (i < 7) {
      EXPECT_EQ(slots[i].use, Use::blend) << i;
      EXPECT_FLOAT_EQ(slots[i].t, 0.5f);
    }
  }
  EXPECT_EQ(slots[7].use, Use::previous);  // after the last frame: held for its duration
}

TEST(Scheduler, NonIntegerFactorUsesFractionalPositions) {
  Scheduler s(Rational(60), Rational(0), Rational(0));
  const auto slots = schedule(s, cfr(Rational(24), 3), Rational(3, 24));
  // 24 -> 60 fps: outputs at k/60; source frames at j/24 = 2.5k/60.
  ASSERT_EQ(slots.size(), 8u);
  EXPECT_EQ(slots[0].use, Use::next);
  EXPECT_FLOAT_EQ(slots[1].t, 0.4f);
  EXPECT_FLOAT_EQ(slots[2].t, 0.8f);
  EXPECT_FLOAT_EQ(slots[3].t, 0.2f);
  EXPECT_FLOAT_EQ(slots[4].t, 0.6f);
  EXPECT_EQ(slots[5].use, Use::next);  // 5/60 = 2/24 exactly
}

TEST(Scheduler, NtscToSixtyKeepsTheDurationOverAnHour) {
  const Rational in(24000, 1001);
  const int frames = 24 * 3600;
  Scheduler s(Rational(60), Rational(0), Rational(0));
  std::int64_t count = 0;
  for (const Rational& t : cfr(in, frames)) count += std::int64_t(s.add(t, false).size());
  count += std::int64_t(s.finish(Rational(frames) / in).size());
  // 86400 frames of 1001/24000 s = 3603.6 s; at 60 fps exactly 216216 frames.
  EXPECT_EQ(count, 216216);
}

TEST(Scheduler, VariableFrameRateUsesRealTimestamps) {
  Scheduler s(Rational(10), Rational(0), Rational(0));
  // Frames at 0, 0.1, 0.4 (a 0.3 s gap), 0.5.
  const auto slots = schedule(s, {Rational(0), Rational(1, 10), Rational(4, 10), Rational(5, 10)},
                              Rational(7, 10));
  ASSERT_EQ(slots.size(), 7u);
  EXPECT_EQ(slots[1].use, Use::next);
  EXPECT_EQ(slots[2].use, Use::blend);
  EXPECT_FLOAT_EQ(slots[2].t, 1.0f / 3.0f);  // 0.2 between 0.1 and 0.4
  EXPECT_FLOAT_EQ(slots[3].t, 2.0f / 3.0f);
  EXPECT_EQ(slots[4].use, Use::next);
  EXPECT_EQ(slots[5].use, Use::next);
  EXPECT_EQ(slots[6].use, Use::previous);  // held for the last frame's duration
}

TEST(Scheduler, ACutRepeatsTheFrameBeforeIt) {
  Scheduler s(Rational(48), Rational(0), Rational(0));
  const auto slots = schedule(s, cfr(Rational(24), 3), Rational(3, 24), {false, true, false});
  ASSERT_EQ(slots.size(), 6u);
  EXPECT_EQ(slots[1].use, Use::previous);  // across the cut between frames 0 and 1
  EXPECT_EQ(slots[2].use, Use::next);
  EXPECT_EQ(slots[3].use, Use::blend);  // no cut between frames 1 and 2
}

TEST(Scheduler, HoldsTheFirstFrameWhenTheSourceStartsLate) {
  Scheduler s(Rational(10), Rational(0), Rational(0));
  const auto first = s.add(Rational(25, 100), false);
  ASSERT_EQ(first.size(), 3u);  // 0, 0.1, 0.2 are before the first frame
  for (const Slot& slot : first) EXPECT_EQ(slot.use, Use::next);
}

TEST(Scheduler, SnapsToTimestampsRoundedByTheContainer) {
  // 23.976 fps in Matroska: timestamps rounded to 1 ms (0, 42, 83, 125).
  const Rational ms(1, 1000);
  Scheduler s(Rational(48000, 1001), Rational(0), snap_tolerance(ms, Rational(24000, 1001)));
  const auto slots = schedule(s, {Rational(0), Rational(42) * ms, Rational(83) * ms, Rational(125) * ms},
                              Rational(167) * ms);
  ASSERT_EQ(slots.size(), 8u);
  for (std::size_t i = 0; i < 7; i += 2) EXPECT_EQ(slots[i].use, Use::next) << i;
  for (std::size_t i = 1; i < 7; i += 2) EXPECT_EQ(slots[i].use, Use::blend) << i;
}

TEST(Scheduler, RejectsTimestampsThatDoNotIncrease) {
  Scheduler s(Rational(48), Rational(0), Rational(0));
  s.add(Rational(1), false);
  EXPECT_THROW(s.add(Rational(1), false), Error);
}

TEST(Schedule, OutputFrameCountRoundsToTheNearestFrame) {
  EXPECT_EQ(output_frame_count(Rational(2002, 1000), Rational(60)), 120);  // 120.12
  EXPECT_EQ(output_frame_count(Rational(48 * 1001, 24000), Rational(48000, 1001)), 96);
  EXPECT_EQ(output_frame_count(Rational(1, 1000), Rational(24)), 1);
}

TEST(Schedule, SnapToleranceIsOneTickUnlessTicksAreCoarse) {
  EXPECT_EQ(snap_tolerance(Rational(1, 1000), Rational(24)), Rational(1, 1000));
  EXPECT_EQ(snap_tolerance(Rational(1, 90000), Rational(60)), Rational(1, 90000));
  EXPECT_EQ(snap_tolerance(Rational(1001, 24000), Rational(24000, 1001)), Rational(0));  // y4m
}

TEST(Schedule, OutputClockHoldsTheStartExactly) {
  const Rational rate(48000, 1001);
  const OutputClock zero = make_output_clock(rate, Rational(0), false);
  EXPECT_EQ(zero.time_base, Rational(1001, 48000));
  EXPECT_EQ(zero.pts(7), 7);
  // Audio priming moved the video to 0.023 s: a finer base holds both.
  const OutputClock late = make_output_clock(rate, Rational(23, 1000), false);
  EXPECT_EQ(Rational(late.pts(0)) * late.time_base, Rational(23, 1000));
  EXPECT_EQ(Rational(late.pts(5)) * late.time_base, Rational(23, 1000) + Rational(5) / rate);
  EXPECT_EQ(late.ticks_per_frame(), (Rational(1) / rate / late.time_base).round());
  // yuv4mpeg stores only a rate: the base must be 1/rate.
  EXPECT_EQ(make_output_clock(rate, Rational(23, 1000), true).time_base, Rational(1001, 48000));
}

// Found by fuzz_video_source (a 10 s timeout): a Matroska frame at 1,140,893.76 s after one at
// 0, at 2000 output fps, made add() build 2.3 billion slots (36 GB) before any was rendered.
// A gap of more than max_slots_per_gap output frames is now an error, after a frame or at the end.
TEST(Scheduler, TimestampJumpsBeyondTheGapLimitAreDamage) {
  Scheduler s(Rational(60), Rational(0), Rational(0));
  s.add(Rational(0), false);
  const Rational limit = Rational(max_slots_per_gap) / Rational(60);
  EXPECT_EQ(std::int64_t(s.add(limit, false).size()), max_slots_per_gap);
  try {
    s.add(limit + limit + Rational(1), false);
    FAIL() << "a jump past the limit was filled";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::io);
    EXPECT_NE(std::string(e.what()).find("timestamps are damaged"), std::string::npos) << e.what();
  }
  Scheduler end(Rational(60), Rational(0), Rational(0));
  end.add(Rational(0), false);
  EXPECT_THROW(end.finish(Rational(1140893)), Error);
}

// A segment starts decoding at a keyframe: resumed after source frame j, the scheduler makes
// exactly the slots a whole run makes after that frame, for factors that do and do not divide,
// a start off zero, and Matroska's millisecond timestamps that snap to the output clock.
TEST(Scheduler, ResumingAfterAFrameMatchesTheWholeRun) {
  struct Case {
    Rational in, out, start, tolerance;
  };
  const Rational ntsc(24000, 1001);
  std::vector<Case> cases = {{Rational(24), Rational(48), Rational(0), Rational(0)},
                             {Rational(24), Rational(60), Rational(1, 3), Rational(0)},
                             {ntsc, Rational(60000, 1001), Rational(0), Rational(0)},
                             {Rational(30), Rational(24), Rational(0), Rational(0)}};
  // 23.976 fps stored in milliseconds: frames land up to 0.5 ms off the exact clock.
  cases.push_back({ntsc, ntsc * Rational(2), Rational(0), Rational(1, 1000)});
  for (const Case& c : cases) {
    std::vector<Rational> times = cfr(c.in, 30, c.start);
    if (c.tolerance > Rational(0))
      for (Rational& t : times) t = Rational((t * Rational(1000)).round(), 1000);
    const Rational end = times.back() + Rational(1) / c.in;
    Scheduler whole(c.out, c.start, c.tolerance);
    std::vector<std::vector<Slot>> per_frame;
    for (const Rational& t : times) per_frame.push_back(whole.add(t, false));
    const auto tail = whole.finish(end);
    for (std::size_t j = 0; j + 1 < times.size(); ++j) {
      SCOPED_TRACE("resumed after frame " + std::to_string(j) + " at " + c.out.str() + " fps");
      Scheduler part(c.out, c.start, c.tolerance);
      part.resume_after(times[j]);
      for (std::size_t k = j + 1; k < times.size(); ++k) {
        const auto slots = part.add(times[k], false);
        ASSERT_EQ(slots.size(), per_frame[k].size()) << k;
        for (std::size_t i = 0; i < slots.size(); ++i) {
          EXPECT_EQ(slots[i].index, per_frame[k][i].index);
          EXPECT_EQ(slots[i].use, per_frame[k][i].use);
          EXPECT_EQ(slots[i].t, per_frame[k][i].t);
        }
      }
      EXPECT_EQ(part.finish(end).size(), tail.size());
    }
  }
}

}  // namespace
}  // namespace framecast::video
