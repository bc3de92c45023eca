// The tuning cache and the tuner: persisted choices are used by new runtimes, anything
// corrupt or stale is ignored with one warning and never crashes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "backends/cpu/cpu_backend.hpp"
#include "backends/vulkan/runtime.hpp"
#include "backends/vulkan/tune_cache.hpp"
#include "backends/vulkan/tuner.hpp"
#include "core/test_support.hpp"
#include "io/test_pattern.hpp"
#include "vulkan/vk_test_support.hpp"

namespace framecast::vulkan {
namespace {

using framecast::testing::TempDir;

// Points XDG_CACHE_HOME at a temporary folder for the test's lifetime.
class CacheHome {
 public:
  CacheHome() {
    const char* old = std::getenv("XDG_CACHE_HOME");
    if (old) old_ = old;
    had_ = old != nullptr;
    setenv("XDG_CACHE_HOME", dir_.path().c_str(), 1);
  }
  ~CacheHome() {
    if (had_) {
      setenv("XDG_CACHE_HOME", old_.c_str(), 1);
    } else {
      unsetenv("XDG_CACHE_HOME");
    }
  }
  std::filesystem::path file() const { return dir_.path() / "framecast" / "tune.json"; }
  void write(const std::string& text) const {
    std::filesystem::create_directories(file().parent_path());
    std::ofstream(file()) << text;
  }

 private:
  TempDir dir_;
  std::string old_;
  bool had_ = false;
};

TuneKey some_key() {
  TuneKey k;
  k.vendor_id = 0x10de;
  k.device_id = 0x2335;
  k.driver_version = 42;
  k.width = 240;
  k.plane_w = 120;
  k.plane_h = 68;
  k.storage = Storage::f16;
  return k;
}

// A runtime with tuned kernels still gives the reference's frames.
void expect_reference_frames(GraphRuntime& runtime, const Model& model,
                             const RuntimeOptions& options = {}) {
  const int w = runtime.width(), h = runtime.height();
  const Frame a = io::test_pattern(w, h, 0.0f), b = io::test_pattern(w, h, 2.0f);
  runtime.prepare_pair(a, b);
  const Frame got = runtime.mid(0.4f);
  auto reference =
      cpu::make_cpu_backend(cpu::CpuPath::reference)->create_runtime(model, w, h, options);
  reference->prepare_pair(a, b);
  EXPECT_LE(framecast::testing::compare(got, reference->mid(0.4f)).max_error, 1);
}

TEST(TuneCache, PathFollowsXdgCacheHome) {
  CacheHome home;
  EXPECT_EQ(TuneCache::default_path(), home.file());
  setenv("XDG_CACHE_HOME", "relative/path", 1);  // not absolute: ignored, as the spec says
  const char* user_home = std::getenv("HOME");
  if (user_home) {
    EXPECT_EQ(TuneCache::default_path(),
              std::filesystem::path(user_home) / ".cache" / "framecast" / "tune.json");
  }
}

TEST(TuneCache, RoundTrip) {
  CacheHome home;
  TuneCache cache = TuneCache::load(home.file());
  EXPECT_TRUE(cache.warning().empty());  // a missing file is just empty
  EXPECT_EQ(cache.size(), 0u);
  const ConvChoice choice{ConvKind::rb_subgroup, 4, 12, 18};
  cache.put(some_key(), {choice, 0.25, "a GPU"});
  cache.save(home.file());
  const TuneCache again = TuneCache::load(home.file());
  EXPECT_TRUE(again.warning().empty()) << again.warning();
  const auto found = again.find(some_key());
  ASSERT_TRUE(found);
  EXPECT_EQ(found->choice, choice);
  EXPECT_DOUBLE_EQ(found->ms, 0.25);
}

TEST(TuneCache, EveryKernelKindRoundTrips) {
  CacheHome home;
  TuneCache cache;
  int i = 0;
  for (ConvKind kind : kAllConvKinds) {
    TuneKey key = some_key();
    key.plane_w = 100 + i++;
    // knobs as the tuner writes them: coop kinds store their matrix N (16) as tile_stride
    const ConvChoice choice = cooperative(kind) ? ConvChoice{kind, 80, 1, 16}
                                                : ConvChoice{kind, 8, 4, 18};
    cache.put(key, {choice, 0.1, "a GPU"});
  }
  cache.save(home.file());
  const TuneCache again = TuneCache::load(home.file());
  EXPECT_TRUE(again.warning().empty()) << again.warning();
  i = 0;
  for (ConvKind kind : kAllConvKinds) {
    TuneKey key = some_key();
    key.plane_w = 100 + i++;
    const auto found = again.find(key);
    ASSERT_TRUE(found) << conv_kind_name(kind);
    EXPECT_EQ(found->choice.kind, kind);
    EXPECT_EQ(found->choice.tile_stride, cooperative(kind) ? 16 : 18);
  }
}

TEST(TuneCache, CorruptFilesAreIgnoredWithOneWarning) {
  CacheHome home;
  const std::string entry = R"("10de:2335 c240 120x68 f16 driver 42 kernels 1")";
  for (const std::string& text :
       {std::string("not json at all {"), std::string("[1, 2, 3]"),
        std::string(R"({"magic": "something-else", "version": 1, "entries": {}})"),
        std::string(R"({"magic": "framecast-tune", "version": 99, "entries": {}})"),
        std::string(R"({"magic": "framecast-tune", "version": 1})"),
        R"({"magic": "framecast-tune", "version": 1, "entries": {)" + entry +
            R"(: {"kind": "warp-drive", "coc": 4, "slab": 8, "tile_stride": 24}}})",
        R"({"magic": "framecast-tune", "version": 1, "entries": {)" + entry +
            R"(: {"kind": "rb", "coc": -3, "slab": 8, "tile_stride": 24}}})",
        R"({"magic": "framecast-tune", "version": 1, "entries": {)" + entry +
            R"(: {"kind": "rb", "coc": "eight"}}})",
        // Undefined behaviour once (a double too large for an int), found with fuzz_tune_cache.
        std::string(R"({"magic": "framecast-tune", "version": 1e300, "entries": {}})"),
        R"({"magic": "framecast-tune", "version": 1, "entries": {)" + entry +
            R"(: {"kind": "rb", "coc": 1e300, "slab": 8, "tile_stride": 24}}})",
        R"({"magic": "framecast-tune", "version": 1, "entries": {)" + entry +
            R"(: {"kind": "rb", "coc": 4.5, "slab": 8, "tile_stride": 24}}})"}) {
    home.write(text);
    TuneCache cache;
    EXPECT_NO_THROW(cache = TuneCache::load(home.file())) << text;
    EXPECT_FALSE(cache.warning().empty()) << text;
    EXPECT_FALSE(cache.find(some_key())) << text;
  }
}

TEST(TuneCache, StaleEntriesAreReported) {
  CacheHome home;
  TuneCache cache;
  TuneKey old = some_key();
  old.driver_version = 41;
  cache.put(old, {{ConvKind::rb, 4, 8, 24}, 0.3, "a GPU"});
  std::string stale;
  EXPECT_FALSE(cache.find(some_key(), &stale));
  EXPECT_NE(stale.find("stale"), std::string::npos);
  TuneKey other_size = some_key();
  other_size.plane_w = 80;
  stale.clear();
  EXPECT_FALSE(cache.find(other_size, &stale));
  EXPECT_TRUE(stale.empty()) << "another size is not stale, only untuned";
}

// Untuned trunk convs take tensor cores where the device has 16x16x16 matrices, at the blocks
// the tuner picked on the H100 and the H200 (checked here on described devices, since lavapipe
// has no cooperative matrices), and the register-blocked SIMT kernel elsewhere.
TEST(Tuner, DefaultTrunkConvTakesTensorCoresWhereTheDeviceHasThem) {
  DeviceCaps tensor_cores;
  tensor_cores.f16 = true;
  tensor_cores.subgroup_size = 32;
  tensor_cores.coop_n16 = true;
  tensor_cores.max_shared_memory = 48 * 1024;
  const ConvShape fast_trunk{240, 240, 120, 68, 1}, block1{96, 96, 240, 136, 1},
      block2{64, 64, 480, 272, 1}, wide{160, 160, 120, 68, 1};
  const ConvChoice co48{ConvKind::coop_global, 48, 1, 16}, co64{ConvKind::coop_global, 64, 1, 16};
  EXPECT_EQ(default_trunk_choice(tensor_cores, fast_trunk, Storage::f16), co48);
  EXPECT_EQ(default_trunk_choice(tensor_cores, block1, Storage::f16), co48);
  EXPECT_EQ(default_trunk_choice(tensor_cores, block2, Storage::f16), co64);
  EXPECT_EQ(default_trunk_choice(tensor_cores, wide, Storage::f16).coc, 80);  // 48, 64 do not divide 160
  const ConvChoice simt{ConvKind::rb, 8, 8, 24};
  // f32 storage, a device without the matrices, and one with only 16x8x16 ones
  EXPECT_EQ(default_trunk_choice(tensor_cores, fast_trunk, Storage::f32), simt);
  DeviceCaps none = tensor_cores;
  none.coop_n16 = false;
  EXPECT_EQ(default_trunk_choice(none, fast_trunk, Storage::f16), simt);
  none.coop_n8 = true;
  EXPECT_EQ(default_trunk_choice(none, fast_trunk, Storage::f16), simt);
  // channels in no block of 16 (slim's 120): the SIMT kernel
  EXPECT_EQ(default_trunk_choice(tensor_cores, {120, 120, 120, 68, 1}, Storage::f16), simt);
}

TEST(Tuner, RuntimeUsesTheCachedChoice) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  CacheHome home;
  const Model model = Model::random_classic(8, 16, 5);
  const int w = 60, h = 36;  // padded 64x48: trunk plane 4x3
  const ConvChoice tuned{ConvKind::tiled, 4, 8, 18};
  TuneCache cache;
  cache.put(TuneKey::make(context->caps(), 16, 4, 3, Storage::f32), {tuned, 0.1, "test"});
  cache.save(home.file());
  RuntimeOptions options;
  options.precision = Precision::f32;
  GraphRuntime runtime(context, model, w, h, options);
  EXPECT_EQ(runtime.trunk_choice(), tuned);
  EXPECT_NE(runtime.describe().find("[tuned]"), std::string::npos) << runtime.describe();
  EXPECT_TRUE(runtime.warnings().empty());
  expect_reference_frames(runtime, model);
}

// A model with refinement blocks has a trunk problem per block width and scale; the runtime
// looks each one up, so tuning one block changes that block's kernel only.
TEST(Tuner, RefinementBlocksHaveTheirOwnTrunkProblems) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  const Model model =
      Model::load(framecast::testing::golden_dir() / "k3_tfact2_50x38" / "model.json");
  const int w = 50, h = 38;  // padded 64x48
  // block0: c2 12 at 64x48 / 16; block1: c2 12 at scale 4 (the same problem); block2: c2 8 at
  // scale 2, 64x48 / 8; the large-motion pass's block0 at 1/8 of 64x64 (padded to 32), / 32
  const auto problems = trunk_problems(model.shape(), w, h);
  const std::vector<TrunkProblem> want = {{12, 4, 3}, {8, 8, 6}, {12, 2, 2}};
  ASSERT_EQ(problems, want);
  RuntimeOptions options;
  options.precision = Precision::f32;
  {
    CacheHome home;
    GraphRuntime runtime(context, model, w, h, options);
    EXPECT_EQ(runtime.trunk_choices().size(), 3u);
    EXPECT_EQ(runtime.describe().find("[tuned]"), std::string::npos) << runtime.describe();
  }
  CacheHome home;
  const ConvChoice tuned{ConvKind::tiled, 4, 8, 18};
  TuneCache cache;
  const TrunkProblem p = problems[1];
  cache.put(TuneKey::make(context->caps(), p.width, p.plane_w, p.plane_h, Storage::f32),
            {tuned, 0.1, "test"});
  cache.save(home.file());
  GraphRuntime runtime(context, model, w, h, options);
  const auto choices = runtime.trunk_choices();
  ASSERT_EQ(choices.size(), 3u);
  EXPECT_NE(choices[0], tuned);
  EXPECT_NE(choices[1], tuned);
  EXPECT_EQ(choices[2], tuned);
  EXPECT_NE(runtime.describe().find("block2 trunk conv " + tuned.text() + " [tuned]"),
            std::string::npos)
      << runtime.describe();
  EXPECT_TRUE(runtime.warnings().empty());
  expect_reference_frames(runtime, model);
}

// The large-motion pass's block0 at 1/8 has its own trunk problem, looked up on its own.
TEST(Tuner, LargeMotionHasItsOwnTrunkProblem) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  const Model model =
      Model::load(framecast::testing::golden_dir() / "lm_tfact2_64x48_guard" / "model.json");
  const TrunkProblem half = trunk_problems(model.shape(), 64, 48).back();
  EXPECT_EQ(half, (TrunkProblem{16, 2, 2}));  // 64x64 / 32
  CacheHome home;
  const ConvChoice tuned{ConvKind::tiled, 4, 8, 18};
  TuneCache cache;
  cache.put(TuneKey::make(context->caps(), half.width, half.plane_w, half.plane_h, Storage::f32),
            {tuned, 0.1, "test"});
  cache.save(home.file());
  RuntimeOptions options;
  options.precision = Precision::f32;
  options.large_motion = true;
  GraphRuntime runtime(context, model, 64, 48, options);
  const auto choices = runtime.trunk_choices();
  ASSERT_EQ(choices.size(), 2u);
  EXPECT_NE(choices[0], tuned);
  EXPECT_EQ(choices[1], tuned);
  EXPECT_NE(runtime.describe().find("large-motion pass (block0 at 1/8) trunk conv " +
                                    tuned.text() + " [tuned]"),
            std::string::npos)
      << runtime.describe();
  expect_reference_frames(runtime, model, options);
}

// The tuner on a refinement block's problem: it times, checks and picks like block0's.
TEST(Tuner, TunesARefinementBlockProblem) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  if (!context->caps().timestamps) GTEST_SKIP() << "no timestamps";
  const Model model =
      Model::load(framecast::testing::golden_dir() / "k2_tfact_48x32" / "model.json");
  const auto problems = trunk_problems(model.shape(), 48, 32);
  ASSERT_EQ(problems.size(), 3u);  // block0, block1, the large-motion pass's block0 at 1/8
  EXPECT_EQ(problems[1], (TrunkProblem{8, 12, 8}));  // scale 1: the padded size / 4
  const TrunkProblem p = problems[1];
  const std::vector<ConvChoice> candidates = {{ConvKind::rb, 4, 8, 24},
                                              {ConvKind::tiled, 4, 4, 18}};
  const auto outcome =
      tune_trunk_conv(context, p.width, p.plane_w, p.plane_h, Storage::f32, candidates);
  ASSERT_EQ(outcome.timings.size(), 2u);
  EXPECT_TRUE(outcome.best.correct);
  EXPECT_EQ(outcome.key.width, 8);
  EXPECT_EQ(outcome.key.plane_w, 12);
  CacheHome home;
  TuneCache cache;
  cache.put(outcome.key, {outcome.best.choice, outcome.best.ms, "test"});
  cache.save(home.file());
  RuntimeOptions options;
  options.precision = Precision::f32;
  GraphRuntime runtime(context, model, 48, 32, options);
  EXPECT_EQ(runtime.trunk_choices()[1], outcome.best.choice);
  EXPECT_NE(runtime.describe().find("block1 trunk conv " + outcome.best.choice.text() + " [tuned]"),
            std::string::npos)
      << runtime.describe();
}

TEST(Tuner, CorruptCacheGivesOneWarningAndTheDefault) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  CacheHome home;
  home.write("\x01\x02 garbage");
  RuntimeOptions options;
  options.precision = Precision::f32;
  GraphRuntime runtime(context, Model::random_classic(8, 16, 5), 32, 32, options);
  ASSERT_EQ(runtime.warnings().size(), 1u);
  EXPECT_NE(runtime.warnings()[0].find("corrupt"), std::string::npos) << runtime.warnings()[0];
  EXPECT_NE(runtime.describe().find("[default]"), std::string::npos);
}

TEST(Tuner, TimesTheCandidatesAndPicksTheFastest) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  if (!context->caps().timestamps) GTEST_SKIP() << "no timestamps";
  const std::vector<ConvChoice> candidates = {{ConvKind::rb, 4, 8, 24}, {ConvKind::tiled, 4, 8, 18}};
  int seen = 0;
  const auto outcome = tune_trunk_conv(context, 16, 3, 2, Storage::f32, candidates,
                                       [&](const TuneTiming&) { ++seen; });
  EXPECT_EQ(seen, 2);
  ASSERT_EQ(outcome.timings.size(), 2u);
  EXPECT_LE(outcome.timings[0].ms, outcome.timings[1].ms);
  EXPECT_EQ(outcome.best.choice, outcome.timings[0].choice);
  EXPECT_GT(outcome.best.ms, 0.0);
  // every candidate offered for a real shape fits the device
  const ConvShape shape{240, 240, 120, 68, 1};
  for (Storage storage : {Storage::f32, Storage::f16})
    for (const auto& c : conv_candidates(context->caps(), shape, storage))
      EXPECT_TRUE(conv_unfit(context->caps(), shape, c, storage).empty()) << c.text();
  EXPECT_TRUE(outcome.best.correct);
  EXPECT_LT(outcome.best.nmse, 1e-6);
}

}  // namespace
}  // namespace framecast::vulkan
