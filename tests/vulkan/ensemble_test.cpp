// The ensemble on the GPU against the Engine's host ensemble around the same Vulkan runtime:
// the same passes through the same kernels, so the same frames, sample for sample. For 2 and
// 4 passes, 8- and 16-bit frames, models with FiLM and with refinement blocks, more t than one
// submission averages, and a size whose last samples end inside a word.
#include <gtest/gtest.h>

#include "backends/vulkan/ensemble.hpp"
#include "backends/vulkan/runtime.hpp"
#include "core/test_support.hpp"
#include "engine/ensemble.hpp"
#include "framecast/engine.hpp"
#include "framecast/error.hpp"
#include "io/test_pattern.hpp"
#include "vulkan/vk_test_support.hpp"

namespace framecast::vulkan {
namespace {

using framecast::testing::compare;
using framecast::testing::golden_dir;

Model golden_model(const std::string& name) {
  const auto spec = framecast::testing::read_json(golden_dir() / name / "case.json");
  return Model::load(golden_dir() / name / spec["model"].get<std::string>());
}

class GpuEnsemble
    : public ::testing::TestWithParam<std::tuple<std::string, int, SampleDepth>> {};

TEST_P(GpuEnsemble, EqualsTheHostEnsemble) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  const auto& [name, passes, depth] = GetParam();
  const Model model = golden_model(name);
  const int w = 45, h = 29;  // 3915 samples: the last word is partly filled at either depth
  const Frame a = io::test_pattern(w, h, 0.0f, depth), b = io::test_pattern(w, h, 3.0f, depth);
  RuntimeOptions options;
  options.precision = Precision::f32;
  options.large_motion = framecast::testing::read_json(golden_dir() / name / "case.json")
                             .value("large_motion", false);
  auto single = std::make_unique<GraphRuntime>(context, model, w, h, options);
  auto host = make_ensemble_runtime(std::make_unique<GraphRuntime>(context, model, w, h, options),
                                    passes, false);
  auto gpu = make_gpu_ensemble(
      context, std::make_unique<GraphRuntime>(context, model, w, h, options), passes, false);
  std::vector<float> ts = {0.5f};
  if (passes == 4)  // more than one submission of mids (8)
    for (int i = 0; i <= 10; ++i) ts.push_back(float(i) / 10.0f);
  single->prepare_pair(a, b);
  host->prepare_pair(a, b);
  gpu->prepare_pair(a, b);
  const auto one = single->mids(ts), want = host->mids(ts), got = gpu->mids(ts);
  ASSERT_EQ(got.size(), ts.size());
  for (std::size_t i = 0; i < ts.size(); ++i) {
    EXPECT_EQ(got[i].depth(), depth);
    const auto d = compare(got[i], want[i]);
    EXPECT_EQ(d.max_error, 0) << "t=" << ts[i] << " at "
                              << framecast::testing::where(want[i], d.worst);
  }
  EXPECT_GT(compare(got[0], one[0]).max_error, 0) << "an average of passes, not one pass";
  if (ts.size() > 1) {
    EXPECT_GT(compare(got[1], got.back()).max_error, 0) << "t must matter";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, GpuEnsemble,
    ::testing::Combine(::testing::Values("classic_50x38_guard", "tfact2_37x21", "k3_tfact2_50x38",
                                         "lm_tfact2_64x48_guard"),
                       ::testing::Values(2, 4),
                       ::testing::Values(SampleDepth::u8, SampleDepth::u16)),
    [](const auto& p) {
      return std::get<0>(p.param) + "_" + std::to_string(std::get<1>(p.param)) + "passes_" +
             (std::get<2>(p.param) == SampleDepth::u8 ? "8bit" : "16bit");
    });

// Through the Engine: the Vulkan backend runs the ensemble itself, times every pass and the
// average on the device, and names the stages of each pass when profiling.
TEST(GpuEnsembleEngine, ProfilesEveryPass) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  if (!context->caps().timestamps) GTEST_SKIP() << "no timestamps on this device";
  RuntimeOptions options;
  options.ensemble = 2;
  options.profile = true;
  Engine engine(Model::random_classic(8, 16, 3), {"vulkan", -1}, options);
  const Frame a = io::test_pattern(40, 24, 0.0f), b = io::test_pattern(40, 24, 2.0f);
  engine.interpolate(a, b, 0.5f);
  Runtime& runtime = engine.runtime(40, 24);
  EXPECT_NE(runtime.describe().find("ensemble of 2 passes on the GPU"), std::string::npos)
      << runtime.describe();
  bool pass1 = false, pass2 = false, turn = false, average = false;
  for (const auto& s : runtime.last_profile()) {
    pass1 |= s.stage.rfind("pass1.", 0) == 0;
    pass2 |= s.stage.rfind("pass2.", 0) == 0;
    turn |= s.stage == "turn";
    average |= s.stage == "ensemble_average";
  }
  EXPECT_TRUE(pass1 && pass2 && turn && average);
  EXPECT_GT(runtime.last_device_ms(), 0.0);
}

// A library caller that asks the backend itself for an ensemble of another size gets the
// engine's answer: an invalid argument, not an internal error.
TEST(GpuEnsembleEngine, RejectsOtherSizes) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  const Model model = Model::random_classic(8, 16, 3);
  RuntimeOptions options;
  options.ensemble = 3;
  try {
    make_vulkan_backend(-1)->create_runtime(model, 40, 24, options);
    ADD_FAILURE() << "an ensemble of 3 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_argument) << e.what();
  }
}

// The GPU ensemble keeps the shared frame and its turn on the device.
TEST(GpuEnsembleEngine, PrepareNextMatchesPreparingThePair) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  const Model model = golden_model("lm_tfact2_64x48_guard");
  RuntimeOptions options;
  options.precision = Precision::f32;
  for (SampleDepth depth : {SampleDepth::u8, SampleDepth::u16}) {
    auto gpu = make_gpu_ensemble(
        context, std::make_unique<GraphRuntime>(context, model, 45, 29, options), 4, false);
    framecast::testing::expect_prepare_next_matches_pair(*gpu, depth);
  }
}

}  // namespace
}  // namespace framecast::vulkan
