// The oneDNN fast path against the reference loops, stage by stage and end to end.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "backends/cpu/conv_net.hpp"
#include "backends/cpu/ops_reference.hpp"
#include "core/test_support.hpp"
#include "framecast/engine.hpp"
#include "framecast/error.hpp"
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
  prep_quarter(imgs, padded_size(w), padded_size(h), channels, t, xq);
  return xq;
}

void compare_nets(const Model& model, int w, int h) {
  const int pw = padded_size(w), ph = padded_size(h);
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

// Convex models' refinement blocks: both deconvolutions of the trunk, lastconv and upmask.
TEST(CpuPaths, ConvexRefinementBlocksStageByStage) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (const char* name : {"cx_k3_classic_50x38", "cx_k2_tfact2_37x21_guard"}) {
    const auto dir = testing::golden_dir() / name;
    const auto file = testing::read_json(dir / "case.json")["model"].get<std::string>();
    const Model model = Model::load(dir / file);
    for (const RefinementBlock& b : model.shape().blocks) {
      SCOPED_TRACE(std::string(name) + " block" + std::to_string(b.index));
      ASSERT_TRUE(b.convex);
      const BlockSpec spec{"block" + std::to_string(b.index), padded_size(77) / b.scale,
                           padded_size(45) / b.scale};
      auto fast = make_dnnl_net(model, spec);
      auto ref = make_reference_net(model, spec);
      Planes input(b.input_channels, spec.input_height, spec.input_width);
      for (auto& v : input.values) v = dist(rng);
      for (ConvNet* net : {fast.get(), ref.get()}) {
        net->encode(input);
        net->convblocks(0, 8);
      }
      Planes fast_out, ref_out;
      fast->decode(fast_out);
      ref->decode(ref_out);
      expect_close(fast_out, ref_out, "lastconv");
      fast->upmask(fast_out);
      ref->upmask(ref_out);
      EXPECT_EQ(ref_out.channels, 9 * b.upsample_factor() * b.upsample_factor());
      expect_close(fast_out, ref_out, "upmask");
    }
  }
}

// Two runs' frames at each t differ by at most max_error steps and mean_error on average.
void expect_frames_close(const std::vector<Frame>& a, const std::vector<Frame>& b,
                         const std::vector<float>& ts, int max_error, double mean_error) {
  ASSERT_EQ(a.size(), ts.size());
  ASSERT_EQ(b.size(), ts.size());
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const auto diff = testing::compare(a[i], b[i]);
    EXPECT_LE(diff.max_error, max_error) << "t=" << ts[i] << " at " << testing::where(a[i], diff.worst);
    EXPECT_LT(diff.mean_error, mean_error) << "t=" << ts[i];
  }
}

TEST(CpuPaths, EndToEndFastMatchesReferenceWithinOneLsb) {
  const Frame f0 = io::test_pattern(83, 47, 0.0f, SampleDepth::u16);
  const Frame f1 = io::test_pattern(83, 47, 5.0f, SampleDepth::u16);
  const std::vector<float> ts = {0.0f, 0.33f, 1.0f};
  RuntimeOptions f32;
  f32.precision = Precision::f32;
  Engine fast(Model::random_classic(16, 32, 9), {"cpu", -1}, f32);
  Engine ref(Model::random_classic(16, 32, 9), {"cpu-reference", -1}, f32);
  const auto a = fast.interpolate(f0, f1, ts), b = ref.interpolate(f0, f1, ts);
  for (const Frame& f : a) ASSERT_EQ(f.depth(), SampleDepth::u16);
  // At 16 bits one 8-bit LSB is 257 steps; float summation order moves a few steps at most.
  expect_frames_close(a, b, ts, 257, 2.0);
}

// Every variant's whole mid (the fast per-pixel passes included) against the reference, at an
// odd size, 8-bit: the convolutions' summation order moves a few samples by one step.
TEST(CpuPaths, EndToEndEveryVariantFastMatchesReference) {
  for (const char* name : {"tfact_37x21", "tfact2_64x48_guard", "k3_tfact2_50x38",
                           "k3_classic_37x21_guard", "cx_k3_classic_50x38",
                           "cx_k2_tfact2_37x21_guard"}) {
    SCOPED_TRACE(name);
    const auto dir = testing::golden_dir() / name;
    const auto model_file = dir / testing::read_json(dir / "case.json")["model"].get<std::string>();
    for (bool guard : {false, true}) {
      RuntimeOptions options;
      options.precision = Precision::f32;
      options.static_guard = guard;
      Engine fast(Model::load(model_file), {"cpu", -1}, options);
      Engine ref(Model::load(model_file), {"cpu-reference", -1}, options);
      const Frame f0 = io::test_pattern(77, 45, 0.0f), f1 = io::test_pattern(77, 45, 4.0f);
      const std::vector<float> ts = {0.3f, 0.5f};
      expect_frames_close(fast.interpolate(f0, f1, ts), ref.interpolate(f0, f1, ts), ts, 1, 0.01);
    }
  }
}

// bf16 storage (AMX or AVX512-BF16) against f32 on the fast path, with the shipped models on
// frames that move: bfloat16 keeps 8 bits of mantissa, yet the frames differ by at most 1-3
// steps and 0.013-0.057 on average (measured); a layout or conversion mistake is far larger.
TEST(CpuPaths, Bf16StaysCloseToF32) {
  if (cpu_bf16() == CpuBf16::none) GTEST_SKIP() << "this CPU has no bfloat16 instructions";
  const Frame f0 = io::test_pattern(160, 96, 0.0f), f1 = io::test_pattern(160, 96, 5.0f);
  const std::vector<float> ts = {0.3f, 0.5f};
  for (const char* name : {"fast", "quality", "slim"}) {
    SCOPED_TRACE(name);
    RuntimeOptions f32, bf16;
    f32.precision = Precision::f32;
    bf16.precision = Precision::bf16;
    Engine exact(Model::load(resolve_model(name)), {"cpu", -1}, f32);
    Engine brief(Model::load(resolve_model(name)), {"cpu", -1}, bf16);
    EXPECT_NE(brief.runtime(160, 96).describe().find("bf16"), std::string::npos);
    expect_frames_close(exact.interpolate(f0, f1, ts), brief.interpolate(f0, f1, ts), ts, 4, 0.1);
  }
}

TEST(CpuPaths, PrecisionsTheCpuCannotRunAreRefused) {
  const auto model_file = testing::golden_dir() / "tfact_37x21" / "model.json";
  const auto refused = [&](const char* backend, Precision precision) {
    RuntimeOptions options;
    options.precision = precision;
    try {
      Engine(Model::load(model_file), {backend, -1}, options).runtime(37, 21);
    } catch (const Error& e) {
      return e.kind() == ErrorKind::unsupported;
    }
    return false;
  };
  EXPECT_TRUE(refused("cpu", Precision::f16));
  EXPECT_TRUE(refused("cpu-reference", Precision::bf16));
  EXPECT_EQ(refused("cpu", Precision::bf16), cpu_bf16() == CpuBf16::none);
}

// BackendRequest::cancelled is asked before each network is set up (oneDNN builds its kernels
// then: about 0.5 s in all for `quality` at 640x360 here): once it says yes, the runtime's
// creation stops with Error(cancelled) before the next network.
TEST(CpuPaths, RuntimeCreationStopsBetweenNetworksWhenCancelled) {
  const auto model_file = testing::golden_dir() / "k3_tfact2_50x38" / "model.json";
  for (const char* backend : {"cpu", "cpu-reference"}) {
    SCOPED_TRACE(backend);
    int asked = 0;
    Engine engine(Model::load(model_file), {backend, -1, [&] { return ++asked > 1; }});
    try {
      engine.runtime(50, 38);
      ADD_FAILURE() << "the runtime was created despite the cancellation";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::cancelled) << e.what();
    }
    EXPECT_EQ(asked, 2);  // block0's network was set up, block1's was not
  }
}

// A pair takes seconds on a small CPU (a minute for `quality` at 1080p on this machine's two
// loaded cores), so the CPU runtime also asks between a pair's stages. A cancelled
// prepare_pair leaves no pair prepared.
TEST(CpuPaths, APairStopsBetweenStagesWhenCancelled) {
  const auto model_file = testing::golden_dir() / "k3_tfact2_50x38" / "model.json";
  const Frame frame0 = io::test_pattern(50, 38, 0.0f), frame1 = io::test_pattern(50, 38, 2.0f);
  const auto error_kind = [](auto call) {
    try {
      call();
    } catch (const Error& e) {
      return e.kind();
    }
    ADD_FAILURE() << "no error";
    return ErrorKind::internal;
  };
  bool stop = false;
  Engine engine(Model::load(model_file), {"cpu", -1, [&] { return stop; }});
  Runtime& runtime = engine.runtime(50, 38);
  runtime.prepare_pair(frame0, frame1);
  stop = true;
  EXPECT_EQ(error_kind([&] { runtime.mid(0.5f); }), ErrorKind::cancelled);
  EXPECT_EQ(error_kind([&] { runtime.prepare_pair(frame0, frame1); }), ErrorKind::cancelled);
  stop = false;
  EXPECT_EQ(error_kind([&] { runtime.mid(0.5f); }), ErrorKind::internal);  // no pair prepared
  runtime.prepare_pair(frame0, frame1);
  EXPECT_EQ(runtime.mid(0.5f).width(), 50);
}

// The profile lists the pair's stages once, then the last mid's, under the Vulkan runtime's
// names where the stages are the same.
TEST(CpuPaths, ProfileListsThePairAndTheMid) {
  const auto dir = testing::golden_dir() / "k3_tfact2_50x38";
  RuntimeOptions options;
  options.profile = true;
  for (const char* backend : {"cpu", "cpu-reference"}) {
    SCOPED_TRACE(backend);
    Engine engine(Model::load(dir / "model.json"), {backend, -1}, options);
    Runtime& runtime = engine.runtime(50, 38);
    runtime.prepare_pair(io::test_pattern(50, 38, 0.0f), io::test_pattern(50, 38, 2.0f));
    for (float t : {0.25f, 0.75f}) {
      runtime.mid(t);
      std::vector<std::string> names;
      for (const auto& s : runtime.last_profile()) {
        names.push_back(s.stage);
        EXPECT_GE(s.ms, 0.0) << s.stage;
      }
      const std::vector<std::string> want = {
          "prep",         "prep_quarter", "encoder",      "trunk",        "film",
          "trunk_tail",   "deconv",       "flow_field",   "block1.input", "block1.trunk",
          "block1.flow",  "block2.input", "block2.trunk", "block2.flow",  "refine_prep",
          "refine_convs", "refine_out",   "flow_out"};
      EXPECT_EQ(names, want);
    }
  }
}

}  // namespace
}  // namespace framecast::cpu
