// Each reference layer against an independent naive formulation, borders included.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "backends/cpu/ops_reference.hpp"
#include "core/test_support.hpp"
#include "io/test_pattern.hpp"

namespace framecast::cpu {
namespace {

Planes random_planes(int c, int h, int w, std::uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  Planes p(c, h, w);
  for (auto& v : p.values) v = dist(rng);
  return p;
}

std::vector<float> random_values(std::size_t n, std::uint32_t seed, float scale) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

void expect_planes_near(const Planes& a, const Planes& b, float tol) {
  ASSERT_EQ(a.values.size(), b.values.size());
  for (std::size_t i = 0; i < a.values.size(); ++i)
    ASSERT_NEAR(a.values[i], b.values[i], tol) << "index " << i << " (plane " << i / a.plane_size()
                                               << ", y " << (i % a.plane_size()) / a.width << ", x "
                                               << i % a.width << ")";
}

// conv3x3 as a sum over an explicitly padded copy of the input.
Planes naive_conv(const Planes& src, const std::vector<float>& w, const std::vector<float>& b,
                  const std::vector<float>* prelu, int stride, Padding padding, int co_n) {
  Planes padded(src.channels, src.height + 2, src.width + 2);
  for (int c = 0; c < src.channels; ++c)
    for (int y = 0; y < padded.height; ++y)
      for (int x = 0; x < padded.width; ++x) {
        int sy = y - 1, sx = x - 1;
        const bool inside = sy >= 0 && sy < src.height && sx >= 0 && sx < src.width;
        if (padding == Padding::replicate) {
          sy = std::clamp(sy, 0, src.height - 1);
          sx = std::clamp(sx, 0, src.width - 1);
        }
        padded.at(c, y, x) = (inside || padding == Padding::replicate) ? src.at(c, sy, sx) : 0.0f;
      }
  Planes out(co_n, (src.height - 1) / stride + 1, (src.width - 1) / stride + 1);
  for (int co = 0; co < co_n; ++co)
    for (int y = 0; y < out.height; ++y)
      for (int x = 0; x < out.width; ++x) {
        double acc = b[co];
        for (int ci = 0; ci < src.channels; ++ci)
          for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx)
              acc += double(padded.at(ci, y * stride + ky, x * stride + kx)) *
                     w[((co * src.channels + ci) * 3 + ky) * 3 + kx];
        float v = float(acc);
        if (prelu && v < 0) v *= (*prelu)[co];
        out.at(co, y, x) = v;
      }
  return out;
}

TEST(Layers, Conv3x3StrideOneAndTwoZeroAndReplicatePadding) {
  for (int stride : {1, 2}) {
    for (Padding padding : {Padding::zero, Padding::replicate}) {
      const Planes src = random_planes(5, 9, 11, 3);
      const auto w = random_values(7 * 5 * 9, 4, 0.4f), b = random_values(7, 5, 0.2f);
      const auto slopes = random_values(7, 6, 0.3f);
      Planes dst(7, (9 - 1) / stride + 1, (11 - 1) / stride + 1);
      conv3x3(src, w.data(), b.data(), slopes.data(), stride, padding, dst);
      expect_planes_near(dst, naive_conv(src, w, b, &slopes, stride, padding, 7), 1e-5f);
    }
  }
}

TEST(Layers, Deconv4x4Stride2AsScatter) {
  const Planes src = random_planes(6, 5, 7, 8);
  const auto w = random_values(6 * 5 * 16, 9, 0.3f), b = random_values(5, 10, 0.1f);
  Planes dst(5, 10, 14);
  deconv4x4s2(src, w.data(), b.data(), dst);
  // ConvTranspose2d as its definition: every input scatters a 4x4 kernel at 2*i - 1.
  Planes expect(5, 10, 14);
  for (int co = 0; co < 5; ++co) std::fill(expect.plane(co), expect.plane(co) + expect.plane_size(), b[co]);
  for (int ci = 0; ci < 6; ++ci)
    for (int iy = 0; iy < 5; ++iy)
      for (int ix = 0; ix < 7; ++ix)
        for (int co = 0; co < 5; ++co)
          for (int ky = 0; ky < 4; ++ky)
            for (int kx = 0; kx < 4; ++kx) {
              const int y = iy * 2 - 1 + ky, x = ix * 2 - 1 + kx;
              if (y >= 0 && y < 10 && x >= 0 && x < 14)
                expect.at(co, y, x) += src.at(ci, iy, ix) * w[((ci * 5 + co) * 4 + ky) * 4 + kx];
            }
  expect_planes_near(dst, expect, 1e-5f);
}

// RAFT's convex upsampling as graph.py's convex_upsample writes it, in double: softmax over the
// 9 taps, neighbours from a copy of the coarse planes padded by replicating their edges.
Planes naive_convex_residual(const Planes& coarse, const Planes& logits, int f, Planes field) {
  const int h = coarse.height, w = coarse.width;
  std::vector<double> padded(std::size_t(5) * (h + 2) * (w + 2));
  auto pad = [&](int c, int y, int x) -> double& {
    return padded[(std::size_t(c) * (h + 2) + y) * (w + 2) + x];
  };
  for (int c = 0; c < 5; ++c)
    for (int y = 0; y < h + 2; ++y)
      for (int x = 0; x < w + 2; ++x)
        pad(c, y, x) = coarse.at(c, std::clamp(y - 1, 0, h - 1), std::clamp(x - 1, 0, w - 1));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int ay = 0; ay < f; ++ay)
        for (int ax = 0; ax < f; ++ax) {
          double e[9], sum = 0.0;
          for (int k = 0; k < 9; ++k) {
            e[k] = std::exp(double(logits.at(k * f * f + ay * f + ax, y, x)));
            sum += e[k];
          }
          for (int c = 0; c < 5; ++c) {
            double v = 0.0;
            for (int ky = 0; ky < 3; ++ky)
              for (int kx = 0; kx < 3; ++kx) v += e[ky * 3 + kx] / sum * pad(c, y + ky, x + kx);
            field.at(c, f * y + ay, f * x + ax) += float(c < 4 ? v * f : v);
          }
        }
  return field;
}

TEST(Layers, ConvexResidualIsTheSoftmaxWeightedNeighbourhoodWithReplicatedEdges) {
  for (int f : {2, 4, 8}) {
    SCOPED_TRACE("factor " + std::to_string(f));
    const int h = 5, w = 7;
    Planes coarse(5, h, w);  // a block's residual: flows of about a pixel, mask logits of 0.5
    const Planes noise = random_planes(5, h, w, 51);
    for (int c = 0; c < 5; ++c)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          coarse.at(c, y, x) = (c < 4 ? 1.0f / float(f) : 0.5f) *
                               (std::sin(0.9f * float(x + c) - 0.7f * float(y)) +
                                0.5f * noise.at(c, y, x));
    // Logits from confident to flat: a tap's weight ranges over about e^12.
    const Planes logits = random_planes(9 * f * f, h, w, 52, -6.0f, 6.0f);
    const Planes before = random_planes(5, h * f, w * f, 53, -3.0f, 3.0f);  // it adds to the field
    Planes field = before;
    add_convex_residual(coarse, logits, f, field);
    const Planes expect = naive_convex_residual(coarse, logits, f, before);
    for (std::size_t i = 0; i < expect.values.size(); ++i) {
      const float want = expect.values[i];
      ASSERT_NEAR(field.values[i], want, 1e-5f * std::max(1.0f, std::abs(want)))
          << "plane " << i / expect.plane_size() << ", y "
          << (i % expect.plane_size()) / expect.width << ", x " << i % expect.width;
    }
  }
}

TEST(Layers, QuarterPrepIsTheCentreMeanOfEachBlockWithReplicatedEdges) {
  // 30x21 frames pad to 32x32: the last quarter column and rows read replicated edges.
  const Frame f0 = io::test_pattern(30, 21, 0.0f), f1 = io::test_pattern(30, 21, 3.0f);
  Planes imgs, xq;
  frames_to_planes(f0, f1, imgs);
  prep_quarter(imgs, 32, 32, 7, 0.375f, xq);
  ASSERT_EQ(xq.width, 8);
  ASSERT_EQ(xq.height, 8);
  for (int c = 0; c < 6; ++c)
    for (int y = 0; y < 8; ++y)
      for (int x = 0; x < 8; ++x) {
        float sum = 0.0f;
        for (int dy = 1; dy <= 2; ++dy)
          for (int dx = 1; dx <= 2; ++dx)
            sum += imgs.at(c, std::min(4 * y + dy, 20), std::min(4 * x + dx, 29));
        ASSERT_NEAR(xq.at(c, y, x), sum / 4.0f, 1e-6f) << c << " " << y << " " << x;
      }
  for (float v : std::vector<float>(xq.plane(6), xq.plane(6) + xq.plane_size())) ASSERT_EQ(v, 0.375f);
}

TEST(Layers, FramesToPlanesIsBgrOverMaxValue) {
  Frame f(2, 1, SampleDepth::u16);
  const std::uint16_t samples[] = {65535, 0, 32768, 1, 2, 3};
  std::copy(std::begin(samples), std::end(samples), f.rgb16().begin());
  Planes imgs;
  frames_to_planes(f, f, imgs);
  EXPECT_FLOAT_EQ(imgs.at(0, 0, 0), 32768.0f / 65535.0f);  // blue of pixel 0
  EXPECT_FLOAT_EQ(imgs.at(2, 0, 0), 1.0f);                   // red of pixel 0
  EXPECT_FLOAT_EQ(imgs.at(5, 0, 1), 1.0f / 65535.0f);        // red of pixel 1, frame 1
}

// A flow field whose x8 upsample is known: constant flows and mask.
Planes constant_tmp8(int w8, int h8, float fx0, float fy0, float fx1, float fy1, float mask) {
  Planes tmp8(5, h8, w8);
  const float values[5] = {fx0 / 8, fy0 / 8, fx1 / 8, fy1 / 8, mask};
  for (int c = 0; c < 5; ++c) std::fill(tmp8.plane(c), tmp8.plane(c) + tmp8.plane_size(), values[c]);
  return tmp8;
}

TEST(Layers, FlowOutWithIntegerFlowsShiftsAndClampsAtBorders) {
  const Frame f0 = io::test_pattern(37, 21, 0.0f), f1 = io::test_pattern(37, 21, 5.0f);
  Planes imgs;
  frames_to_planes(f0, f1, imgs);
  // mask logit +40: the output is frame0 warped by (+3, -2); taps beyond the edge clamp.
  const Planes tmp8 = constant_tmp8(6, 4, 3.0f, -2.0f, 0.0f, 0.0f, 40.0f);
  Frame out(37, 21);
  flow_out(tmp8, imgs, nullptr, false, out);
  for (int y = 0; y < 21; ++y)
    for (int x = 0; x < 37; ++x)
      for (int c = 0; c < 3; ++c) {
        const int sx = std::clamp(x + 3, 0, 36), sy = std::clamp(y - 2, 0, 20);
        ASSERT_EQ(out.rgb8()[(y * 37 + x) * 3 + c], f0.rgb8()[(sy * 37 + sx) * 3 + c]) << x << "," << y;
      }
}

TEST(Layers, FlowOutBlendsAndRoundsHalfUp) {
  Frame f0(16, 16), f1(16, 16);
  std::fill(f0.rgb8().begin(), f0.rgb8().end(), std::uint8_t(10));
  std::fill(f1.rgb8().begin(), f1.rgb8().end(), std::uint8_t(13));
  Planes imgs;
  frames_to_planes(f0, f1, imgs);
  Frame out(16, 16);
  flow_out(constant_tmp8(2, 2, 0, 0, 0, 0, 0.0f), imgs, nullptr, false, out);  // sigmoid(0) = 0.5
  for (auto v : out.rgb8()) ASSERT_EQ(v, 12);  // 11.5 rounds up, not down to 11
}

TEST(Layers, FlowOutBilinearWarpAtSubPixelFlow) {
  const Frame f0 = io::test_pattern(24, 16, 0.0f);
  Planes imgs;
  frames_to_planes(f0, f0, imgs);
  Frame out(24, 16);
  flow_out(constant_tmp8(3, 2, 0.5f, 0.25f, 0.5f, 0.25f, 1.0f), imgs, nullptr, false, out);
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 24; ++x) {
      // grid_sample(border, align_corners=true): clip the position, then bilinear.
      const float px = std::min(x + 0.5f, 23.0f), py = std::min(y + 0.25f, 15.0f);
      const int x0 = int(px), y0 = int(py), x1 = std::min(x0 + 1, 23), y1 = std::min(y0 + 1, 15);
      const float ax = px - x0, ay = py - y0;
      for (int c = 0; c < 3; ++c) {
        auto at = [&](int xx, int yy) { return f0.rgb8()[(yy * 24 + xx) * 3 + c] / 255.0f; };
        const float v = (1 - ay) * ((1 - ax) * at(x0, y0) + ax * at(x1, y0)) +
                        ay * ((1 - ax) * at(x0, y1) + ax * at(x1, y1));
        ASSERT_NEAR(out.rgb8()[(y * 24 + x) * 3 + c], std::floor(v * 255 + 0.5f), 1) << x << "," << y;
      }
    }
}

TEST(Layers, UpsampleX8MatchesAlignCornersFalseWithEdgeClamp) {
  Planes tmp8 = random_planes(5, 3, 4, 21, -0.5f, 0.5f);
  for (int c = 0; c < 4; ++c) std::fill(tmp8.plane(c), tmp8.plane(c) + tmp8.plane_size(), 0.0f);
  Frame f0(32, 24), f1(32, 24);
  std::fill(f0.rgb8().begin(), f0.rgb8().end(), std::uint8_t(255));
  Planes imgs;
  frames_to_planes(f0, f1, imgs);  // out = sigmoid(upsampled mask) * 255
  Frame out(32, 24);
  flow_out(tmp8, imgs, nullptr, false, out);
  for (int y = 0; y < 24; ++y)
    for (int x = 0; x < 32; ++x) {
      const float sx = std::max((x + 0.5f) / 8 - 0.5f, 0.0f), sy = std::max((y + 0.5f) / 8 - 0.5f, 0.0f);
      const int x0 = int(sx), y0 = int(sy), x1 = std::min(x0 + 1, 3), y1 = std::min(y0 + 1, 2);
      const float ax = sx - x0, ay = sy - y0;
      const float m = (1 - ay) * ((1 - ax) * tmp8.at(4, y0, x0) + ax * tmp8.at(4, y0, x1)) +
                      ay * ((1 - ax) * tmp8.at(4, y1, x0) + ax * tmp8.at(4, y1, x1));
      ASSERT_NEAR(out.rgb8()[(y * 32 + x) * 3], 255.0f / (1 + std::exp(-m)), 0.51f) << x << "," << y;
    }
}

TEST(Layers, StaticGuardKeepsIdenticalRegionsAndLeavesMovingOnes) {
  Frame f0 = io::test_pattern(32, 32, 0.0f), f1 = io::test_pattern(32, 32, 8.0f);
  // The left 10 columns are identical in both frames (a logo); the rest moves.
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 10; ++x)
      for (int c = 0; c < 3; ++c) f1.rgb8()[(y * 32 + x) * 3 + c] = f0.rgb8()[(y * 32 + x) * 3 + c];
  Planes imgs;
  frames_to_planes(f0, f1, imgs);
  const Planes tmp8 = constant_tmp8(4, 4, 4.0f, 0.0f, -4.0f, 0.0f, 0.0f);  // drags content sideways
  Frame guarded(32, 32), plain(32, 32);
  flow_out(tmp8, imgs, nullptr, true, guarded);
  flow_out(tmp8, imgs, nullptr, false, plain);
  int kept = 0, moved_differs = 0;
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x)
      for (int c = 0; c < 3; ++c) {
        const std::size_t i = (y * 32 + x) * 3 + c;
        if (x < 8) kept += guarded.rgb8()[i] == f0.rgb8()[i];  // inside the static block
        if (x > 14) moved_differs += guarded.rgb8()[i] != plain.rgb8()[i];
      }
  EXPECT_EQ(kept, 8 * 32 * 3);
  EXPECT_LT(moved_differs, 17 * 32 * 3 / 10);  // the guard stays off where content moves
}

TEST(Layers, FilmParamsAndApplication) {
  const Model m = Model::load(testing::golden_dir() / "tfact_48x32" / "model.json");
  const float t = 0.3f;
  const auto p = film_params(m, t);
  const auto& w0 = m.tensor("film.0.weight").values;
  const auto& b0 = m.tensor("film.0.bias").values;
  const auto& w2 = m.tensor("film.2.weight").values;
  const auto& b2 = m.tensor("film.2.bias").values;
  ASSERT_EQ(p.size(), 2u * 20u);
  for (std::size_t k = 0; k < p.size(); ++k) {
    double s = b2[k];
    for (std::size_t j = 0; j < b0.size(); ++j) s += w2[k * b0.size() + j] * std::max(0.0f, w0[j] * t + b0[j]);
    ASSERT_NEAR(p[k], s, 1e-5);
  }
  Planes x = random_planes(20, 3, 2, 31), before = x;
  apply_film(x, p);
  for (int c = 0; c < 20; ++c)
    for (int i = 0; i < 6; ++i)
      ASSERT_FLOAT_EQ(x.plane(c)[i], before.plane(c)[i] * (1 + p[c]) + p[20 + c]);
}

TEST(Layers, RefinePrepAveragesTheCentreOfEachBlock) {
  const Frame f0 = io::test_pattern(30, 30, 0.0f), f1 = io::test_pattern(30, 30, 2.0f);
  Planes imgs, rin;
  frames_to_planes(f0, f1, imgs);
  // Zero flow and mask logit 0: the inputs are the frames' centre means, 0.5 and 0.
  refine_prep(constant_tmp8(4, 4, 0, 0, 0, 0, 0.0f), imgs, rin);
  ASSERT_EQ(rin.channels, 11);
  ASSERT_EQ(rin.width, 8);
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x) {
      for (int c = 0; c < 6; ++c) {
        float sum = 0;
        for (int dy = 1; dy <= 2; ++dy)
          for (int dx = 1; dx <= 2; ++dx) sum += imgs.at(c, std::min(4 * y + dy, 29), std::min(4 * x + dx, 29));
        ASSERT_NEAR(rin.at(c, y, x), sum / 4, 1e-6f);
      }
      ASSERT_FLOAT_EQ(rin.at(6, y, x), 0.5f);
      for (int c = 7; c < 11; ++c) ASSERT_EQ(rin.at(c, y, x), 0.0f);
    }
  // A constant flow of 8 px reaches the flow channels as 8 * 0.25 / 20.
  refine_prep(constant_tmp8(4, 4, 8, 0, 0, -8, 0.0f), imgs, rin);
  EXPECT_FLOAT_EQ(rin.at(7, 3, 3), 0.1f);
  EXPECT_FLOAT_EQ(rin.at(10, 3, 3), -0.1f);
}

TEST(Layers, RefineOutUsesReplicatePaddingAndScaledSigmoid) {
  const Model m = Model::load(testing::golden_dir() / "tfact2_37x21" / "model.json");
  const int r = m.shape().refine_width;
  const Planes src = random_planes(r, 5, 6, 41);
  Planes residual;
  refine_out(src, m, residual);
  const auto& w = m.tensor("refine.c3.weight").values;
  const auto& b = m.tensor("refine.c3.bias").values;
  Planes expect = naive_conv(src, w, b, nullptr, 1, Padding::replicate, 3);
  for (auto& v : expect.values) v = 2.0f / (1.0f + std::exp(-v)) - 1.0f;
  expect_planes_near(residual, expect, 1e-5f);
}

}  // namespace
}  // namespace framecast::cpu
