#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>

#include "framecast/error.hpp"
#include "io/test_pattern.hpp"
#include "video/duplicates.hpp"

namespace framecast::video {
namespace {

constexpr int W = 160, H = 90;

// `frame` with every sample moved by up to `amplitude` levels, as an encoder leaves a
// repeated picture.
Frame noisy(const Frame& frame, int amplitude, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> noise(-amplitude, amplitude);
  Frame out = frame;
  for (auto& s : out.rgb8()) s = std::uint8_t(std::clamp(int(s) + noise(rng), 0, 255));
  return out;
}

// `frame` with `delta` added to the pixels of a rectangle (a local change in a still picture).
Frame patched(const Frame& frame, int x0, int y0, int w, int h, int delta) {
  Frame out = frame;
  for (int y = y0; y < y0 + h; ++y)
    for (int x = x0; x < x0 + w; ++x)
      for (int c = 0; c < 3; ++c) {
        auto& s = out.rgb8()[(std::size_t(y) * frame.width() + x) * 3 + c];
        s = std::uint8_t(std::clamp(int(s) + delta, 0, 255));
      }
  return out;
}

std::vector<bool> drops(DuplicateFilter& filter, const std::vector<Frame>& frames) {
  std::vector<bool> dropped;
  for (const Frame& f : frames) dropped.push_back(filter.drop(f));
  return dropped;
}

TEST(Duplicates, RepeatsOnTwosAreDroppedAndDrawnFramesKept) {
  std::vector<Frame> frames;
  for (int i = 0; i < 4; ++i) {
    const Frame drawn = io::test_pattern(W, H, 3.0f * float(i));
    frames.push_back(drawn);
    frames.push_back(noisy(drawn, 3, unsigned(i)));  // its repeat, re-encoded
  }
  DuplicateFilter filter({});
  EXPECT_EQ(drops(filter, frames), (std::vector<bool>{false, true, false, true, false, true, false, true}));
  EXPECT_EQ(filter.dropped(), 4);
}

// A change confined to one 16x16 block of an otherwise still picture (a blinking eye), or to
// the 16x10 corner block of the last block row, keeps the frame; the same change spread
// thinly over the picture does not.
TEST(Duplicates, OneChangedBlockKeepsAFrame) {
  const Frame still = io::test_pattern(W, H, 0.0f);
  for (const auto& [x, y, h] : {std::tuple{64, 32, 16}, std::tuple{W - 16, H - 10, 10}}) {
    DuplicateFilter filter({});
    EXPECT_FALSE(filter.drop(still));
    EXPECT_FALSE(filter.drop(patched(still, x, y, 16, h, 40))) << x << "," << y;
  }
  DuplicateFilter filter({});
  EXPECT_FALSE(filter.drop(still));
  EXPECT_TRUE(filter.drop(patched(still, 0, 0, W, H, 2)));
}

// A drift too slow to see between neighbours adds up against the last kept frame.
TEST(Duplicates, ASlowDriftIsKeptOnceItAddsUp) {
  const Frame still = patched(io::test_pattern(W, H, 0.0f), 0, 0, W, H, -20);
  std::vector<Frame> frames;
  for (int i = 0; i < 6; ++i) frames.push_back(patched(still, 0, 0, W, H, 2 * i));
  DuplicateFilter filter({5.0, 10});
  // Against the last kept: 2 and 4 levels are repeats, 6 is not; then 2 and 4 again.
  EXPECT_EQ(drops(filter, frames), (std::vector<bool>{false, true, true, false, true, true}));
}

TEST(Duplicates, AtMostMaxRunRepeatsInARowAreDropped) {
  const Frame still = io::test_pattern(W, H, 0.0f);
  const std::vector<Frame> frames(7, still);
  DuplicateFilter twos({6.0, 1});
  EXPECT_EQ(drops(twos, frames), (std::vector<bool>{false, true, false, true, false, true, false}));
  DuplicateFilter threes({6.0, 2});
  EXPECT_EQ(drops(threes, frames), (std::vector<bool>{false, true, true, false, true, true, false}));
}

TEST(Duplicates, SixteenBitFramesDecideAsTheirEightBitSelves) {
  const Frame a = io::test_pattern(W, H, 0.0f);
  const std::vector<Frame> frames = {a, noisy(a, 4, 1), patched(a, 40, 40, 16, 16, 30),
                                     io::test_pattern(W, H, 5.0f), noisy(io::test_pattern(W, H, 5.0f), 2, 2)};
  DuplicateFilter eight({});
  DuplicateFilter sixteen({});
  for (const Frame& f : frames) EXPECT_EQ(eight.drop(f), sixteen.drop(f.converted(SampleDepth::u16)));
  EXPECT_EQ(eight.dropped(), 2);
}

// Odd sizes: the last half-resolution row and column average the pixels they have, and a
// change there counts.
TEST(Duplicates, OddSizesSeeTheirLastRowAndColumn) {
  const Frame still = io::test_pattern(37, 21, 0.0f);
  DuplicateFilter filter({});
  EXPECT_FALSE(filter.drop(still));
  EXPECT_TRUE(filter.drop(noisy(still, 2, 3)));
  EXPECT_FALSE(filter.drop(patched(still, 36, 0, 1, 21, 120)));
  EXPECT_FALSE(filter.drop(still));
  EXPECT_FALSE(filter.drop(patched(still, 0, 20, 37, 1, 120)));
  EXPECT_FALSE(filter.drop(io::test_pattern(38, 21, 0.0f)));  // another size: kept
}

TEST(Duplicates, BadSettingsAreRefused) {
  EXPECT_THROW(DuplicateFilter({0.0, 2}), Error);
  EXPECT_THROW(DuplicateFilter({6.0, 0}), Error);
}

}  // namespace
}  // namespace framecast::video
