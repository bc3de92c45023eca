// Test-time ensembles: a Runtime that runs the model on transformed copies of each pair and
// averages the frames, as RIFE's --ensemble and rife-ncnn-vulkan's TTA mode do. The network
// is not symmetric under these transforms, so its errors partly cancel: on DAVIS-val two
// passes gain 0.3 dB and four 0.4-0.5 (MODELS.md), at two and four times the work.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "framecast/backend.hpp"

namespace framecast {

// Whether `passes` is an ensemble size the engine offers: 1 (no ensemble), 2 or 4.
bool valid_ensemble(int passes);

// How one pass transforms the pair before the model sees it.
struct EnsemblePass {
  bool turned;    // both frames turned by 180 degrees, the result turned back
  bool reversed;  // frame1 first, at 1 - t
};
// The passes of an ensemble of 2 or 4 (see make_ensemble_runtime), the first as given.
std::span<const EnsemblePass> ensemble_passes(int passes);
// The t a pass asks its runtime for: 1 - t where it reverses the pair.
std::vector<float> pass_ts(const EnsemblePass& pass, std::span<const float> ts);

// What an ensemble reports of one call's work: device milliseconds summed over its parts
// (negative once a part has none), and with `profile` every part's stages.
class EnsembleTimes {
 public:
  explicit EnsembleTimes(bool profile) : profile_(profile) {}
  void restart();  // a new call: nothing counted yet
  // A part of the work: its device time and stages, the stages' names after `prefix`.
  void add(double device_ms, const std::vector<StageTime>& stages, const std::string& prefix = "");
  // Pass p (from 0) as the inner runtime measured it: stages named "pass<p + 1>.<stage>".
  void add_pass(std::size_t p, const Runtime& inner);
  // Work on the host, a stage only.
  void add_host_stage(const std::string& stage, double ms);
  double device_ms() const noexcept { return device_ms_; }
  const std::vector<StageTime>& stages() const noexcept { return stages_; }

 private:
  bool profile_;
  double device_ms_ = -1.0;
  std::vector<StageTime> stages_;
};

// Wraps `inner` so each mid averages `passes` runs of it (for backends that do not run
// ensembles themselves, Backend::runs_ensembles):
//   2: the pair as given, and the pair turned by 180 degrees in reverse order (t -> 1 - t);
//   4: as given, turned, reversed, and turned and reversed.
// The mean of the passes' frames is rounded to the input's depth; `profile` keeps each
// pass's stages (see last_profile).
std::unique_ptr<Runtime> make_ensemble_runtime(std::unique_ptr<Runtime> inner, int passes,
                                               bool profile);

}  // namespace framecast
