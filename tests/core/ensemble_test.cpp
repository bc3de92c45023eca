// The test-time ensemble (Engine with RuntimeOptions::ensemble): which passes it runs shows in
// its symmetries, which hold exactly because each pass is a deterministic run of the model.
#include <gtest/gtest.h>

#include "core/test_support.hpp"
#include "framecast/engine.hpp"
#include "framecast/error.hpp"
#include "io/test_pattern.hpp"

namespace framecast {
namespace {

// A size that is not a multiple of 16, so that turning the frames moves the padding to the
// other edges and the passes see different inputs.
constexpr int kWidth = 75, kHeight = 42;

Frame turned(const Frame& f) {
  Frame out(f.width(), f.height(), SampleDepth::u16);
  const Frame wide = f.converted(SampleDepth::u16);
  const std::size_t pixels = f.sample_count() / 3;
  for (std::size_t i = 0; i < pixels; ++i)
    for (std::size_t c = 0; c < 3; ++c) out.rgb16()[(pixels - 1 - i) * 3 + c] = wide.rgb16()[i * 3 + c];
  return out.converted(f.depth());
}

Engine engine(int passes) {
  RuntimeOptions options;
  options.precision = Precision::f32;
  options.ensemble = passes;
  return Engine(Model::load(resolve_model("fast")), {"cpu", -1}, options);
}

void expect_same(const Frame& a, const Frame& b, const char* what) {
  const auto d = testing::compare(a, b);
  EXPECT_EQ(d.max_error, 0) << what << " at " << testing::where(a, d.worst);
}

TEST(Ensemble, FourPassesAreSymmetricInTimeAndUnderTurning) {
  auto e = engine(4);
  const Frame f0 = io::test_pattern(kWidth, kHeight, 0.0f), f1 = io::test_pattern(kWidth, kHeight, 5.0f);
  const Frame mid = e.interpolate(f0, f1, 0.25f);
  // The four passes of (frame1, frame0, 1 - t) are those of (frame0, frame1, t) in another
  // order, and so are those of the turned pair, turned back.
  expect_same(e.interpolate(f1, f0, 0.75f), mid, "reversed pair");
  expect_same(turned(e.interpolate(turned(f0), turned(f1), 0.25f)), mid, "turned pair");
}

TEST(Ensemble, TwoPassesAreSymmetricUnderTurningAndReversingTogether) {
  auto e = engine(2);
  const Frame f0 = io::test_pattern(kWidth, kHeight, 0.0f), f1 = io::test_pattern(kWidth, kHeight, 5.0f);
  const Frame mid = e.interpolate(f0, f1, 0.25f);
  expect_same(turned(e.interpolate(turned(f1), turned(f0), 0.75f)), mid, "turned, reversed pair");
}

TEST(Ensemble, StaysCloseToOnePassAtEveryDepth) {
  for (SampleDepth depth : {SampleDepth::u8, SampleDepth::u16}) {
    const Frame f0 = io::test_pattern(kWidth, kHeight, 0.0f, depth);
    const Frame f1 = io::test_pattern(kWidth, kHeight, 5.0f, depth);
    const std::vector<float> ts = {0.25f, 0.5f};
    const auto single = engine(1).interpolate(f0, f1, ts);
    for (int passes : {2, 4}) {
      const auto averaged = engine(passes).interpolate(f0, f1, ts);
      ASSERT_EQ(averaged.size(), ts.size());
      for (std::size_t m = 0; m < ts.size(); ++m) {
        EXPECT_EQ(averaged[m].depth(), depth);
        // A trained model's passes agree to a few steps on a smooth moving pattern; the
        // average differs from one pass, but not by more than the passes differ.
        const auto d = testing::compare(averaged[m], single[m]);
        const double step = depth == SampleDepth::u8 ? 1.0 : 257.0;
        EXPECT_GT(d.mean_error, 0.0) << passes << " passes, t=" << ts[m];
        EXPECT_LT(d.mean_error, 2.0 * step) << passes << " passes, t=" << ts[m];
      }
    }
  }
}

TEST(Ensemble, OnlyOneTwoOrFourPasses) {
  for (int passes : {0, 3, 8}) {
    try {
      engine(passes);
      ADD_FAILURE() << passes << " passes accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::invalid_argument) << e.what();
    }
  }
}

// The host ensemble keeps the pair (and its turn) for prepare_next.
TEST(Ensemble, PrepareNextMatchesPreparingThePair) {
  RuntimeOptions options;
  options.precision = Precision::f32;
  options.ensemble = 2;
  Engine e(Model::load(resolve_model("fast")), {"cpu", -1}, options);
  testing::expect_prepare_next_matches_pair(*e.create_runtime(kWidth, kHeight), SampleDepth::u8);
}

// The CPU runtime on both paths, at both depths, and the Engine's interpolate_next.
TEST(CpuRuntime, PrepareNextMatchesPreparingThePair) {
  for (const char* backend : {"cpu", "cpu-reference"}) {
    for (SampleDepth depth : {SampleDepth::u8, SampleDepth::u16}) {
      SCOPED_TRACE(std::string(backend) + (depth == SampleDepth::u8 ? " 8-bit" : " 16-bit"));
      RuntimeOptions options;
      options.precision = Precision::f32;
      options.large_motion = true;
      Engine e(Model::load(resolve_model("fast")), {backend, -1}, options);
      testing::expect_prepare_next_matches_pair(*e.create_runtime(kWidth, kHeight), depth);
    }
  }
  Engine e(Model::load(resolve_model("slim")), {"cpu", -1}, {});
  const Frame a = io::test_pattern(kWidth, kHeight, 0.0f), b = io::test_pattern(kWidth, kHeight, 4.0f);
  const Frame c = io::test_pattern(kWidth, kHeight, 8.0f);
  const float t[] = {0.5f};
  e.interpolate(a, b, t);
  const Frame next = e.interpolate_next(c, t).front();
  expect_same(next, e.interpolate(b, c, t).front(), "interpolate_next");
}

// The default start_mids / take_mids (the CPU's), and the Engine's overlapped pairs: the
// frames of interpolate, oldest first; starting the pair after next before finishing one,
// or finishing with none started, is refused.
TEST(CpuRuntime, StartedMidsMatchMids) {
  RuntimeOptions options;
  options.precision = Precision::f32;
  Engine e(Model::load(resolve_model("slim")), {"cpu", -1}, options);
  testing::expect_started_mids_match_mids(*e.create_runtime(kWidth, kHeight), SampleDepth::u8);
  const Frame a = io::test_pattern(kWidth, kHeight, 0.0f);
  const Frame b = io::test_pattern(kWidth, kHeight, 4.0f);
  const Frame c = io::test_pattern(kWidth, kHeight, 8.0f);
  const float t[] = {0.5f};
  e.start(a, b, t);
  e.start_next(c, t);
  EXPECT_THROW(e.start_next(a, t), Error);
  const Frame ab = e.finish().front();
  const Frame bc = e.finish().front();
  EXPECT_THROW(e.finish(), Error);
  expect_same(ab, e.interpolate(a, b, t).front(), "the first started pair");
  expect_same(bc, e.interpolate(b, c, t).front(), "the second started pair");
}

}  // namespace
}  // namespace framecast
