// The bilinear limit of convex upsampling: a convex model started as bilinear (train.py's warm
// start: upmask weight 0, bias graph.py's bilinear_logits) upsamples and interpolates as its
// source, to within what bilinear_logits' floor moves.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "backends/cpu/ops_reference.hpp"
#include "core/test_support.hpp"
#include "framecast/engine.hpp"
#include "io/image.hpp"

namespace framecast {
namespace {

// graph.py's bilinear_logits(f, floor): channel (ky * 3 + kx) * f^2 + ay * f + ax holds the log
// of the weight bilinear upsampling by f gives neighbour (ky, kx) at sub-pixel (ay, ax), or of
// `floor` where that is less.
std::vector<float> bilinear_logits(int f, float floor) {
  const auto tap = [f](int a, int k) {  // bilinear_taps: the left, centre and right weights
    const float o = (float(a) + 0.5f) / float(f) - 0.5f;
    if (k == 1) return 1.0f - std::abs(o);
    return k == (o < 0.0f ? 0 : 2) ? std::abs(o) : 0.0f;
  };
  std::vector<float> logits;
  for (int ky = 0; ky < 3; ++ky)
    for (int kx = 0; kx < 3; ++kx)
      for (int ay = 0; ay < f; ++ay)
        for (int ax = 0; ax < f; ++ax)
          logits.push_back(std::log(std::max(tap(ay, ky) * tap(ax, kx), floor)));
  return logits;
}

// `model` with an upmask in every refinement block: weight 0, bias bilinear_logits(f, floor).
Model started_as_bilinear(const Model& model, float floor) {
  auto tensors = model.tensors();
  for (const RefinementBlock& b : model.shape().blocks) {
    const std::string upmask = "block" + std::to_string(b.index) + ".upmask";
    const std::int64_t f = b.upsample_factor(), logits = 9 * f * f;
    tensors[upmask + ".weight"] = {{b.c2, logits, 4, 4},
                                   std::vector<float>(std::size_t(b.c2 * logits * 16))};
    tensors[upmask + ".bias"] = {{logits}, bilinear_logits(int(f), floor)};
  }
  return Model::from_tensors(std::move(tensors), model.metadata_json(), "convex " + model.source());
}

// bilinear_logits weigh the 5 of 9 taps that bilinear leaves out (a sub-pixel's centre never
// lies on a source pixel's: f is even) at `floor` and normalise: each value of the residual
// moves from the bilinear one by at most 5 floor / (1 + 5 floor) of its 3x3 neighbourhood's
// range, times f for flows. With a floor of 1e-9 that is float rounding.
TEST(ConvexModels, BilinearLogitsUpsampleBilinearlyToWithinTheFloor) {
  std::mt19937 rng(61);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int f : {2, 4, 8}) {
    const int h = 6, w = 9;
    cpu::Planes coarse(5, h, w);
    for (auto& v : coarse.values) v = dist(rng);
    for (float floor : {1e-9f, 1e-3f}) {
      SCOPED_TRACE("factor " + std::to_string(f) + ", floor " + std::to_string(floor));
      const auto per_pixel = bilinear_logits(f, floor);
      cpu::Planes logits(9 * f * f, h, w);
      for (int c = 0; c < logits.channels; ++c)
        std::fill(logits.plane(c), logits.plane(c) + logits.plane_size(),
                  per_pixel[std::size_t(c)]);
      cpu::Planes convex(5, h * f, w * f), bilinear = convex;
      cpu::add_convex_residual(coarse, logits, f, convex);
      cpu::add_flow_residual(coarse, float(f), bilinear);
      for (int c = 0; c < 5; ++c)
        for (int y = 0; y < h * f; ++y)
          for (int x = 0; x < w * f; ++x) {
            float lo = 1e30f, hi = -1e30f;
            for (int k = 0; k < 9; ++k) {
              const float v = coarse.at(c, std::clamp(y / f + k / 3 - 1, 0, h - 1),
                                        std::clamp(x / f + k % 3 - 1, 0, w - 1));
              lo = std::min(lo, v);
              hi = std::max(hi, v);
            }
            const float moved =
                5.0f * floor / (1.0f + 5.0f * floor) * (hi - lo) * (c < 4 ? float(f) : 1.0f);
            const float want = bilinear.at(c, y, x);
            ASSERT_NEAR(convex.at(c, y, x), want, moved + 1e-5f * std::max(1.0f, std::abs(want)))
                << "plane " << c << ", y " << y << ", x " << x;
          }
    }
  }
}

// A whole model: a refinement block's residual moves as above, by up to 5e-3 of its
// neighbourhood's range; on these random models' rough residuals the frames then differ by up to
// 4 steps and 0.12 on average (measured), and do differ (the upmask is used). A floor of 1e-9
// gives the bilinear frames to 1 LSB.
TEST(ConvexModels, StartedAsBilinearInterpolateAsTheirSource) {
  // Upsampling by 4 and 2, and by 8 and 4.
  for (const char* name : {"k3_classic_37x21_guard", "k3_tfact2_50x38"}) {
    const auto dir = testing::golden_dir() / name;
    const auto spec = testing::read_json(dir / "case.json");
    const Model bilinear = Model::load(dir / spec["model"].get<std::string>());
    const Frame frame0 = io::read_image(dir / "frame0.png"),
                frame1 = io::read_image(dir / "frame1.png");
    const auto ts = spec["t"].get<std::vector<float>>();
    RuntimeOptions options;
    options.precision = Precision::f32;
    options.static_guard = spec["static_guard"].get<bool>();
    for (const char* backend : {"cpu-reference", "cpu"}) {
      const auto want =
          Engine(Model(bilinear), {backend, -1}, options).interpolate(frame0, frame1, ts);
      struct Limit {
        float floor;
        int max_error;
        double mean_error;
        bool differs;
      };
      for (const Limit& limit : {Limit{1e-9f, 1, 0.01, false}, Limit{1e-3f, 6, 0.2, true}}) {
        SCOPED_TRACE(std::string(name) + " on " + backend + ", floor " +
                     std::to_string(limit.floor));
        Model convex = started_as_bilinear(bilinear, limit.floor);
        for (const RefinementBlock& b : convex.shape().blocks) ASSERT_TRUE(b.convex);
        const auto got =
            Engine(std::move(convex), {backend, -1}, options).interpolate(frame0, frame1, ts);
        int most = 0;
        for (std::size_t i = 0; i < ts.size(); ++i) {
          const auto diff = testing::compare(got[i], want[i]);
          EXPECT_LE(diff.max_error, limit.max_error)
              << "t=" << ts[i] << " at " << testing::where(want[i], diff.worst);
          EXPECT_LT(diff.mean_error, limit.mean_error) << "t=" << ts[i];
          most = std::max(most, diff.max_error);
        }
        if (limit.differs) {
          EXPECT_GT(most, 0) << "the upmask's logits must reach the frames";
        }
      }
    }
  }
}

}  // namespace
}  // namespace framecast
