// framecast tune: times the trunk conv's kernel variants on a Vulkan device for every flow block
// of a model and frame size, and caches the fastest, which the Vulkan runtime then uses by itself.
#include <iomanip>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/arguments.hpp"
#include "cli/common.hpp"
#include "framecast/error.hpp"
#ifdef FRAMECAST_HAVE_VULKAN
#include "backends/vulkan/context.hpp"
#include "backends/vulkan/tuner.hpp"
#endif

namespace framecast::cli {
namespace {

struct TuneOptions {
  std::vector<std::string> sizes = {"1920x1080"};
  std::string model;
  int device = -1;
  std::string precision = "auto";
  int show = 5;
};

#ifdef FRAMECAST_HAVE_VULKAN
// One tuning of one trunk problem, reported as one line plus the runners-up and rejects.
vulkan::TuneOutcome tune_and_report(const std::shared_ptr<const vulkan::Context>& context,
                            const std::string& size, const vulkan::TrunkProblem& problem,
                            vulkan::Storage storage, int show) {
  using namespace framecast::vulkan;
  int done = 0;
  TuneOutcome outcome;
  try {
    outcome = tune_trunk_conv(
        context, problem.width, problem.plane_w, problem.plane_h, storage, {},
        [&](const TuneTiming&) {
          std::cerr << "." << std::flush;
          ++done;
        },
        [] { return interrupted.load(); });
  } catch (...) {
    if (done > 0) std::cerr << "\n";  // the error gets a line of its own
    throw;
  }
  std::cerr << "\n";
  std::cout << std::fixed << std::setprecision(4) << size << " " << storage_name(storage) << " C2="
            << problem.width << " (" << problem.plane_w << "x" << problem.plane_h
            << " trunk plane, " << done << " variants): best " << outcome.best.choice.text() << " "
            << outcome.best.ms << " ms per conv";
  const auto kernel_line = [](const TuneTiming& t) {
    if (!t.kernel.empty()) std::cout << "      compiled: " << t.kernel << "\n";
  };
  if (outcome.fallback)
    std::cout << "; default " << outcome.fallback->choice.text() << " " << outcome.fallback->ms
              << " ms (" << std::setprecision(2) << outcome.fallback->ms / outcome.best.ms << "x)";
  std::cout << "\n";
  if (show > 0) kernel_line(outcome.best);
  for (int i = 1; i < show && i < int(outcome.timings.size()); ++i) {
    const auto& t = outcome.timings[std::size_t(i)];
    if (!t.correct) continue;
    std::cout << "    " << std::setprecision(4) << t.choice.text() << " " << t.ms << " ms\n";
    kernel_line(t);
  }
  for (const auto& t : outcome.timings)
    if (!t.correct)
      std::cout << "    rejected, wrong results: " << t.choice.text() << " (NMSE "
                << std::scientific << std::setprecision(2) << t.nmse << std::fixed << ")\n";
  return outcome;
}

void run_tune(const TuneOptions& options) {
  using namespace framecast::vulkan;
  const Precision precision = parse_precision(options.precision);
  if (precision == Precision::bf16)
    throw Error(ErrorKind::unsupported, "tune measures the Vulkan backend, which stores f32 or f16 (--precision bf16)");
  // Without --model: the 240-channel student that `bench` measures by default.
  const ModelShape shape = options.model.empty() ? Model::random_classic(120, 240).shape()
                                                 : load_model(options.model).shape();
  const auto context = Context::create(options.device);
  const DeviceCaps& caps = context->caps();
  std::vector<Storage> storages;
  if (precision != Precision::f32 && caps.f16) storages.push_back(Storage::f16);
  if (precision != Precision::f16) storages.push_back(Storage::f32);
  if (storages.empty())
    throw Error(ErrorKind::unsupported, caps.name + " has no f16 arithmetic with 16-bit storage");

  const auto path = TuneCache::default_path();
  TuneCache cache = TuneCache::load(path);
  if (!cache.warning().empty()) warn(cache.warning() + "; it will be rewritten");
  std::cout << "Tuning the trunk convs (" << 1 + shape.blocks.size() << " flow block"
            << (shape.blocks.empty() ? "" : "s") << ") on [" << caps.index << "] " << caps.name
            << ", driver " << caps.driver << std::endl;  // flushed: tuning takes a while
  struct Job {
    std::string size;
    TrunkProblem problem;
    Storage storage;
  };
  std::vector<Job> jobs;
  for (const auto& size : options.sizes) {
    const auto [w, h] = parse_size(size);
    for (const TrunkProblem& problem : trunk_problems(shape, w, h))
      for (Storage storage : storages) jobs.push_back({size, problem, storage});
  }
  // Each choice is saved as soon as it is known: a model's convs take minutes on a slow GPU,
  // and an interrupt should cost only the one being timed.
  std::size_t saved = 0;
  try {
    for (const Job& job : jobs) {
      throw_if_interrupted();
      const auto outcome = tune_and_report(context, job.size, job.problem, job.storage, options.show);
      cache.put(outcome.key, {outcome.best.choice, outcome.best.ms, caps.name});
      cache.save(path);
      ++saved;
      std::cout << std::flush;
    }
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::cancelled || saved == 0) throw;
    throw Error(ErrorKind::cancelled, std::string(e.what()) + " (" + std::to_string(saved) +
                                          " of " + std::to_string(jobs.size()) +
                                          " trunk convs tuned and saved in " + path.string() + ")");
  }
  std::cout << "saved to " << path.string() << "\n";
}
#else
void run_tune(const TuneOptions&) {
  throw Error(ErrorKind::unsupported, "this build of Framecast has no Vulkan backend to tune");
}
#endif

}  // namespace

void add_tune_command(CLI::App& app) {
  auto options = std::make_shared<TuneOptions>();
  auto* cmd = app.add_subcommand(
      "tune", "time the Vulkan conv kernels for a model width and frame size; cache the fastest");
  cmd->add_option("--size", options->sizes, "frame size(s) WxH")->capture_default_str();
  cmd->add_option("--model", options->model,
                  "model file or shipped name whose trunk convs to tune (default: the 240-channel student)");
  cmd->add_option("--device", options->device, "GPU index (see `framecast info`); -1 picks one")
      ->capture_default_str();
  cmd->add_option("--precision", options->precision,
                  "auto (every precision the device has), f32 or f16")
      ->capture_default_str();
  cmd->add_option("--show", options->show,
                  "variants listed per size, each with the driver's statistics of its compiled "
                  "kernel (registers, spills) where the device reports them")->capture_default_str();
  cmd->callback([options] { run_tune(*options); });
}

}  // namespace framecast::cli
