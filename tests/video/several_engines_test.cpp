// One job on several engines, as `--device 0,1` runs it: byte for byte the output of one
// engine, with a scene cut, an ensemble, the large-motion pass and a rate whose slots mix
// blends and repeats; and bad device lists as one-line errors that leave nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "framecast/engine.hpp"
#include "io/image.hpp"
#include "io/test_pattern.hpp"
#include "video/pipeline.hpp"
#include "video/scene_cut.hpp"
#include "video/video_support.hpp"

namespace framecast::test {
namespace {

class SeveralEngines : public ::testing::Test {
 protected:
  void SetUp() override { make_cut_clip(path("in.y4m")); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // The job at 2.5x (blends at several t, a repeated frame at the cut) on `engines`, whole
  // or one segment.
  video::Progress interpolate(const std::vector<Engine*>& engines, const std::string& output,
                              std::optional<video::Segment> segment = {}) {
    video::InterpolateJob job;
    job.input = path("in.y4m");
    job.output = path(output);
    job.rate = {video::Rational(5, 2), true};
    job.scene_threshold = video::default_scene_threshold;
    job.segment = segment;
    return video::run_interpolation(job, engines, {});
  }

  // CPU engines of the tiny model with an ensemble and the large-motion pass.
  std::unique_ptr<Engine> cpu_engine(std::function<bool()> cancelled = {}) const {
    RuntimeOptions options;
    options.ensemble = 2;
    options.large_motion = true;
    return std::make_unique<Engine>(Model::load(model_), BackendRequest{"cpu", -1, cancelled}, options);
  }

  // Both outputs hold `count` frames of the clip, byte for byte the same.
  void expect_same_frames(const std::string& one, const std::string& several,
                          std::size_t count = 60) const {
    const std::string frames = y4m_frames(path(one));
    EXPECT_GT(frames.size(), count * 160 * 90);
    EXPECT_TRUE(frames == y4m_frames(path(several))) << several << " differs from " << one;
  }

  // Only the inputs are in the folder: no output, no temporary file.
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir_.path()))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  ScratchDir dir_;
  std::filesystem::path model_ = tiny_model(dir_.path());
};

// Each engine's CPU runtime asks its own `cancelled` between the stages of a pair: counting
// the calls shows that both engines made frames.
TEST_F(SeveralEngines, TwoCpuEnginesWriteTheOneEnginesBytes) {
  std::atomic<int> asked[3] = {0, 0, 0};
  const auto engine = [&](std::atomic<int>& count) {
    return cpu_engine([&count] {
      ++count;
      return false;
    });
  };
  auto alone_engine = engine(asked[0]), first = engine(asked[1]), second = engine(asked[2]);
  const video::Progress alone = interpolate({alone_engine.get()}, "one.y4m");
  const video::Progress together = interpolate({first.get(), second.get()}, "two.y4m");

  EXPECT_GT(asked[1], 0);
  EXPECT_GT(asked[2], 0);
  EXPECT_EQ(alone.scene_cuts, 1);
  EXPECT_EQ(together.scene_cuts, 1);
  EXPECT_EQ(together.done, 60);
  EXPECT_EQ(together.synthesized, alone.synthesized);
  expect_same_frames("one.y4m", "two.y4m");
}

// The last third decodes from a frame past the cut (the seek lead is 8 source frames) and
// resumes with the whole run's decisions, whichever engines make its frames.
TEST_F(SeveralEngines, ASegmentOnTwoEnginesIsTheOneEnginesSegment) {
  auto alone = cpu_engine(), first = cpu_engine(), second = cpu_engine();
  const video::Segment last{2, 3};
  EXPECT_EQ(interpolate({alone.get()}, "one.y4m", last).done, 20);
  EXPECT_EQ(interpolate({first.get(), second.get()}, "two.y4m", last).done, 20);
  expect_same_frames("one.y4m", "two.y4m", 20);
}

TEST_F(SeveralEngines, TwoVulkanDevicesWriteTheOneDevicesBytes) {
  TwoLavapipes lavapipes;
  if (all_devices("vulkan").size() < 2) GTEST_SKIP() << "Vulkan does not list lavapipe twice";
  const std::string job = "interpolate --backend vulkan --precision f32 --ensemble 2 --large-motion on "
                          "--progress json --factor 2.5 --model " + model_.string() + " -i " +
                          path("in.y4m");
  const RunResult one = run_framecast(job + " --device 1 -o " + path("one.y4m"));
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const RunResult all = run_framecast(job + " --device all -o " + path("all.y4m"));
  ASSERT_EQ(all.exit_code, 0) << all.err;

  const auto first = nlohmann::json::parse(all.err.substr(0, all.err.find('\n')));
  EXPECT_EQ(first["devices"], 2);
  EXPECT_EQ(first["ensemble"], 2);
  EXPECT_NE(all.err.find("\"scene_cuts\":1"), std::string::npos) << all.err;
  expect_same_frames("one.y4m", "all.y4m");
}

// Two software devices: `auto` keeps to the CPU, as it does with one; vulkan takes both.
TEST_F(SeveralEngines, InfoSaysWhatDeviceAllRunsOn) {
  TwoLavapipes lavapipes;
  if (all_devices("vulkan").size() < 2) GTEST_SKIP() << "Vulkan does not list lavapipe twice";
  ASSERT_EQ(run_framecast("info --json > " + path("info.json")).exit_code, 0);
  std::ifstream json(path("info.json"));
  const auto info = nlohmann::json::parse(json);
  EXPECT_EQ(info["device_all"]["vulkan"], nlohmann::json({0, 1}));
  EXPECT_EQ(info["device_all"]["auto"], nlohmann::json({-1}));
  ASSERT_EQ(run_framecast("info > " + path("info.txt")).exit_code, 0);
  std::ifstream text_file(path("info.txt"));
  const std::string text{std::istreambuf_iterator<char>(text_file), {}};
  EXPECT_NE(text.find("--device all runs on: the CPU; with --backend vulkan: Vulkan devices 0, 1\n"),
            std::string::npos) << text;
}

TEST_F(SeveralEngines, BenchTimesEveryDeviceAndAddsThemUp) {
  TwoLavapipes lavapipes;
  if (all_devices("vulkan").size() < 2) GTEST_SKIP() << "Vulkan does not list lavapipe twice";
  const RunResult r = run_framecast("bench --backend vulkan --device 0,1 --size 64x48 --warmup 0 --runs 1 "
                                    "--json --model " + model_.string() + " > " + path("bench.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream json(path("bench.json"));
  const auto report = nlohmann::json::parse(json);
  ASSERT_EQ(report.size(), 3u) << report.dump();
  const double each = report[0]["mids_per_s"].get<double>() + report[1]["mids_per_s"].get<double>();
  EXPECT_EQ(report[2]["devices"], 2);
  EXPECT_NEAR(report[2]["mids_per_s"].get<double>(), each, each * 1e-9);
}

// `pair` makes one runtime: a list of two devices is refused before any work.
TEST_F(SeveralEngines, PairRefusesSeveralDevices) {
  TwoLavapipes lavapipes;
  if (all_devices("vulkan").size() < 2) GTEST_SKIP() << "Vulkan does not list lavapipe twice";
  io::write_png(dir_ / "in0.png", io::test_pattern(50, 38, 0.0f));
  io::write_png(dir_ / "in1.png", io::test_pattern(50, 38, 3.0f));
  const std::vector<std::string> inputs = files();
  const RunResult r = run_framecast("pair " + path("in0.png") + " " + path("in1.png") + " --model " +
                                    model_.string() + " --backend vulkan --device all -o " + path("mid.png"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--device 'all': this command runs on one device"), std::string::npos) << r.err;
  EXPECT_EQ(files(), inputs);
}

TEST_F(SeveralEngines, InterruptOnTwoDevicesLeavesNothing) {
  TwoLavapipes lavapipes;
  if (all_devices("vulkan").size() < 2) GTEST_SKIP() << "Vulkan does not list lavapipe twice";
  make_clip("-f lavfi -i testsrc2=s=160x90:r=24:d=30 -c:v libx264 -preset ultrafast " + path("in.mp4"));
  const std::vector<std::string> inputs = files();
  const RunResult r = run_shell(std::string(FRAMECAST_BINARY) + " interpolate --progress none --model " +
                                model_.string() + " --backend vulkan --device all -i " + path("in.mp4") +
                                " -o " + path("out.mp4") + " --factor 2 & pid=$!; sleep 1.5; kill -INT $pid; "
                                "wait $pid");
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_NE(r.err.find("interrupted"), std::string::npos) << r.err;
  EXPECT_EQ(files(), inputs);
}

TEST_F(SeveralEngines, BadDeviceListsAreOneLineErrorsLeavingNothing) {
  const std::vector<std::string> inputs = files();
  const std::pair<std::string, std::string> cases[] = {
      {"--device 0,0", "--device '0,0': device 0 is listed twice"},
      {"--device 0,x", "'x' is not a device index"},
      {"--device 0,,1", "an empty entry is not a device index"},
      {"--device=-1,0", "'-1' is not a device index"},
      {"--device all,0", "'all' is not a device index"},
      {"--backend cpu --device 0,1", "the cpu backend runs on one device"},
      {"--backend vulkan --device 0,9", "there is no usable Vulkan device 9"},
      {"--backend warp --device all", "unknown backend 'warp'"},
  };
  for (const auto& [args, message] : cases) {
    const RunResult r = run_framecast("interpolate --model " + model_.string() + " -i " + path("in.y4m") +
                                      " -o " + path("out.mkv") + " --factor 2 " + args);
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_EQ(files(), inputs) << args;
  }
}

}  // namespace
}  // namespace framecast::test
