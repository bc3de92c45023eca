// The library's front door: load a model once, then interpolate frames of any size. The
// engine keeps one runtime per frame size, so a caller can mix sizes without paying for
// buffer setup on every pair.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "framecast/backend.hpp"
#include "framecast/frame.hpp"
#include "framecast/model.hpp"

namespace framecast {

// Resolves a model argument: a path to a model file, or one of the shipped names ("fast",
// "quality", "slim"; "default" is "fast"), found beside the executable (../assets/models or
// ./models) or in the install prefix's share/framecast/models. Throws Error(model) naming
// the places searched when nothing is found.
std::filesystem::path resolve_model(const std::string& name_or_path);

class Engine {
 public:
  Engine(Model model, const BackendRequest& backend = {}, const RuntimeOptions& options = {});
  // The model chosen once the backend is known (e.g. a larger model on a hardware GPU):
  // `pick` sees the backend that was made for the request.
  using ModelPicker = std::function<Model(const Backend&)>;
  Engine(const ModelPicker& pick, const BackendRequest& backend = {},
         const RuntimeOptions& options = {});

  const Model& model() const noexcept { return model_; }
  const RuntimeOptions& options() const noexcept { return options_; }
  const std::string& backend_name() const noexcept { return backend_name_; }
  // Non-empty when `auto` fell back to another backend than the one it prefers.
  const std::string& backend_warning() const noexcept { return backend_warning_; }

  // The frame at position t in [0,1] between frame0 (t = 0) and frame1 (t = 1).
  Frame interpolate(const Frame& frame0, const Frame& frame1, float t);
  // Several t for one pair with the pair-only work done once.
  std::vector<Frame> interpolate(const Frame& frame0, const Frame& frame1,
                                 std::span<const float> ts);
  // interpolate(F, next, ts), F being the frame1 of the last interpolate at next's size: a
  // video's consecutive pairs share a frame, which then is not uploaded again.
  std::vector<Frame> interpolate_next(const Frame& next, std::span<const float> ts);
  // interpolate(frame0, frame1, ts) and interpolate_next(next, ts) in two halves, so that a
  // video's pairs overlap: start* prepares the pair and starts its mids, finish() returns the
  // mids of the oldest started pair. Starting pair k + 1 before finishing pair k lets a GPU
  // copy pair k + 1 in while pair k's mids compute, and those mids out while pair k + 1's
  // t-free work runs. Finish each pair before starting the one after next.
  void start(const Frame& frame0, const Frame& frame1, std::span<const float> ts);
  void start_next(const Frame& next, std::span<const float> ts);
  std::vector<Frame> finish();
  // The runtime for one frame size (created on first use and kept).
  Runtime& runtime(int width, int height);
  // A new runtime for one frame size, owned by the caller; the engine must outlive it.
  std::unique_ptr<Runtime> create_runtime(int width, int height);

 private:
  Engine(BackendChoice choice, const ModelPicker& pick, const RuntimeOptions& options);

  RuntimeOptions options_;  // before model_: checked before the model is picked (and read)
  Model model_;
  std::unique_ptr<Backend> backend_;
  std::string backend_name_;
  std::string backend_warning_;
  std::map<std::pair<int, int>, std::unique_ptr<Runtime>> runtimes_;
  // Prepares the pair on `runtime`, takes the last pair's mids, starts this pair's.
  void start_on(Runtime& runtime, std::span<const float> ts, const std::function<void()>& prepare);
  Runtime* started_ = nullptr;          // the runtime whose started mids are not taken
  std::optional<std::vector<Frame>> taken_;  // the older pair's mids, taken while starting a newer
};

}  // namespace framecast
