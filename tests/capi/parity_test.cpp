// The C API computes what the C++ Engine computes, byte for byte, with the options passed
// through: same model, same frames, the CPU backend.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/test_support.hpp"
#include "framecast/engine.hpp"
#include "framecast/framecast.h"
#include "io/image.hpp"
#include "io/test_pattern.hpp"

namespace framecast {
namespace {

constexpr int kWidth = 75, kHeight = 42;

framecast_frame view(Frame& f) {
  const int bytes = f.depth() == SampleDepth::u8 ? 1 : 2;
  void* data = f.depth() == SampleDepth::u8 ? static_cast<void*>(f.rgb8().data())
                                            : static_cast<void*>(f.rgb16().data());
  return {data, f.width(), f.height(), std::size_t(f.width()) * 3 * bytes, bytes * 8};
}

// The frames at `ts` through the C API: the batch, and each t alone (which must agree).
std::vector<Frame> c_api_mids(const std::string& model_name, const framecast_options& options,
                              Frame f0, Frame f1, const std::vector<float>& ts) {
  framecast_model* model = nullptr;
  framecast_runtime* runtime = nullptr;
  EXPECT_EQ(framecast_model_load(model_name.c_str(), &options, &model), FRAMECAST_OK)
      << framecast_last_error();
  EXPECT_EQ(framecast_runtime_create(model, f0.width(), f0.height(), &runtime), FRAMECAST_OK)
      << framecast_last_error();
  framecast_model_destroy(model);
  const framecast_frame v0 = view(f0), v1 = view(f1);
  EXPECT_EQ(framecast_prepare_pair(runtime, &v0, &v1), FRAMECAST_OK) << framecast_last_error();
  std::vector<Frame> batch(ts.size(), Frame(f0.width(), f0.height(), f0.depth()));
  std::vector<framecast_frame> outs;
  for (auto& f : batch) outs.push_back(view(f));
  EXPECT_EQ(framecast_mids(runtime, ts.data(), outs.data(), ts.size()), FRAMECAST_OK)
      << framecast_last_error();
  for (std::size_t i = 0; i < ts.size(); ++i) {
    Frame alone(f0.width(), f0.height(), f0.depth());
    const framecast_frame out = view(alone);
    EXPECT_EQ(framecast_mid(runtime, ts[i], &out), FRAMECAST_OK) << framecast_last_error();
    EXPECT_EQ(testing::compare(alone, batch[i]).max_error, 0) << "t = " << ts[i];
  }
  framecast_runtime_destroy(runtime);
  return batch;
}

void expect_parity(const framecast_options& c_options, const RuntimeOptions& cpp_options,
                   SampleDepth depth) {
  const Frame f0 = io::test_pattern(kWidth, kHeight, 0.0f, depth);
  const Frame f1 = io::test_pattern(kWidth, kHeight, 6.0f, depth);
  const std::vector<float> ts = {0.25f, 0.5f, 0.75f};
  Engine engine(Model::load(resolve_model("fast")), {"cpu", -1}, cpp_options);
  const auto expected = engine.interpolate(f0, f1, ts);
  const auto got = c_api_mids("fast", c_options, f0, f1, ts);
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const auto d = testing::compare(got[i], expected[i]);
    EXPECT_EQ(d.max_error, 0) << "t = " << ts[i] << " at " << testing::where(got[i], d.worst);
  }
}

framecast_options cpu_options() {
  framecast_options o;
  framecast_options_init(&o);
  o.backend = "cpu";
  o.precision = FRAMECAST_PRECISION_F32;
  return o;
}

RuntimeOptions cpp_options(bool large_motion, int ensemble) {
  RuntimeOptions o;
  o.precision = Precision::f32;
  o.large_motion = large_motion;
  o.ensemble = ensemble;
  return o;
}

TEST(CApi, DefaultsMatchTheEngineWithTheLargeMotionPass) {
  expect_parity(cpu_options(), cpp_options(true, 1), SampleDepth::u8);
}

TEST(CApi, SixteenBitFramesMatchTheEngine) {
  expect_parity(cpu_options(), cpp_options(true, 1), SampleDepth::u16);
}

TEST(CApi, EnsembleWithoutLargeMotionMatchesTheEngine) {
  auto o = cpu_options();
  o.ensemble = 2;
  o.large_motion = 0;
  expect_parity(o, cpp_options(false, 2), SampleDepth::u8);
}

// The options reach the engine: each changes the frames (else the tests above prove little).
// In this golden case the large-motion pass takes the half-resolution flow at t = 0.7.
TEST(CApi, OptionsChangeTheResult) {
  const auto dir = testing::golden_dir() / "lm_classic_50x38";
  const std::string model = (dir / "model.json").string();
  const Frame f0 = io::read_image(dir / "frame0.png"), f1 = io::read_image(dir / "frame1.png");
  auto plain = cpu_options();
  plain.large_motion = 0;
  auto ensemble = plain, large = plain;
  ensemble.ensemble = 2;
  large.large_motion = 1;
  const auto base = c_api_mids(model, plain, f0, f1, {0.7f});
  EXPECT_GT(testing::compare(c_api_mids(model, ensemble, f0, f1, {0.7f})[0], base[0]).max_error, 0);
  EXPECT_GT(testing::compare(c_api_mids(model, large, f0, f1, {0.7f})[0], base[0]).max_error, 0);
}

// prepare_next: the pair (f1, f2) from the kept f1, as the Engine computes it; refused
// before any pair and for a frame of another depth.
TEST(CApi, PrepareNextMatchesTheEngine) {
  Frame f0 = io::test_pattern(kWidth, kHeight, 0.0f), f1 = io::test_pattern(kWidth, kHeight, 6.0f);
  Frame f2 = io::test_pattern(kWidth, kHeight, 12.0f);
  Frame deep = io::test_pattern(kWidth, kHeight, 3.0f, SampleDepth::u16);
  const framecast_options options = cpu_options();
  framecast_model* model = nullptr;
  framecast_runtime* runtime = nullptr;
  ASSERT_EQ(framecast_model_load("fast", &options, &model), FRAMECAST_OK) << framecast_last_error();
  ASSERT_EQ(framecast_runtime_create(model, kWidth, kHeight, &runtime), FRAMECAST_OK);
  framecast_model_destroy(model);
  const framecast_frame v0 = view(f0), v1 = view(f1), v2 = view(f2), vdeep = view(deep);
  EXPECT_EQ(framecast_prepare_next(runtime, &v2), FRAMECAST_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(framecast_last_error()).find("no pair is prepared"), std::string::npos);
  ASSERT_EQ(framecast_prepare_pair(runtime, &v0, &v1), FRAMECAST_OK) << framecast_last_error();
  EXPECT_EQ(framecast_prepare_next(runtime, &vdeep), FRAMECAST_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(framecast_prepare_next(runtime, &v2), FRAMECAST_OK) << framecast_last_error();
  Frame got(kWidth, kHeight);
  const framecast_frame out = view(got);
  ASSERT_EQ(framecast_mid(runtime, 0.5f, &out), FRAMECAST_OK) << framecast_last_error();
  framecast_runtime_destroy(runtime);
  Engine engine(Model::load(resolve_model("fast")), {"cpu", -1}, cpp_options(true, 1));
  const auto d = testing::compare(got, engine.interpolate(f1, f2, 0.5f));
  EXPECT_EQ(d.max_error, 0) << testing::where(got, d.worst);
}

}  // namespace
}  // namespace framecast
