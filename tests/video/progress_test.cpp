#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "video/progress.hpp"

namespace framecast::video {
namespace {

Progress running() {
  Progress p;
  p.done = 1200;
  p.total = 4800;
  p.elapsed_s = 25.0;
  return p;
}

TEST(Progress, TerminalLineShowsFramesRateAndEta) {
  EXPECT_EQ(progress_line(running()), "frame 1200/4800 (25%)  48.0 fps  ETA 01:15");
  Progress pipe = running();
  pipe.total = 0;  // unknown length: no percentage, no ETA
  EXPECT_EQ(progress_line(pipe), "frame 1200  48.0 fps");
}

TEST(Progress, FramesBeyondTheDeclaredDurationRaiseTheTotal) {
  EXPECT_EQ(expected_total(144, 100, false), 144);
  EXPECT_EQ(expected_total(144, 146, false), 146);  // never "frame 146/144"
  EXPECT_EQ(expected_total(144, 146, true), 146);
  EXPECT_EQ(expected_total(144, 140, true), 140);   // a finished job wrote all there was
  EXPECT_EQ(expected_total(0, 146, true), 0);       // a pipe: the length stays unknown
}

TEST(Progress, JsonIsOneObjectPerReport) {
  const auto j = nlohmann::json::parse(progress_json(running()));
  EXPECT_EQ(j["frames"], 1200);
  EXPECT_EQ(j["total"], 4800);
  EXPECT_DOUBLE_EQ(j["percent"].get<double>(), 25.0);
  EXPECT_DOUBLE_EQ(j["fps"].get<double>(), 48.0);
  EXPECT_DOUBLE_EQ(j["eta_s"].get<double>(), 75.0);
  EXPECT_FALSE(j.contains("finished"));
  EXPECT_EQ(progress_json(running()).find('\n'), std::string::npos);
}

TEST(Progress, FinalReportHasStageRates) {
  Progress p = running();
  p.done = p.total = 4800;
  p.finished = true;
  p.decode = {2400, 4.0};
  p.interpolate = {4800, 80.0};
  p.encode = {4800, 16.0};
  p.scene_cuts = 3;
  const auto j = nlohmann::json::parse(progress_json(p));
  EXPECT_TRUE(j["finished"].get<bool>());
  EXPECT_DOUBLE_EQ(j["stage_fps"]["decode"].get<double>(), 600.0);
  EXPECT_DOUBLE_EQ(j["stage_fps"]["interpolate"].get<double>(), 60.0);
  EXPECT_DOUBLE_EQ(j["stage_fps"]["encode"].get<double>(), 300.0);
  EXPECT_EQ(j["scene_cuts"], 3);
  EXPECT_EQ(j["repeats_dropped"], 0);
  EXPECT_EQ(summary_line(p), "4800 frames in 00:25 (192.0 fps); 3 scene cuts");
  p.repeats = 1200;
  EXPECT_EQ(nlohmann::json::parse(progress_json(p))["repeats_dropped"], 1200);
  EXPECT_EQ(summary_line(p), "4800 frames in 00:25 (192.0 fps); 3 scene cuts; 1200 repeated frames dropped");
}

}  // namespace
}  // namespace framecast::video
