#include "cli/common.hpp"

#include <iostream>

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
  command.add_option("--device", options.device, "GPU index (see `framecast info`); -1 picks one")
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

BackendRequest backend_request(const EngineOptions& options) {
  return {options.backend, options.device, [] { return interrupted.load(); }};
}

Model load_model(const std::string& name_or_path) {
  return Model::load(resolve_model(name_or_path), [] { return interrupted.load(); });
}

Engine make_engine(const EngineOptions& options) {
  return make_engine(options, [&](const Backend&) { return load_model(options.model); });
}

Engine make_engine(const EngineOptions& options, const Engine::ModelPicker& pick) {
  const auto runtime = runtime_options(options);  // validates before the model is read
  Engine engine(pick, backend_request(options), runtime);
  if (!engine.backend_warning().empty()) warn(engine.backend_warning());
  return engine;
}

}  // namespace framecast::cli
