// framecast plan -i IN (--factor F | --fps R) --segments N: where to cut a job into parts that
// separate runs make (`interpolate --frames B:E`), as one JSON object on stdout.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "framecast/error.hpp"
#include "video/pipeline.hpp"

namespace framecast::cli {
namespace {

struct PlanOptions {
  std::string input, factor, fps;
  std::int64_t segments = 1;
};

void run_plan(const PlanOptions& o) {
  if (o.segments < 1) throw Error(ErrorKind::invalid_argument, "--segments must be at least 1");
  const video::SegmentPlan plan =
      video::plan_segments(o.input, video::parse_rate_request(o.factor, o.fps), o.segments);
  nlohmann::json parts = nlohmann::json::array();
  for (const video::FrameRange& part : plan.parts) {
    const std::string end = part.end ? std::to_string(*part.end) : "";
    parts.push_back({{"frames", std::to_string(part.begin) + ":" + end},
                     {"begin", part.begin},
                     {"end", part.end ? nlohmann::json(*part.end) : nlohmann::json(nullptr)}});
  }
  std::cout << nlohmann::json{{"input", o.input},
                              {"rate", plan.rate.str()},
                              {"frames", plan.total},
                              {"key_frames", plan.key_frames.size()},
                              {"parts", parts}}
                   .dump()
            << "\n";
}

}  // namespace

void add_plan_command(CLI::App& app) {
  auto options = std::make_shared<PlanOptions>();
  auto* cmd = app.add_subcommand(
      "plan", "where to cut an interpolation into parts for separate runs: JSON with each part's "
              "--frames, boundaries just after key frames where one is near");
  cmd->add_option("-i,--input", options->input, "input video (a file: its packets are read)")->required();
  auto* factor = cmd->add_option("--factor", options->factor, "as for interpolate");
  auto* fps = cmd->add_option("--fps", options->fps, "as for interpolate");
  factor->excludes(fps);
  cmd->add_option("--segments", options->segments, "how many parts")->capture_default_str();
  cmd->callback([options] { run_plan(*options); });
}

}  // namespace framecast::cli
