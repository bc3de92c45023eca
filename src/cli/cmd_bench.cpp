// framecast bench: mids per second of a backend at given sizes. Median of timed runs after
// warm-up; with --profile, the per-stage times of the last run.
#include <algorithm>
#include <chrono>
#include <future>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/arguments.hpp"
#include "cli/common.hpp"
#include "framecast/error.hpp"
#include "io/test_pattern.hpp"

namespace framecast::cli {
namespace {

struct BenchOptions {
  EngineOptions engine;
  std::vector<std::string> sizes = {"1280x720"};
  int mids = 1;
  int warmup = 2;
  int runs = 5;
  bool profile = false;
  bool json = false;
  bool stream = false;  // pairs after the first share a frame, as a video's do
};

struct BenchResult {
  int width = 0, height = 0;
  double ms_per_pair = 0.0;       // device-side time where the backend measures it, else wall
  double wall_ms_per_pair = 0.0;  // host wall clock (uploads, readbacks and waits included)
  bool device_time = false;
  std::vector<StageTime> stages;
  std::string runtime;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// A backend's notes for the user (an ignored tuning cache, ...), each shown once.
void warn_once(const Runtime& runtime) {
  static std::vector<std::string> shown;
  for (const auto& w : runtime.warnings())
    if (std::find(shown.begin(), shown.end(), w) == shown.end()) {
      warn(w);
      shown.push_back(w);
    }
}

BenchResult bench_size(Engine& engine, int width, int height, const BenchOptions& options) {
  const Frame frame0 = io::test_pattern(width, height, 0.0f);
  const Frame frame1 = io::test_pattern(width, height, 6.0f);
  std::vector<float> ts;
  for (int i = 1; i <= options.mids; ++i) ts.push_back(float(i) / float(options.mids + 1));
  Runtime& runtime = engine.runtime(width, height);
  std::vector<double> times, device_times;
  // --stream overlaps the pairs as the video pipeline does: pair i is prepared while pair
  // i - 1's mids compute, then those are taken and pair i's started. A step's wall time is
  // then one pair's share of a stream, and its device time pair i - 1's; the first step
  // only starts the stream and is not counted.
  const int steps = options.warmup + options.runs + (options.stream ? 1 : 0);
  const int first_timed = steps - options.runs;
  for (int i = 0; i < steps; ++i) {
    throw_if_interrupted();
    const auto start = std::chrono::steady_clock::now();
    if (options.stream && i > 0) {
      runtime.prepare_next(i % 2 ? frame0 : frame1);  // the pairs go back and forth
      runtime.take_mids();
    } else {
      runtime.prepare_pair(frame0, frame1);
    }
    if (options.stream) {
      runtime.start_mids(ts);
    } else {
      runtime.mids(ts);
    }
    const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
    if (i >= first_timed) {
      times.push_back(ms.count());
      if (runtime.last_device_ms() >= 0.0) device_times.push_back(runtime.last_device_ms());
    }
  }
  if (options.stream) runtime.take_mids();
  const bool device = device_times.size() == times.size();
  return {width,  height, device ? median(device_times) : median(times), median(times), device,
          runtime.last_profile(), runtime.describe()};
}

// Every engine at once, each on its own thread, as when the devices share a job.
std::vector<BenchResult> bench_size_on_each(const std::vector<std::unique_ptr<Engine>>& engines,
                                            int width, int height, const BenchOptions& options) {
  std::vector<std::future<BenchResult>> running;
  for (const auto& engine : engines)
    running.push_back(std::async(std::launch::async, [&, e = engine.get()] {
      return bench_size(*e, width, height, options);
    }));
  std::vector<BenchResult> results;
  for (auto& r : running) results.push_back(r.get());
  for (const auto& engine : engines) warn_once(engine->runtime(width, height));
  return results;
}

void print_result(const BenchResult& r, const std::string& size, const BenchOptions& options) {
  const double ms_per_mid = r.ms_per_pair / options.mids;
  std::cout << std::fixed << std::setprecision(3) << size << "  " << r.runtime
            << "  " << options.mids << " mid(s)/pair: " << r.ms_per_pair << " ms/pair, " << ms_per_mid
            << " ms/mid, " << std::setprecision(2) << 1000.0 / ms_per_mid << " mids/s";
  if (r.device_time)
    std::cout << std::setprecision(3) << " (GPU time; wall " << r.wall_ms_per_pair << " ms/pair)";
  std::cout << "\n";
  std::size_t name_width = 0;
  for (const auto& s : r.stages) name_width = std::max(name_width, s.stage.size());
  for (const auto& s : r.stages)
    std::cout << "    " << std::left << std::setw(int(name_width) + 2) << s.stage << std::right
              << std::setprecision(3) << std::setw(9) << s.ms << " ms\n";
}

nlohmann::json result_json(const BenchResult& r, const std::string& size, const Engine& engine,
                           const BenchOptions& options) {
  const double ms_per_mid = r.ms_per_pair / options.mids;
  nlohmann::json entry = {{"size", size},
                          {"runtime", r.runtime},
                          {"model", engine.model().source()},
                          {"mids_per_pair", options.mids},
                          {"frames_uploaded_per_pair", options.stream ? 1 : 2},
                          {"ms_per_pair", r.ms_per_pair},
                          {"timing", r.device_time ? "device" : "wall"},
                          {"wall_ms_per_pair", r.wall_ms_per_pair},
                          {"ms_per_mid", ms_per_mid},
                          {"mids_per_s", 1000.0 / ms_per_mid}};
  for (const auto& s : r.stages) entry["stages_ms"][s.stage] = s.ms;
  return entry;
}

void run_bench(const BenchOptions& options) {
  if (options.mids < 1 || options.runs < 1 || options.warmup < 0)
    throw Error(ErrorKind::invalid_argument, "--mids and --runs must be at least 1");
  RuntimeOptions runtime = runtime_options(options.engine);
  runtime.profile = options.profile;
  // Without --model: random weights of the 240-channel classic student's shape.
  const Model model = options.engine.model.empty() ? Model::random_classic(120, 240)
                                                   : load_model(options.engine.model);
  std::vector<std::unique_ptr<Engine>> engines;
  for (const BackendRequest& request : backend_requests(options.engine)) {
    engines.push_back(std::make_unique<Engine>(model, request, runtime));
    if (!engines.back()->backend_warning().empty()) warn(engines.back()->backend_warning());
  }

  nlohmann::json report = nlohmann::json::array();
  for (const auto& size : options.sizes) {
    const auto [w, h] = parse_size(size);
    const std::vector<BenchResult> results = bench_size_on_each(engines, w, h, options);
    double mids_per_s = 0.0;
    for (std::size_t i = 0; i < results.size(); ++i) {
      mids_per_s += 1000.0 * options.mids / results[i].ms_per_pair;
      if (options.json)
        report.push_back(result_json(results[i], size, *engines[i], options));
      else
        print_result(results[i], size, options);
    }
    if (results.size() < 2) continue;
    // The devices side by side: what a job spread over all of them could reach.
    if (options.json)
      report.push_back({{"size", size}, {"devices", results.size()}, {"mids_per_s", mids_per_s}});
    else
      std::cout << size << "  " << results.size() << " devices: " << std::setprecision(2)
                << mids_per_s << " mids/s\n";
  }
  if (options.json) std::cout << report.dump(2) << "\n";
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto options = std::make_shared<BenchOptions>();
  options->engine.model.clear();
  auto* cmd = app.add_subcommand("bench", "measure mids per second (median after warm-up)");
  add_engine_options(*cmd, options->engine, false);
  cmd->add_option("--size", options->sizes, "frame size(s) WxH")->capture_default_str();
  cmd->add_option("--mids", options->mids, "mids per pair")->capture_default_str();
  cmd->add_option("--warmup", options->warmup, "untimed runs first")->capture_default_str();
  cmd->add_option("--runs", options->runs, "timed runs (median reported)")->capture_default_str();
  cmd->add_flag("--profile", options->profile, "per-stage times of the last run");
  cmd->add_flag("--json", options->json, "machine-readable output");
  cmd->add_flag("--stream", options->stream,
                "each pair after the first shares a frame with the one before, as in a video "
                "(one frame uploaded per pair)");
  cmd->callback([options] { run_bench(*options); });
}

}  // namespace framecast::cli
