// What the subcommands share: engine options, model resolution, and turning the library's
// errors into one line on stderr and an exit code.
#pragma once

#include <CLI/CLI.hpp>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "framecast/engine.hpp"

namespace framecast::cli {

struct EngineOptions {
  std::string model = "default";
  std::string backend = "auto";
  std::string device = "-1";  // see parse_device_selection
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
// One request per device that --backend and --device name, each with SIGINT/SIGTERM for the
// runtime's creation (kernel builds), which happens with the first frame, when the job has
// started. Several devices are GPUs: `auto` then means vulkan, never a CPU fallback per device.
// Throws Error(invalid_argument) for a list the backend cannot run on.
std::vector<BackendRequest> backend_requests(const EngineOptions& options);
Model load_model(const std::string& name_or_path);
// Loads the model, creates the engine on the one device --device names, and prints a
// fallback warning once on stderr.
Engine make_engine(const EngineOptions& options);
// One engine per device --device names, the model picked once the first backend is known
// (options.model is not used) and run by every engine, so that no frame depends on which
// device made it.
std::vector<std::unique_ptr<Engine>> make_engines(const EngineOptions& options,
                                                  const Engine::ModelPicker& pick);

void warn(const std::string& message);

// Set by SIGINT/SIGTERM; long loops poll it and unwind with Error(cancelled), so that
// temporary files are removed on the way out.
extern std::atomic<bool> interrupted;
void throw_if_interrupted();

}  // namespace framecast::cli
