// End to end: the Vulkan runtime against the cpu-reference backend and the golden cases, for
// every variant, both precisions, sizes that are not multiples of 16, and 16-bit frames.
// f32 must stay within 1 LSB of the reference; f16 within a mean error of 0.1 LSB.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "backends/cpu/cpu_backend.hpp"
#include "backends/vulkan/runtime.hpp"
#include "core/test_support.hpp"
#include "framecast/engine.hpp"
#include "framecast/error.hpp"
#include "io/image.hpp"
#include "io/test_pattern.hpp"
#include "vulkan/vk_test_support.hpp"

namespace framecast::vulkan {
namespace {

using framecast::testing::compare;
using framecast::testing::golden_cases;
using framecast::testing::golden_dir;
using framecast::testing::where;

// The profile's stages that ran on the compute queue, which is what device time counts: where
// copies have a queue of their own, the upload and readback stages run beside it.
double compute_queue_ms(const Context& context, const std::vector<StageTime>& profile) {
  double sum = 0.0;
  for (const auto& s : profile) {
    const bool copy = s.stage == "upload" || s.stage == "readback";
    if (!copy || !context.separate_copy_queue()) sum += s.ms;
  }
  return sum;
}

std::vector<Frame> reference_mids(const Model& model, const Frame& a, const Frame& b,
                                  std::span<const float> ts, bool guard,
                                  bool large_motion = false) {
  auto backend = cpu::make_cpu_backend(cpu::CpuPath::reference);
  RuntimeOptions options;
  options.static_guard = guard;
  options.large_motion = large_motion;
  auto runtime = backend->create_runtime(model, a.width(), a.height(), options);
  runtime->prepare_pair(a, b);
  return runtime->mids(ts);
}

std::vector<Frame> vulkan_mids(const std::shared_ptr<Context>& context, const Model& model,
                               const Frame& a, const Frame& b, std::span<const float> ts,
                               Precision precision, bool guard, bool large_motion = false) {
  RuntimeOptions options;
  options.precision = precision;
  options.static_guard = guard;
  options.large_motion = large_motion;
  GraphRuntime runtime(context, model, a.width(), a.height(), options);
  runtime.prepare_pair(a, b);
  return runtime.mids(ts);
}

// f32: every value within 1 LSB and nearly all exact; f16: mean error <= 0.1 LSB.
void expect_close(const Frame& actual, const Frame& expected, Precision precision,
                  const std::string& what) {
  const auto d = compare(actual, expected);
  const double lsb = expected.depth() == SampleDepth::u16 ? 257.0 : 1.0;  // in 8-bit units
  if (precision == Precision::f32) {
    EXPECT_LE(d.max_error, lsb) << what << " worst at " << where(expected, d.worst);
    EXPECT_LT(d.mean_error, 0.01 * lsb) << what;
  } else {
    EXPECT_LE(d.mean_error, 0.1 * lsb) << what << " (max " << d.max_error << " at "
                                       << where(expected, d.worst) << ")";
  }
}

// The golden cases whose models have refinement blocks.
std::vector<std::string> refinement_cases() {
  std::vector<std::string> names;
  for (const auto& name : golden_cases()) {
    const auto spec = framecast::testing::read_json(golden_dir() / name / "case.json");
    const Model model = Model::load(golden_dir() / name / spec["model"].get<std::string>());
    if (!model.shape().blocks.empty()) names.push_back(name);
  }
  return names;
}

Model golden_model(const std::string& name) {
  const auto spec = framecast::testing::read_json(golden_dir() / name / "case.json");
  return Model::load(golden_dir() / name / spec["model"].get<std::string>());
}

bool golden_large_motion(const std::string& name) {
  return framecast::testing::read_json(golden_dir() / name / "case.json")
      .value("large_motion", false);
}

class GoldenVulkan : public ::testing::TestWithParam<std::tuple<std::string, Precision>> {};

TEST_P(GoldenVulkan, MatchesReference) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  const auto& [name, precision] = GetParam();
  if (precision == Precision::f16 && !context->caps().f16) GTEST_SKIP() << "device has no f16";
  const auto dir = golden_dir() / name;
  const auto spec = framecast::testing::read_json(dir / "case.json");
  const Model model = Model::load(dir / spec["model"].get<std::string>());
  const bool guard = spec["static_guard"].get<bool>();
  const bool large_motion = spec.value("large_motion", false);
  const Frame a = io::read_image(dir / "frame0.png"), b = io::read_image(dir / "frame1.png");
  const auto ts = spec["t"].get<std::vector<float>>();
  const auto got = vulkan_mids(context, model, a, b, ts, precision, guard, large_motion);
  const auto ref = reference_mids(model, a, b, ts, guard, large_motion);
  ASSERT_EQ(got.size(), ts.size());
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const std::string what = name + " t=" + std::to_string(ts[i]);
    expect_close(got[i], ref[i], precision, what + " vs cpu-reference");
    if (precision == Precision::f32) {
      const Frame golden = io::read_image(dir / spec["outputs"][i].get<std::string>());
      const auto d = compare(got[i], golden);
      EXPECT_LE(d.max_error, 1) << what << " vs golden, worst at " << where(golden, d.worst);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, GoldenVulkan,
                         ::testing::Combine(::testing::ValuesIn(golden_cases()),
                                            ::testing::Values(Precision::f32, Precision::f16)),
                         [](const auto& p) {
                           return std::get<0>(p.param) +
                                  (std::get<1>(p.param) == Precision::f32 ? "_f32" : "_f16");
                         });

// Models with refinement blocks run on the Vulkan backend: nothing moves them to the CPU, and
// the engine's frames are the golden ones.
TEST(VulkanRuntime, RefinementBlocksRunOnTheGpu) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  const auto names = refinement_cases();
  ASSERT_EQ(names.size(), 9u);
  for (const auto& name : names) {
    const auto dir = golden_dir() / name;
    const auto spec = framecast::testing::read_json(dir / "case.json");
    RuntimeOptions options;
    options.precision = Precision::f32;
    options.static_guard = spec["static_guard"].get<bool>();
    options.large_motion = spec.value("large_motion", false);
    Engine engine(golden_model(name), {"vulkan", -1}, options);
    EXPECT_EQ(engine.backend_name(), "vulkan") << name;
    EXPECT_TRUE(engine.backend_warning().empty()) << engine.backend_warning();
    const Frame a = io::read_image(dir / "frame0.png"), b = io::read_image(dir / "frame1.png");
    const float t = spec["t"][0].get<float>();
    const Frame golden = io::read_image(dir / spec["outputs"][0].get<std::string>());
    EXPECT_LE(compare(engine.interpolate(a, b, t), golden).max_error, 1) << name;
    EXPECT_NE(engine.runtime(a.width(), a.height()).describe().find("block1 trunk conv"),
              std::string::npos);
    // `auto` turns a software device down, but never because of the model.
    Engine automatic(golden_model(name), {"auto", -1}, {});
    EXPECT_EQ(automatic.backend_warning().find("refinement"), std::string::npos)
        << automatic.backend_warning();
  }
}

// `model` without the upmasks whose names contain `upmasks` (all by default): the same
// weights, those blocks upsampled bilinearly.
Model bilinear_twin(const Model& model, const std::string& upmasks = ".upmask.") {
  auto tensors = model.tensors();
  std::erase_if(tensors,
                [&](const auto& t) { return t.first.find(upmasks) != std::string::npos; });
  return Model::from_tensors(std::move(tensors), model.metadata_json(),
                             "bilinear " + model.source());
}

// Convex models run on the Vulkan backend by their convex upsampling: asked for by name or by
// `auto`, nothing moves them to the CPU; their refinement blocks time an upmask stage; and
// their frames are the CPU reference's (within 1 LSB; also with the large-motion pass), where
// the same weights upsampled bilinearly give frames more than a step away on average, on both
// backends.
TEST(VulkanRuntime, ConvexModelsRunOnTheGpu) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  for (const char* name : {"cx_k3_classic_50x38", "cx_k2_tfact2_37x21_guard"}) {
    SCOPED_TRACE(name);
    const auto dir = golden_dir() / name;
    const auto spec = framecast::testing::read_json(dir / "case.json");
    const Model model = golden_model(name), twin = bilinear_twin(model);
    ASSERT_TRUE(model.shape().blocks.at(0).convex);
    ASSERT_FALSE(twin.shape().blocks.at(0).convex);
    Engine engine(golden_model(name), {"vulkan", -1}, {});
    EXPECT_EQ(engine.backend_name(), "vulkan");
    EXPECT_TRUE(engine.backend_warning().empty()) << engine.backend_warning();
    Engine automatic(golden_model(name), {"auto", context->caps().index}, {});
    EXPECT_EQ(automatic.backend_warning().find("upmask"), std::string::npos)
        << automatic.backend_warning();

    const bool guard = spec["static_guard"].get<bool>();
    const Frame a = io::read_image(dir / "frame0.png"), b = io::read_image(dir / "frame1.png");
    const auto ts = spec["t"].get<std::vector<float>>();
    const auto gpu = vulkan_mids(context, model, a, b, ts, Precision::f32, guard);
    const auto gpu_bilinear = vulkan_mids(context, twin, a, b, ts, Precision::f32, guard);
    const auto cpu = reference_mids(model, a, b, ts, guard);
    const auto cpu_bilinear = reference_mids(twin, a, b, ts, guard);
    for (std::size_t i = 0; i < ts.size(); ++i) {
      const std::string what = "t=" + std::to_string(ts[i]);
      expect_close(gpu[i], cpu[i], Precision::f32, what + " convex vs cpu-reference");
      expect_close(gpu_bilinear[i], cpu_bilinear[i], Precision::f32, what + " bilinear");
      // (here 4.9-13.6 steps on average, up to 78-179)
      EXPECT_GT(compare(cpu[i], cpu_bilinear[i]).mean_error, 1.0) << what << " on the CPU";
      EXPECT_GT(compare(gpu[i], gpu_bilinear[i]).mean_error, 1.0) << what << " on the GPU";
    }
    // The large-motion pass writes the field that the convex blocks then add to.
    const auto gpu_lm = vulkan_mids(context, model, a, b, ts, Precision::f32, guard, true);
    const auto cpu_lm = reference_mids(model, a, b, ts, guard, true);
    for (std::size_t i = 0; i < ts.size(); ++i)
      expect_close(gpu_lm[i], cpu_lm[i], Precision::f32,
                   "large-motion pass, t=" + std::to_string(ts[i]));

    if (!context->caps().timestamps) continue;
    RuntimeOptions options;
    options.profile = true;
    GraphRuntime runtime(context, model, a.width(), a.height(), options);
    runtime.prepare_pair(a, b);
    runtime.mid(0.5f);
    std::vector<std::string> names;
    for (const auto& s : runtime.last_profile()) names.push_back(s.stage);
    for (const RefinementBlock& block : model.shape().blocks)
      for (const char* stage : {".deconv", ".upmask", ".flow"}) {
        const std::string s = "block" + std::to_string(block.index) + stage;
        EXPECT_EQ(std::count(names.begin(), names.end(), s), 1) << s;
      }
  }
}

// A convex block0 (block0.upmask, by 2, then bilinear) on the GPU: alone and under the
// large-motion pass with a convex refinement block, its frames are the CPU reference's, and
// the same block0 upsampled bilinearly gives frames more than a step away on average.
TEST(VulkanRuntime, ConvexBlock0RunsOnTheGpu) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  for (const char* name : {"cx0_tfact2_50x38", "lm_cx0_k2_tfact2_64x48"}) {
    SCOPED_TRACE(name);
    const auto dir = golden_dir() / name;
    const auto spec = framecast::testing::read_json(dir / "case.json");
    const Model model = golden_model(name), twin = bilinear_twin(model, "block0.upmask.");
    ASSERT_TRUE(model.shape().convex_block0);
    ASSERT_FALSE(twin.shape().convex_block0);
    const bool large_motion = spec.value("large_motion", false);
    const Frame a = io::read_image(dir / "frame0.png"), b = io::read_image(dir / "frame1.png");
    const auto ts = spec["t"].get<std::vector<float>>();
    const auto gpu = vulkan_mids(context, model, a, b, ts, Precision::f32, false, large_motion);
    const auto cpu = reference_mids(model, a, b, ts, false, large_motion);
    const auto gpu_bilinear =
        vulkan_mids(context, twin, a, b, ts, Precision::f32, false, large_motion);
    for (std::size_t i = 0; i < ts.size(); ++i) {
      const std::string what = "t=" + std::to_string(ts[i]);
      expect_close(gpu[i], cpu[i], Precision::f32, what + " vs cpu-reference");
      EXPECT_GT(compare(gpu[i], gpu_bilinear[i]).mean_error, 1.0) << what;
    }
  }
}

// The benchmark's model shape at sizes that are not multiples of 16, 8 and 16 bits.
class RandomClassic
    : public ::testing::TestWithParam<std::tuple<std::pair<int, int>, Precision, SampleDepth>> {};

TEST_P(RandomClassic, MatchesReference) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  const auto& [size, precision, depth] = GetParam();
  if (precision == Precision::f16 && !context->caps().f16) GTEST_SKIP() << "device has no f16";
  const Model model = Model::random_classic(12, 24, 7);
  const Frame a = io::test_pattern(size.first, size.second, 0.0f, depth);
  const Frame b = io::test_pattern(size.first, size.second, 2.5f, depth);
  const std::vector<float> ts = {0.3f, 0.5f};
  const auto got = vulkan_mids(context, model, a, b, ts, precision, true);
  const auto ref = reference_mids(model, a, b, ts, true);
  for (std::size_t i = 0; i < ts.size(); ++i)
    expect_close(got[i], ref[i], precision,
                 std::to_string(size.first) + "x" + std::to_string(size.second));
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, RandomClassic,
    ::testing::Combine(::testing::Values(std::pair{1, 1}, std::pair{17, 9}, std::pair{45, 31},
                                         std::pair{64, 48}, std::pair{130, 66}),
                       ::testing::Values(Precision::f32, Precision::f16),
                       ::testing::Values(SampleDepth::u8, SampleDepth::u16)),
    [](const auto& p) {
      const auto size = std::get<0>(p.param);
      return std::to_string(size.first) + "x" + std::to_string(size.second) +
             (std::get<1>(p.param) == Precision::f32 ? "_f32" : "_f16") +
             (std::get<2>(p.param) == SampleDepth::u8 ? "_8bit" : "_16bit");
    });

// Each mid on its own (one submission per t) equals the same t in a batch: every t of a batch
// reads its own FiLM slots (block0's and the refinement blocks'), and nothing of one t leaks
// into the next.
class LazyMids : public ::testing::TestWithParam<std::string> {};

TEST_P(LazyMids, EqualOneBatch) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  const Model model = golden_model(GetParam());
  const Frame a = io::test_pattern(64, 48, 0.0f), b = io::test_pattern(64, 48, 3.0f);
  RuntimeOptions options;
  options.large_motion = golden_large_motion(GetParam());
  GraphRuntime runtime(context, model, 64, 48, options);
  // More t than one batch holds, so that the batching splits.
  std::vector<float> ts;
  for (int i = 0; i <= 10; ++i) ts.push_back(float(i) / 10.0f);
  runtime.prepare_pair(a, b);
  const auto batch = runtime.mids(ts);
  EXPECT_GT(compare(batch[2], batch[8]).max_error, 0) << "t must matter";
  runtime.prepare_pair(a, b);
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const Frame one = runtime.mid(ts[i]);
    EXPECT_EQ(compare(one, batch[i]).max_error, 0) << "t=" << ts[i];
  }
}

INSTANTIATE_TEST_SUITE_P(Models, LazyMids,
                         ::testing::Values("tfact2_64x48_guard", "k2_classic_50x38",
                                           "k2_tfact_48x32", "k3_tfact2_50x38",
                                           "lm_tfact2_64x48_guard", "lm_k2_tfact_70x40"));

// Many t of one pair through the refinement blocks, against the reference, at a size that is
// not a multiple of 16 and with 16-bit frames: one pair submission, one submission for all t.
TEST(VulkanRuntime, RefinementBlocksManyT) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  const std::vector<float> ts = {0.0f, 0.2f, 0.45f, 0.5f, 0.7f, 1.0f};
  for (const char* name : {"k3_classic_37x21_guard", "k3_tfact2_50x38"}) {
    const Model model = golden_model(name);
    for (SampleDepth depth : {SampleDepth::u8, SampleDepth::u16}) {
      const Frame a = io::test_pattern(45, 31, 0.0f, depth);
      const Frame b = io::test_pattern(45, 31, 2.5f, depth);
      const auto got = vulkan_mids(context, model, a, b, ts, Precision::f32, true);
      const auto ref = reference_mids(model, a, b, ts, true);
      for (std::size_t i = 0; i < ts.size(); ++i)
        expect_close(got[i], ref[i], Precision::f32,
                     std::string(name) + " t=" + std::to_string(ts[i]) +
                         (depth == SampleDepth::u16 ? " 16-bit" : " 8-bit"));
    }
  }
}

// The large-motion pass against the reference for many t of one pair, 8- and 16-bit frames
// of a size that is not a multiple of 32, a camera motion long enough that both scales are
// in play: 1-block and refinement-block models, classic and t-factored.
TEST(VulkanRuntime, LargeMotionManyT) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  const std::vector<float> ts = {0.0f, 0.3f, 0.5f, 0.8f, 1.0f};
  for (const char* name : {"lm_classic_50x38", "lm_tfact2_64x48_guard", "lm_k3_classic_37x21",
                           "lm_k2_tfact_70x40"}) {
    const Model model = golden_model(name);
    for (SampleDepth depth : {SampleDepth::u8, SampleDepth::u16}) {
      const Frame a = io::test_pattern(75, 41, 0.0f, depth);
      const Frame b = io::test_pattern(75, 41, 9.0f, depth);
      const auto got = vulkan_mids(context, model, a, b, ts, Precision::f32, false, true);
      const auto ref = reference_mids(model, a, b, ts, false, true);
      for (std::size_t i = 0; i < ts.size(); ++i)
        expect_close(got[i], ref[i], Precision::f32,
                     std::string(name) + " t=" + std::to_string(ts[i]) +
                         (depth == SampleDepth::u16 ? " 16-bit" : " 8-bit"));
    }
  }
}

TEST(VulkanRuntime, PairsAlternateUploadSlots) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  const Model model = Model::random_classic(8, 16, 3);
  GraphRuntime runtime(context, model, 40, 24, {});
  const Frame a = io::test_pattern(40, 24, 0.0f), b = io::test_pattern(40, 24, 1.0f);
  const Frame c = io::test_pattern(40, 24, 4.0f);
  runtime.prepare_pair(a, b);
  const Frame first = runtime.mid(0.5f);
  runtime.prepare_pair(b, c);
  const Frame second = runtime.mid(0.5f);
  runtime.prepare_pair(a, b);  // back in the first slot
  EXPECT_EQ(compare(runtime.mid(0.5f), first).max_error, 0);
  EXPECT_GT(compare(second, first).max_error, 0);
}

TEST(VulkanRuntime, ProfileAndDeviceTime) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  if (!context->caps().timestamps) GTEST_SKIP() << "no timestamps on this device";
  const Model model = Model::load(golden_dir() / "tfact2_37x21" / "model.json");
  RuntimeOptions options;
  options.profile = true;
  GraphRuntime runtime(context, model, 37, 21, options);
  runtime.prepare_pair(io::test_pattern(37, 21, 0.0f), io::test_pattern(37, 21, 1.0f));
  const std::vector<float> ts = {0.25f, 0.75f};
  runtime.mids(ts);
  const auto profile = runtime.last_profile();
  std::vector<std::string> names;
  for (const auto& s : profile) {
    names.push_back(s.stage);
    EXPECT_GE(s.ms, 0.0) << s.stage;
  }
  const double sum = compute_queue_ms(*context, profile);
  std::vector<std::string> expected = {"prep",        "trunk0",    "trunk5",     "film",
                                       "trunk7",      "deconv",    "refine_prep", "refine_c2",
                                       "refine_out",  "flow_out"};
  if (context->caps().copy_timestamps) {
    expected.insert(expected.begin(), "upload");
    expected.push_back("readback");
  }
  for (const auto& stage : expected)
    EXPECT_NE(std::find(names.begin(), names.end(), stage), names.end()) << stage;
  EXPECT_GT(runtime.last_device_ms(), 0.0);
  EXPECT_GE(runtime.last_device_ms(), sum * 0.99);  // the pair and both mids, not just the last
}

// Uploads and readbacks go where the copy engines work beside the kernels, where a device has
// such a queue (queue families as NVIDIA, AMD and lavapipe report them).
TEST(VulkanContext, CopiesGoBesideTheKernelsWhereTheDeviceAllows) {
  const auto family = [](VkQueueFlags flags, std::uint32_t count) {
    VkQueueFamilyProperties f{};
    f.queueFlags = flags;
    f.queueCount = count;
    return f;
  };
  constexpr VkQueueFlags all = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT;
  constexpr VkQueueFlags compute = VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT;
  const VkQueueFamilyProperties nvidia[] = {family(all, 16), family(VK_QUEUE_TRANSFER_BIT, 2),
                                            family(compute, 8)};
  QueueChoice c = choose_copy_queue(nvidia, 0);
  EXPECT_EQ(c.family, 1u);
  EXPECT_EQ(c.index, 0u);
  const VkQueueFamilyProperties no_transfer_family[] = {family(all, 1), family(compute, 4)};
  c = choose_copy_queue(no_transfer_family, 1);
  EXPECT_EQ(c.family, 1u);
  EXPECT_EQ(c.index, 1u);  // the compute family's second queue
  const VkQueueFamilyProperties lavapipe[] = {family(all, 1)};
  c = choose_copy_queue(lavapipe, 0);
  EXPECT_EQ(c.family, 0u);
  EXPECT_EQ(c.index, 0u);  // the compute queue itself
}

// Every refinement block's stages are timed under their own names.
TEST(VulkanRuntime, RefinementBlocksProfile) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  if (!context->caps().timestamps) GTEST_SKIP() << "no timestamps on this device";
  RuntimeOptions options;
  options.profile = true;
  const Model model = golden_model("k3_tfact2_50x38");  // the runtime keeps a reference
  GraphRuntime runtime(context, model, 50, 38, options);
  runtime.prepare_pair(io::test_pattern(50, 38, 0.0f), io::test_pattern(50, 38, 1.0f));
  runtime.mid(0.5f);
  std::vector<std::string> names;
  for (const auto& s : runtime.last_profile()) names.push_back(s.stage);
  for (const char* stage :
       {"trunk5", "film", "deconv", "flow_field", "block1.input", "block1.conv0a", "block1.conv0b",
        "block1.trunk0", "block1.film", "block1.trunk7", "block1.deconv", "block1.flow",
        "block2.input", "block2.trunk7", "block2.flow", "refine_prep", "refine_out", "flow_out"})
    EXPECT_EQ(std::count(names.begin(), names.end(), stage), 1) << stage;
}

// The large-motion pass's stages are timed under their own names, once per pair or per mid.
TEST(VulkanRuntime, LargeMotionProfile) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  if (!context->caps().timestamps) GTEST_SKIP() << "no timestamps on this device";
  RuntimeOptions options;
  options.profile = true;
  options.large_motion = true;
  for (const char* name : {"lm_tfact2_64x48_guard", "lm_k3_classic_37x21"}) {
    const Model model = golden_model(name);
    GraphRuntime runtime(context, model, 64, 48, options);
    runtime.prepare_pair(io::test_pattern(64, 48, 0.0f), io::test_pattern(64, 48, 6.0f));
    runtime.mid(0.5f);
    std::vector<std::string> names;
    for (const auto& s : runtime.last_profile()) names.push_back(s.stage);
    for (const char* stage : {"prep_quarter", "half.prep_quarter", "trunk7", "half.conv0a",
                              "half.trunk7", "half.deconv", "scale_choice", "flow_field",
                              "flow_out"})
      EXPECT_EQ(std::count(names.begin(), names.end(), stage), 1) << name << " " << stage;
    EXPECT_EQ(runtime.trunk_choices().size(), 2 + model.shape().blocks.size()) << name;
    EXPECT_NE(runtime.describe().find("large-motion pass"), std::string::npos) << name;
  }
}

TEST(VulkanRuntime, Errors) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  const Model model = Model::random_classic(8, 16, 3);
  GraphRuntime runtime(context, model, 20, 10, {});
  EXPECT_THROW(runtime.mid(0.5f), Error);  // before prepare_pair
  const Frame a = io::test_pattern(20, 10, 0.0f);
  try {
    runtime.prepare_pair(a, io::test_pattern(21, 10, 0.0f));
    ADD_FAILURE() << "size mismatch accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
  }
  runtime.prepare_pair(a, a);
  try {
    runtime.mid(1.5f);
    ADD_FAILURE() << "t outside [0, 1] accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
  }
  try {
    make_vulkan_backend(1000);
    ADD_FAILURE() << "device 1000 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::device);
  }
}

TEST(VulkanRuntime, EngineUsesTheBackend) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  Engine engine(Model::random_classic(8, 16, 3), {"vulkan", -1}, {});
  EXPECT_EQ(engine.backend_name(), "vulkan");
  EXPECT_TRUE(engine.backend_warning().empty());
  const Frame a = io::test_pattern(33, 17, 0.0f), b = io::test_pattern(33, 17, 1.0f);
  const Frame mid = engine.interpolate(a, b, 0.5f);
  EXPECT_EQ(mid.width(), 33);
  EXPECT_NE(engine.runtime(33, 17).describe().find("vulkan"), std::string::npos);
  // `auto` takes a hardware GPU, and never silently a software rasterizer such as lavapipe:
  // there it runs on the CPU backend and says why.
  Engine automatic(Model::random_classic(8, 16, 3), {"auto", -1}, {});
  if (Context::create(-1)->caps().type == VK_PHYSICAL_DEVICE_TYPE_CPU) {
    EXPECT_EQ(automatic.backend_name(), "cpu");
    EXPECT_NE(automatic.backend_warning().find("software rasterizer"), std::string::npos)
        << automatic.backend_warning();
  } else {
    EXPECT_EQ(automatic.backend_name(), "vulkan");
  }
}

// An ensemble on the GPU: the device time covers the timed stages of all four passes (a
// comparison within one run: times of separate runs on a shared machine do not order), and
// the frames are the CPU ensemble's (each pass within 1 LSB of it in f32, so the average too).
TEST(VulkanRuntime, EnsembleCountsEveryPass) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  if (!context->caps().timestamps) GTEST_SKIP() << "no timestamps on this device";
  RuntimeOptions options;
  options.precision = Precision::f32;
  options.ensemble = 4;
  options.profile = true;
  const Frame a = io::test_pattern(45, 29, 0.0f), b = io::test_pattern(45, 29, 4.0f);
  Engine four(Model::random_classic(8, 16, 3), {"vulkan", -1}, options);
  Engine cpu(Model::random_classic(8, 16, 3), {"cpu", -1}, options);
  const Frame mid = four.interpolate(a, b, 0.25f);
  const Runtime& runtime = four.runtime(45, 29);
  double staged = 0.0;
  std::set<std::string> passes;
  for (const auto& s : runtime.last_profile()) {
    staged += s.ms;
    if (s.stage.rfind("pass", 0) == 0) passes.insert(s.stage.substr(0, s.stage.find('.')));
  }
  EXPECT_EQ(passes.size(), 4u);
  ASSERT_GT(staged, 0.0);
  // stages are parts of the timed command buffers, so they cannot add up to more
  EXPECT_GE(runtime.last_device_ms() * (1.0 + 1e-9), staged);
  expect_close(mid, cpu.interpolate(a, b, 0.25f), Precision::f32, "ensemble of 4");
  EXPECT_LT(cpu.runtime(45, 29).last_device_ms(), 0.0);  // the CPU measures no device time
}

// A 61x37 runtime of each graph with a t-free trunk per pair (FiLM and the large-motion pass;
// the classic graph with the pass), for 8- and 16-bit frames in turn.
template <class Check>
void on_each_pair_graph_and_depth(const std::shared_ptr<const Context>& context, Check check) {
  for (const char* name : {"lm_tfact2_64x48_guard", "lm_classic_50x38"}) {
    const Model model = golden_model(name);
    RuntimeOptions options;
    options.precision = Precision::f32;
    options.large_motion = true;
    for (SampleDepth depth : {SampleDepth::u8, SampleDepth::u16}) {
      SCOPED_TRACE(std::string(name) + (depth == SampleDepth::u8 ? " 8-bit" : " 16-bit"));
      GraphRuntime runtime(context, model, 61, 37, options);
      check(runtime, depth);
    }
  }
}

// The shared frame stays on the device: a copy there instead of a second upload.
TEST(VulkanRuntime, PrepareNextMatchesPreparingThePair) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  on_each_pair_graph_and_depth(context, framecast::testing::expect_prepare_next_matches_pair);
}

// A video's pairs overlapped (the next pair uploaded while the last one's mids compute):
// the same frames as one pair at a time; and once taken, the mids' pair is what the device
// time and profile describe.
TEST(VulkanRuntime, StartedMidsMatchMidsAndReportTheirOwnPair) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  on_each_pair_graph_and_depth(context, framecast::testing::expect_started_mids_match_mids);
  RuntimeOptions options;
  options.precision = Precision::f32;
  options.profile = true;
  const Model model = golden_model("lm_tfact2_64x48_guard");  // outlives the runtime
  GraphRuntime runtime(context, model, 64, 48, options);
  const Frame a = io::test_pattern(64, 48, 0.0f), b = io::test_pattern(64, 48, 5.0f);
  const std::vector<float> ts = {0.5f};
  runtime.prepare_pair(a, b);
  runtime.start_mids(ts);
  runtime.prepare_next(a);
  runtime.take_mids();
  bool mid_stage = false, pair_stage = false;
  for (const auto& s : runtime.last_profile()) {
    mid_stage |= s.stage == "flow_out";
    pair_stage |= s.stage == "prep";
  }
  EXPECT_TRUE(mid_stage && pair_stage) << "the profile of the first pair and its mid";
  EXPECT_GE(runtime.last_device_ms() * (1.0 + 1e-9),
            compute_queue_ms(*context, runtime.last_profile()));
  runtime.start_mids(ts);
  runtime.take_mids();
}

}  // namespace
}  // namespace framecast::vulkan
