// The fast path's per-pixel passes (ops_fast.hpp) against the reference ops they replace, on
// real-looking frames and flows (several pixels with sub-pixel parts, masks across (0, 1)),
// at sizes that are not multiples of 16, odd ones included.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "backends/cpu/ops_fast.hpp"
#include "backends/cpu/ops_reference.hpp"
#include "core/test_support.hpp"
#include "io/test_pattern.hpp"

namespace framecast::cpu {
namespace {

// Float passes may differ from the reference by summation order only: 1e-5 relative (to the
// value, or 1 for values below 1), with the first failing value named.
void expect_close(const Planes& fast, const Planes& ref, const std::string& what) {
  ASSERT_EQ(fast.channels, ref.channels) << what;
  ASSERT_EQ(fast.height, ref.height) << what;
  ASSERT_EQ(fast.width, ref.width) << what;
  for (std::size_t i = 0; i < ref.values.size(); ++i) {
    const float tol = 1e-5f * std::max(1.0f, std::abs(ref.values[i]));
    ASSERT_NEAR(fast.values[i], ref.values[i], tol)
        << what << ": plane " << i / ref.plane_size() << ", y " << (i % ref.plane_size()) / ref.width
        << ", x " << i % ref.width;
  }
}

// Frames: at most 1 LSB anywhere, and on at most 1 sample in 1000.
void expect_frames_close(const Frame& fast, const Frame& ref, const std::string& what) {
  ASSERT_EQ(fast.depth(), ref.depth()) << what;
  const auto diff = testing::compare(fast, ref);
  EXPECT_LE(diff.max_error, 1) << what << " at " << testing::where(ref, diff.worst);
  std::size_t off = 0;
  for (std::size_t i = 0; i < ref.sample_count(); ++i) off += fast.sample(i) != ref.sample(i);
  EXPECT_LE(double(off), 1e-3 * double(ref.sample_count())) << what;
}

struct Scene {
  int w, h, pw, ph;  // real and padded sizes
  Planes imgs;
};

Scene scene(int w, int h, SampleDepth depth = SampleDepth::u8) {
  Scene s{w, h, padded_size(w), padded_size(h), {}};
  frames_to_planes(io::test_pattern(w, h, 0.0f, depth), io::test_pattern(w, h, 5.0f, depth), s.imgs);
  return s;
}

// A [5, height, width] field: flows of a few `unit`s (smooth waves, a step edge, a sub-pixel
// jitter), reaching past the frame's border, and mask logits from -5 to 5.
Planes flow_field(int width, int height, float unit, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> jitter(-0.45f, 0.45f);
  Planes f(5, height, width);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const float u = float(x) / float(width), v = float(y) / float(height);
      const float edge = x > width / 2 ? 1.5f : -1.0f;
      f.at(0, y, x) = unit * (2.5f * std::sin(6.0f * v) + edge + jitter(rng));
      f.at(1, y, x) = unit * (1.7f * std::cos(5.0f * u) - edge + jitter(rng));
      f.at(2, y, x) = unit * (-3.0f * u + 1.2f + jitter(rng));
      f.at(3, y, x) = unit * (2.0f * v * edge + jitter(rng));
      f.at(4, y, x) = 10.0f * (u - 0.5f) + 4.0f * jitter(rng);
    }
  return f;
}

// Sizes that are not multiples of 16: odd, tiny and wide; one and two columns, where the
// warps' tap pairs (ops_fast.cpp: RowTaps) have no room or just enough.
const std::pair<int, int> kSizes[] = {{83, 47}, {101, 61}, {18, 9}, {161, 33}, {1, 7}, {2, 5}};

TEST(FastOps, FramesToPlanesIsExact) {
  for (SampleDepth depth : {SampleDepth::u8, SampleDepth::u16}) {
    const Frame f0 = io::test_pattern(83, 47, 0.0f, depth), f1 = io::test_pattern(83, 47, 3.0f, depth);
    Planes fast_imgs, ref_imgs;
    fast::frames_to_planes(f0, f1, fast_imgs);
    frames_to_planes(f0, f1, ref_imgs);
    EXPECT_EQ(fast_imgs.values, ref_imgs.values);
  }
}

TEST(FastOps, UpsampleFlowAndResidualMatchReference) {
  for (auto [w, h] : kSizes) {
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
    const Scene s = scene(w, h);
    // block0's output (x8), refinement blocks' (x 2 * scale), the large-motion pass's 1/8
    // output (x16), computed on the frames padded to 32: it may cover more than the grid
    for (int factor : {16, 8, 4, 2}) {
      const int cw = factor == 16 ? round_up(w, 32) / 16 : s.pw / factor;
      const int ch = factor == 16 ? round_up(h, 32) / 16 : s.ph / factor;
      const Planes coarse = flow_field(cw, ch, 0.4f, 11);
      Planes a, b;
      fast::upsample_flow(coarse, s.pw, s.ph, float(factor), a);
      upsample_flow(coarse, s.pw, s.ph, float(factor), b);
      expect_close(a, b, "upsample_flow x" + std::to_string(factor));
      Planes fa = flow_field(s.pw, s.ph, 3.0f, 12), fb = fa;
      fast::add_flow_residual(coarse, float(factor), fa);
      add_flow_residual(coarse, float(factor), fb);
      expect_close(fa, fb, "add_flow_residual x" + std::to_string(factor));
    }
  }
}

TEST(FastOps, ConvexResidualMatchesReference) {
  std::mt19937 rng(25);
  std::uniform_real_distribution<float> dist(-6.0f, 6.0f);
  for (auto [w, h] : kSizes) {
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
    const int pw = padded_size(w), ph = padded_size(h);
    for (int factor : {8, 4, 2}) {  // convex models' refinement blocks at scales 4, 2 and 1
      const Planes coarse = flow_field(pw / factor, ph / factor, 0.4f, 23);
      Planes logits(9 * factor * factor, coarse.height, coarse.width);
      for (auto& v : logits.values) v = dist(rng);
      Planes fa = flow_field(pw, ph, 3.0f, 24), fb = fa;
      fast::add_convex_residual(coarse, logits, factor, fa);
      add_convex_residual(coarse, logits, factor, fb);
      expect_close(fa, fb, "add_convex_residual x" + std::to_string(factor));
    }
  }
}

TEST(FastOps, RefinementInputMatchesReference) {
  for (auto [w, h] : kSizes) {
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
    const Scene s = scene(w, h);
    const Planes field = flow_field(s.pw, s.ph, 3.0f, 21);
    for (int scale : {4, 2, 1})
      for (bool with_t : {false, true}) {
        Planes a, b;
        fast::refinement_input(s.imgs, field, with_t, 0.3f, scale, a);
        refinement_input(s.imgs, field, with_t, 0.3f, scale, b);
        expect_close(a, b, "scale " + std::to_string(scale) + (with_t ? " with t" : ""));
      }
  }
}

TEST(FastOps, RefinePrepMatchesReference) {
  for (auto [w, h] : kSizes) {
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
    const Scene s = scene(w, h);
    const Planes coarse = flow_field(s.pw / 8, s.ph / 8, 0.4f, 31);
    const Planes coarse16 = flow_field(round_up(w, 32) / 16, round_up(h, 32) / 16, 0.3f, 33);
    const Planes full = flow_field(s.pw, s.ph, 3.0f, 32);
    for (const FlowField& flow : {FlowField(coarse), FlowField(coarse16, 16), FlowField(full, 1)}) {
      Planes a, b;
      fast::refine_prep(flow, s.imgs, a);
      refine_prep(flow, s.imgs, b);
      expect_close(a, b, "refine_prep, field factor " + std::to_string(flow.factor));
    }
  }
}

// The large-motion pass's sums: the same warps, summed in double row by row.
TEST(FastOps, WarpDisagreementMatchesReference) {
  for (auto [w, h] : kSizes) {
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
    const Scene s = scene(w, h);
    const int pw32 = round_up(w, 32), ph32 = round_up(h, 32);
    const Planes coarse8 = flow_field(s.pw / 8, s.ph / 8, 0.4f, 41);
    const Planes coarse16 = flow_field(pw32 / 16, ph32 / 16, 0.3f, 42);  // covers more
    const Planes full = flow_field(s.pw, s.ph, 3.0f, 43);
    for (const FlowField& flow : {FlowField(coarse8), FlowField(coarse16, 16), FlowField(full, 1)}) {
      const double want = warp_disagreement(flow, s.imgs);
      EXPECT_GT(want, 0.0);
      EXPECT_NEAR(fast::warp_disagreement(flow, s.imgs), want, 1e-6 * want)
          << "field factor " << flow.factor;
    }
  }
}

TEST(FastOps, RefineOutMatchesReference) {
  const Model model = Model::load(testing::golden_dir() / "tfact2_37x21" / "model.json");
  const int r = model.shape().refine_width;
  std::mt19937 rng(41);
  std::uniform_real_distribution<float> dist(-1.5f, 1.5f);
  for (auto [w, h] : {std::pair{21, 12}, std::pair{1, 1}, std::pair{2, 5}, std::pair{40, 3}}) {
    Planes features(r, h, w);
    for (int c = 0; c < r; ++c)  // smooth ramps plus noise, different per channel
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          features.at(c, y, x) = std::sin(0.3f * float(x * (c + 1)) + float(y)) + 0.3f * dist(rng);
    Planes a, b;
    fast::refine_out(features, model, a);
    refine_out(features, model, b);
    expect_close(a, b, "refine_out " + std::to_string(w) + "x" + std::to_string(h));
  }
}

TEST(FastOps, FlowOutMatchesReferenceWithinOneLsb) {
  for (auto [w, h] : kSizes) {
    for (SampleDepth depth : {SampleDepth::u8, SampleDepth::u16}) {
      const Scene s = scene(w, h, depth);
      const Planes coarse = flow_field(s.pw / 8, s.ph / 8, 0.4f, 51);
      const Planes full = flow_field(s.pw, s.ph, 3.0f, 52);
      Planes residual = flow_field(s.pw / 4, s.ph / 4, 0.1f, 53);  // 5 planes: use the first 3
      residual.reshape(3, residual.height, residual.width);
      for (const FlowField& flow : {FlowField(coarse), FlowField(full, 1)})
        for (const Planes* res : {static_cast<const Planes*>(nullptr), static_cast<const Planes*>(&residual)})
          for (bool guard : {false, true}) {
            const std::string what = std::to_string(w) + "x" + std::to_string(h) +
                                     (depth == SampleDepth::u16 ? " 16-bit" : " 8-bit") +
                                     ", factor " + std::to_string(flow.factor) +
                                     (res ? ", residual" : "") + (guard ? ", static guard" : "");
            Frame a(w, h, depth), b(w, h, depth);
            fast::flow_out(flow, s.imgs, res, guard, a);
            flow_out(flow, s.imgs, res, guard, b);
            expect_frames_close(a, b, what);
          }
    }
  }
}

}  // namespace
}  // namespace framecast::cpu
