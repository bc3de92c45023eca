// The oneDNN fast path against the reference loops, stage by stage and end to end.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "backends/cpu/conv_net.hpp"
#include "backends/cpu/ops_reference.hpp"
#include "core/test_support.hpp"
#include "framecast/engine.hpp"
#include "io/test_pattern.hpp"

namespace framecast::cpu {
namespace {

// Relative error per element against the reference's scale: the convolutions differ only in
// summation order, so 1e-4 of the activations' magnitude is ample and still catches any
// layout or indexing mistake (which shows up as O(1) errors).
void expect_close(const Planes& fast, const Planes& ref, const char* stage) {
  ASSERT_EQ(fast.values.size(), ref.values.size()) << stage;
  double scale = 1e-6;
  for (float v : ref.values) scale = std::max(scale, double(std::abs(v)));
  double worst = 0;
  for (std::size_t i = 0; i < ref.values.size(); ++i)
    worst = std::max(worst, std::abs(double(fast.values[i]) - ref.values[i]) / scale);
  EXPECT_LT(worst, 1e-4) << stage;
}

Planes quarter_input(int w, int h, int channels, float t) {
  Planes imgs, xq;
  frames_to_planes(io::test_pattern(w, h, 0.0f), io::test_pattern(w, h, 4.0f), imgs);
  prep_quarter(imgs, (w + 15) / 16 * 16, (h + 15) / 16 * 16, channels, t, xq);
  return xq;
}

void compare_nets(const Model& model, int w, int h) {
  const int pw = (w + 15) / 16 * 16, ph = (h + 15) / 16 * 16;
  const BlockSpec block0{"block0", pw / 4, ph / 4, model.variant() == Variant::tfact2};
  auto fast = make_dnnl_net(model, block0);
  auto ref = make_reference_net(model, block0);
  const Planes xq = quarter_input(w, h, model.shape().input_channels, 0.4f);
  fast->encode(xq);
  ref->encode(xq);
  Planes a, b;
  fast->decode(a);
  ref->decode(b);
  expect_close(a, b, "encode+decode");
  if (model.variant() == Variant::classic) {
    fast->convblocks(0, 8);
    ref->convblocks(0, 8);
  } else {
    fast->convblocks(0, 6);
    ref->convblocks(0, 6);
    fast->save_trunk();
    ref->save_trunk();
    const auto p = film_params(model, 0.7f);
    fast->film(p);
    ref->film(p);
    fast->decode(a);
    ref->decode(b);
    expect_close(a, b, "film");
    fast->restore_trunk();  // restore must bring back the pre-FiLM trunk
    ref->restore_trunk();
    fast->film(p);
    ref->film(p);
    fast->convblocks(6, 8);
    ref->convblocks(6, 8);
  }
  fast->decode(a);
  ref->decode(b);
  expect_close(a, b, "trunk+residual+decode");
  if (model.variant() == Variant::tfact2) {
    Planes imgs, rin, fa, fb;
    frames_to_planes(io::test_pattern(w, h, 0.0f), io::test_pattern(w, h, 4.0f), imgs);
    refine_prep(b, imgs, rin);
    fast->refine(rin, fa);
    ref->refine(rin, fb);
    expect_close(fa, fb, "refine");
  }
}

TEST(CpuPaths, EveryGoldenModelStageByStage) {
  for (const auto& name : testing::golden_cases()) {
    const auto dir = testing::golden_dir() / name;
    SCOPED_TRACE(name);
    const Model model = Model::load(dir / testing::read_json(dir / "case.json")["model"].get<std::string>());
    compare_nets(model, 50, 38);
    compare_nets(model, 96, 64);
  }
}

TEST(CpuPaths, WideClassicModelStageByStage) {
  compare_nets(Model::random_classic(24, 48, 3), 70, 45);
}

TEST(CpuPaths, EndToEndFastMatchesReferenceWithinOneLsb) {
  const Frame f0 = io::test_pattern(83, 47, 0.0f, SampleDepth::u16);
  const Frame f1 = io::test_pattern(83, 47, 5.0f, SampleDepth::u16);
  const std::vector<float> ts = {0.0f, 0.33f, 1.0f};
  Engine fast(Model::random_classic(16, 32, 9), {"cpu", -1});
  Engine ref(Model::random_classic(16, 32, 9), {"cpu-reference", -1});
  const auto a = fast.interpolate(f0, f1, ts), b = ref.interpolate(f0, f1, ts);
  for (std::size_t i = 0; i < ts.size(); ++i) {
    ASSERT_EQ(a[i].depth(), SampleDepth::u16);
    const auto diff = testing::compare(a[i], b[i]);
    // At 16 bits one 8-bit LSB is 257 steps; float summation order moves a few steps at most.
    EXPECT_LE(diff.max_error, 257) << "t=" << ts[i];
    EXPECT_LT(diff.mean_error, 2.0) << "t=" << ts[i];
  }
}

}  // namespace
}  // namespace framecast::cpu
