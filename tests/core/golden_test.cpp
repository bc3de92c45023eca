// The CPU backends against the PyTorch reference's golden cases: at most 1 LSB anywhere.
#include <gtest/gtest.h>

#include "backends/cpu/graph.hpp"
#include "core/test_support.hpp"
#include "framecast/engine.hpp"
#include "io/image.hpp"

namespace framecast {
namespace {

using testing::golden_cases;
using testing::golden_dir;

class GoldenTest : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(GoldenTest, MatchesReferenceWithinOneLsb) {
  const auto& [name, backend] = GetParam();
  const auto dir = golden_dir() / name;
  const auto spec = testing::read_json(dir / "case.json");
  Model model = Model::load(dir / spec["model"].get<std::string>());
  ASSERT_EQ(variant_name(model.variant()), spec["variant"].get<std::string>());
  RuntimeOptions options;
  options.precision = Precision::f32;  // the reference's arithmetic; bf16 has its own tests
  options.static_guard = spec["static_guard"].get<bool>();
  options.large_motion = spec.value("large_motion", false);
  Engine engine(std::move(model), {backend, -1}, options);
  const Frame frame0 = io::read_image(dir / "frame0.png");
  const Frame frame1 = io::read_image(dir / "frame1.png");
  const auto ts = spec["t"].get<std::vector<float>>();
  const auto mids = engine.interpolate(frame0, frame1, ts);
  ASSERT_EQ(mids.size(), ts.size());
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const Frame expected = io::read_image(dir / spec["outputs"][i].get<std::string>());
    const auto diff = testing::compare(mids[i], expected);
    EXPECT_LE(diff.max_error, 1) << name << " t=" << ts[i] << " worst at "
                                 << testing::where(expected, diff.worst);
    // Most values must agree exactly; 1-LSB differences only where float order rounds apart.
    EXPECT_LT(diff.mean_error, 0.01) << name << " t=" << ts[i];
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, GoldenTest,
                         ::testing::Combine(::testing::ValuesIn(golden_cases()),
                                            ::testing::Values("cpu-reference", "cpu")),
                         [](const auto& case_info) {
                           std::string n = std::get<0>(case_info.param) + "_" + std::get<1>(case_info.param);
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// The large-motion pass picks block0's scale per mid from two sums; both CPU paths must pick
// as the reference did (make_golden.py keeps the sums apart so that rounding cannot decide).
TEST(Golden, LargeMotionChoosesAsTheReference) {
  std::set<bool> choices;
  for (const auto& name : golden_cases()) {
    const auto dir = golden_dir() / name;
    const auto spec = testing::read_json(dir / "case.json");
    if (!spec.value("large_motion", false)) continue;
    const Model model = Model::load(dir / spec["model"].get<std::string>());
    const Frame frame0 = io::read_image(dir / "frame0.png");
    const Frame frame1 = io::read_image(dir / "frame1.png");
    RuntimeOptions options;
    options.precision = Precision::f32;
    options.large_motion = true;
    const auto ts = spec["t"].get<std::vector<float>>();
    const auto expected = spec["half_chosen"].get<std::vector<bool>>();
    for (const auto path : {cpu::CpuPath::reference, cpu::CpuPath::fast}) {
      cpu::CpuRuntime runtime(model, frame0.width(), frame0.height(), options, path);
      runtime.prepare_pair(frame0, frame1);
      for (std::size_t i = 0; i < ts.size(); ++i) {
        runtime.mid(ts[i]);
        EXPECT_EQ(runtime.half_chosen(), expected[i]) << name << " t=" << ts[i];
        choices.insert(runtime.half_chosen());
      }
    }
  }
  EXPECT_EQ(choices, (std::set<bool>{false, true})) << "the cases must exercise both scales";
}

TEST(Golden, EveryVariantIsCovered) {
  std::set<std::string> variants;
  for (const auto& name : golden_cases())
    variants.insert(testing::read_json(golden_dir() / name / "case.json")["variant"].get<std::string>());
  EXPECT_EQ(variants, (std::set<std::string>{"classic", "tfact", "tfact2"}));
}

}  // namespace
}  // namespace framecast
