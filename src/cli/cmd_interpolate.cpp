// framecast interpolate -i IN -o OUT (--factor F | --fps R): a video at a higher frame rate.
#include <unistd.h>

#include <csignal>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "framecast/error.hpp"
#include "video/pipeline.hpp"
#include "video/scene_cut.hpp"

namespace framecast::cli {
namespace {

struct InterpolateOptions {
  std::string input, output, factor, fps;
  EngineOptions engine;
  double scene_threshold = video::default_scene_threshold;
  bool no_scene_detect = false;
  bool dedup = false;
  video::DedupSettings dedup_settings;
  std::string codec, preset;
  std::optional<int> crf;
  std::string progress = "auto";
  bool strict = false;
  std::string segment, frames;
};

// Prints the job's progress on stderr (stdout may carry the video): a line redrawn in place
// on a terminal, one line per report elsewhere, JSON objects, or nothing.
class Reporter {
 public:
  explicit Reporter(const std::string& mode) : terminal_(isatty(STDERR_FILENO) != 0) {
    mode_ = mode == "auto" ? (terminal_ ? "plain" : "none") : mode;
  }

  void started(const std::string& line) {
    if (mode_ == "plain") std::cerr << "framecast: " << line << "\n";
  }
  // Which model and backend run the job, on how many devices: a line, or the first JSON object.
  void started(const Engine& engine, std::size_t devices) {
    const Model& model = engine.model();
    const std::string file = std::filesystem::path(model.source()).filename().string();
    const std::size_t blocks = 1 + model.shape().blocks.size();
    const int passes = engine.options().ensemble;
    const bool large_motion = engine.options().large_motion;
    if (mode_ == "json")
      std::cerr << nlohmann::json{{"model", file},
                                  {"flow_blocks", blocks},
                                  {"large_motion", large_motion},
                                  {"ensemble", passes},
                                  {"backend", engine.backend_name()},
                                  {"devices", devices}}
                       .dump()
                << std::endl;
    started("model " + file + " (" + std::to_string(blocks) + " flow block" +
            (blocks > 1 ? "s" : "") + (large_motion ? ", large-motion pass" : "") +
            (passes > 1 ? ", ensemble of " + std::to_string(passes) + " passes" : "") +
            ") on the " + engine.backend_name() + " backend" +
            (devices > 1 ? ", " + std::to_string(devices) + " devices" : ""));
  }
  void warning(const std::string& text) {
    clear_line();
    warn(text);
  }
  void progress(const video::Progress& p) {
    if (mode_ == "json") {
      std::cerr << video::progress_json(p) << std::endl;
    } else if (mode_ == "plain" && terminal_) {
      std::cerr << "\r" << video::progress_line(p) << "\033[K" << std::flush;
      line_shown_ = true;
    } else if (mode_ == "plain") {
      std::cerr << video::progress_line(p) << std::endl;
    }
  }
  void finished(const video::Progress& p) {
    clear_line();
    if (mode_ == "json") std::cerr << video::progress_json(p) << std::endl;
    if (mode_ == "plain") std::cerr << "framecast: " << video::summary_line(p) << std::endl;
  }
  // Errors are printed by main(); a live line must not be left half-overwritten.
  void clear_line() {
    if (line_shown_) std::cerr << "\r\033[K" << std::flush;
    line_shown_ = false;
  }

 private:
  bool terminal_;
  std::string mode_;
  bool line_shown_ = false;
};

// `--model default` (the default) picks the tier: quality when a hardware GPU writes a file,
// fast otherwise (the CPU could not keep up with quality's ~2x cost, and a pipe is often
// watched live). An explicit name or file is used as given.
std::vector<std::unique_ptr<Engine>> make_interpolation_engines(const EngineOptions& options,
                                                                bool to_file) {
  return make_engines(options, [&](const Backend& backend) {
    if (options.model != "default" || !to_file) return load_model(options.model);
    return load_model(backend.hardware_gpu() ? "quality" : "fast");
  });
}

video::InterpolateJob make_job(const InterpolateOptions& o) {
  video::InterpolateJob job;
  job.input = o.input;
  job.output = o.output;
  job.rate = video::parse_rate_request(o.factor, o.fps);
  if (!o.no_scene_detect) {
    if (!(o.scene_threshold > 0.0 && o.scene_threshold <= 1.0))
      throw Error(ErrorKind::invalid_argument, "--scene-threshold must be in (0, 1]");
    job.scene_threshold = o.scene_threshold;
  }
  if (o.dedup) job.dedup = o.dedup_settings;
  job.strict = o.strict;
  job.encoder = {o.codec, o.crf, o.preset};
  if (!o.segment.empty()) job.segment = video::parse_segment(o.segment, "--segment");
  if (!o.frames.empty()) job.frames = video::parse_frame_range(o.frames, "--frames");
  return job;
}

void run_interpolate(const InterpolateOptions& options) {
  const video::InterpolateJob job = make_job(options);
  if (job.output == "-") {
    if (isatty(STDOUT_FILENO))
      throw Error(ErrorKind::invalid_argument,
                  "-o - writes yuv4mpeg video to stdout, which is a terminal; pipe or redirect it");
    // A reader that goes away should give an error message, not a silent SIGPIPE death.
    std::signal(SIGPIPE, SIG_IGN);
  }
  const auto engines = make_interpolation_engines(options.engine, job.output != "-");
  std::vector<Engine*> workers;
  for (const auto& engine : engines) workers.push_back(engine.get());
  Reporter reporter(options.progress);
  video::PipelineHooks hooks;
  hooks.cancelled = [] { return interrupted.load(); };
  hooks.warning = [&](const std::string& text) { reporter.warning(text); };
  // Once input and output are open: a job that fails to start prints its error alone.
  hooks.started = [&](const std::string& line) {
    reporter.started(*engines.front(), engines.size());
    reporter.started(line);
  };
  hooks.progress = [&](const video::Progress& p) { reporter.progress(p); };
  try {
    reporter.finished(video::run_interpolation(job, workers, hooks));
  } catch (...) {
    reporter.clear_line();
    throw;
  }
}

}  // namespace

void add_interpolate_command(CLI::App& app) {
  auto options = std::make_shared<InterpolateOptions>();
  auto* cmd = app.add_subcommand(
      "interpolate", "write a video at a higher frame rate (audio, subtitles and colours kept)");
  cmd->add_option("-i,--input", options->input, "input video; - reads yuv4mpeg from stdin")->required();
  cmd->add_option("-o,--output", options->output,
                  "output video, container from the extension (mp4, mkv, mov, webm, y4m, ...); "
                  "- writes yuv4mpeg to stdout")
      ->required();
  auto* factor = cmd->add_option("--factor", options->factor,
                                 "output rate as a multiple of the input's: 2, 2.5, 5/2");
  auto* fps = cmd->add_option("--fps", options->fps,
                              "output frames per second: 60, 59.94 (= 60000/1001), 60000/1001");
  factor->excludes(fps);
  cmd->callback([options] { run_interpolate(*options); });
  add_engine_options(*cmd, options->engine);
  auto* threshold = cmd->add_option("--scene-threshold", options->scene_threshold,
                                    "scene-cut score above which no frame is blended (0..1]")
                        ->capture_default_str();
  cmd->add_flag("--no-scene-detect", options->no_scene_detect,
                "blend across every pair, cuts included")
      ->excludes(threshold);
  auto* dedup = cmd->add_flag("--dedup", options->dedup,
                              "drop frames that repeat the previous picture (animation on twos "
                              "or threes, low-rate captures) and interpolate across the motion");
  cmd->add_option("--dedup-threshold", options->dedup_settings.threshold,
                  "block difference (8-bit levels) below which a frame is a repeat")
      ->capture_default_str()
      ->needs(dedup);
  cmd->add_option("--dedup-run", options->dedup_settings.max_run,
                  "most repeats dropped in a row: how far a still may stretch into the next motion")
      ->capture_default_str()
      ->needs(dedup);
  cmd->add_option("--codec", options->codec,
                  "video encoder (default: libx264 for mp4/mkv/mov, libvpx-vp9 for webm)");
  cmd->add_option("--crf", options->crf, "encoder quality (libx264 default 18, libvpx-vp9 31)");
  cmd->add_option("--preset", options->preset, "encoder preset, e.g. slow, medium, fast (libx264)");
  cmd->add_option("--progress", options->progress,
                  "auto (a live line on a terminal), plain, json (one object per second on stderr) "
                  "or none")
      ->check(CLI::IsMember({"auto", "plain", "json", "none"}))
      ->capture_default_str();
  cmd->add_flag("--strict", options->strict, "stop at damaged input frames instead of bridging them");
  auto* segment = cmd->add_option(
      "--segment", options->segment,
      "K/N: write only part K (0..N-1) of N equal parts of the output frames, with the "
      "whole run's frames, timestamps and scene cuts; video only (mux the input's "
      "audio and subtitles once, after joining the parts)");
  cmd->add_option("--frames", options->frames,
                  "B:E or B: (to the end): write only output frames B to E-1, as --segment does; "
                  "`framecast plan` gives parts that decode least")
      ->excludes(segment);
}

}  // namespace framecast::cli
