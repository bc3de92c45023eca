#include "cli/common.hpp"

#include <algorithm>
#include <iostream>

#include "cli/arguments.hpp"
#include "framecast/error.hpp"

namespace framecast::cli {

std::atomic<bool> interrupted{false};

void throw_if_interrupted() {
  if (interrupted) throw Error(ErrorKind::cancelled, "interrupted");
}

void warn(const std::string& message) { std::cerr << "framecast: warning: " << message << "\n"; }

void add_engine_options(CLI::App& command, EngineOptions& options, bool with_guard) {
  // Like most tools, a repeated option means its last value (scripts append overrides).
  command.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  command.add_option("--model", options.model,
                     "model file (.safetensors or .json with .bin) or a shipped name: fast, "
                     "quality, slim (default: fast; interpolate: quality on a GPU)")
      ->capture_default_str();
  command.add_option("--backend", options.backend, "auto, cpu, cpu-reference or vulkan")
      ->capture_default_str();
  command.add_option("--device", options.device,
                     "GPU index (see `framecast info`), -1 to pick one; interpolate and bench also "
                     "take a list such as 0,1 or all, one engine per device")
      ->capture_default_str();
  command.add_option("--precision", options.precision,
                     "auto, f32, f16 (GPUs) or bf16 (CPUs with bfloat16 instructions)")
      ->capture_default_str();
  command.add_option("--ensemble", options.ensemble,
                     "average 1, 2 or 4 runs of the model per frame (the pair as given, turned "
                     "by 180 degrees, in reverse order): more accurate, 2 or 4 times the work")
      ->capture_default_str();
  command.add_option("--large-motion", options.large_motion,
                     "on: also estimate the flow at half resolution and keep, per frame, the "
                     "flow that aligns the two frames better (for motion beyond ~50 px; "
                     "costs ~25% of the first flow block); off: one scale")
      ->capture_default_str();
  if (with_guard)
    command.add_flag("--static-guard", options.static_guard,
                     "keep regions that are identical in both frames (text, logos) untouched");
  command.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::Throw);
}

Precision parse_precision(const std::string& text) {
  if (text == "auto") return Precision::automatic;
  if (text == "f32") return Precision::f32;
  if (text == "f16") return Precision::f16;
  if (text == "bf16") return Precision::bf16;
  throw Error(ErrorKind::invalid_argument, "unknown precision '" + text + "' (auto, f32, f16, bf16)");
}

RuntimeOptions runtime_options(const EngineOptions& options) {
  RuntimeOptions r;
  r.precision = parse_precision(options.precision);
  r.static_guard = options.static_guard;
  r.ensemble = options.ensemble;
  if (options.large_motion != "on" && options.large_motion != "off")
    throw Error(ErrorKind::invalid_argument,
                "unknown --large-motion '" + options.large_motion + "' (on, off)");
  r.large_motion = options.large_motion == "on";
  return r;
}

namespace {

std::string index_list(const std::vector<int>& indices) {
  std::string text;
  for (int i : indices) text += (text.empty() ? "" : ", ") + std::to_string(i);
  return text;
}

// The devices of a selection: `all` from the backend, a list checked against them.
std::vector<int> selected_devices(const EngineOptions& options) {
  const DeviceSelection selection = parse_device_selection(options.device);
  if (selection.indices.size() == 1) return selection.indices;  // the backend checks it
  const std::vector<int> available = all_devices(options.backend);
  if (available == std::vector<int>{-1} && options.backend != "auto" && !selection.all)
    throw Error(ErrorKind::invalid_argument, "--device '" + options.device + "': the " +
                                                 options.backend +
                                                 " backend runs on one device; lists are for GPUs");
  if (selection.all) {
    if (available.empty()) throw Error(ErrorKind::device, "--device all: no usable Vulkan device");
    return available;
  }
  const std::vector<int> usable = all_devices("vulkan");
  for (int index : selection.indices)
    if (std::find(usable.begin(), usable.end(), index) == usable.end())
      throw Error(ErrorKind::invalid_argument,
                  "--device '" + options.device + "': there is no usable Vulkan device " +
                      std::to_string(index) +
                      (usable.empty() ? std::string(" (none is usable)")
                                      : " (usable: " + index_list(usable) + ")"));
  return selection.indices;
}

}  // namespace

std::vector<BackendRequest> backend_requests(const EngineOptions& options) {
  const std::vector<int> devices = selected_devices(options);
  const std::string backend = devices.size() > 1 && options.backend == "auto" ? "vulkan" : options.backend;
  std::vector<BackendRequest> requests;
  for (int device : devices) requests.emplace_back(backend, device, [] { return interrupted.load(); });
  return requests;
}

Model load_model(const std::string& name_or_path) {
  return Model::load(resolve_model(name_or_path), [] { return interrupted.load(); });
}

Engine make_engine(const EngineOptions& options) {
  const auto runtime = runtime_options(options);  // validates before the model is read
  const auto requests = backend_requests(options);
  if (requests.size() != 1)
    throw Error(ErrorKind::invalid_argument,
                "--device '" + options.device + "': this command runs on one device");
  Engine engine(load_model(options.model), requests.front(), runtime);
  if (!engine.backend_warning().empty()) warn(engine.backend_warning());
  return engine;
}

std::vector<std::unique_ptr<Engine>> make_engines(const EngineOptions& options,
                                                  const Engine::ModelPicker& pick) {
  const auto runtime = runtime_options(options);  // validates before the model is read
  std::vector<std::unique_ptr<Engine>> engines;
  for (const BackendRequest& request : backend_requests(options)) {
    const Engine::ModelPicker first_model = [&](const Backend&) { return engines.front()->model(); };
    engines.push_back(std::make_unique<Engine>(engines.empty() ? pick : first_model, request, runtime));
    if (!engines.back()->backend_warning().empty()) warn(engines.back()->backend_warning());
  }
  return engines;
}

}  // namespace framecast::cli
