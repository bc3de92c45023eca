// What the subcommands share: engine options, model resolution, and turning the library's
// errors into one line on stderr and an exit code.
#pragma once

#include <CLI/CLI.hpp>
#include <atomic>
#include <string>

#include "framecast/engine.hpp"

namespace framecast::cli {

struct EngineOptions {
  std::string model = "default";
  std::string backend = "auto";
  int device = -1;
  std::string precision = "auto";
  bool static_guard = false;
  int ensemble = 1;
  std::string large_motion = "on";
};

// --model, --backend, --device, --precision, --ensemble, --large-motion (and --static-guard
// when `with_guard`).
void add_engine_options(CLI::App& command, EngineOptions& options, bool with_guard = true);

Precision parse_precision(const std::string& text);
RuntimeOptions runtime_options(const EngineOptions& options);
// --backend and --device, and SIGINT/SIGTERM for the runtime's creation (kernel builds), which
// happens with the first frame, when the job has started.
BackendRequest backend_request(const EngineOptions& options);
Model load_model(const std::string& name_or_path);
// Loads the model, creates the engine, and prints a fallback warning once on stderr.
Engine make_engine(const EngineOptions& options);
// The same with the model picked once the backend is known (options.model is not used).
Engine make_engine(const EngineOptions& options, const Engine::ModelPicker& pick);

void warn(const std::string& message);

// Set by SIGINT/SIGTERM; long loops poll it and unwind with Error(cancelled), so that
// temporary files are removed on the way out.
extern std::atomic<bool> interrupted;
void throw_if_interrupted();

}  // namespace framecast::cli
