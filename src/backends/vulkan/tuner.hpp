// The conv autotuner: times the trunk conv's variants (kernel kind, COC, slab, tile stride)
// for one trunk width and plane on this device with timestamp queries, and persists the
// fastest in the tuning cache, which runtimes consult when they are created. A model has one
// such problem per flow block scale and width (trunk_problems).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/vulkan/context.hpp"
#include "backends/vulkan/kernels.hpp"
#include "backends/vulkan/tune_cache.hpp"
#include "framecast/model.hpp"

namespace framecast::vulkan {

struct TuneTiming {
  ConvChoice choice;
  double ms = 0.0;     // device time of one conv (the best of two timed batches)
  double nmse = 0.0;   // its output against the tiled kernel's on the same random data
  bool correct = true; // a variant that disagrees is never chosen (a driver bug, a kernel bug)
  std::string kernel;  // the driver's statistics of the compiled kernel (Pipeline::statistics)
};

struct TuneOutcome {
  TuneKey key;
  std::string device;
  std::vector<TuneTiming> timings;  // every candidate that ran, correct ones fastest first
  TuneTiming best;                  // the fastest correct one
  std::optional<TuneTiming> fallback;  // the runtime's default choice, for comparison
};

// The variants worth timing for this shape, storage and device (each one fits them).
std::vector<ConvChoice> conv_candidates(const DeviceCaps& caps, const ConvShape& shape,
                                        Storage storage);

// Times `candidates` (all of conv_candidates() when empty) for a trunk conv of `width`
// channels on the plane of a padded frame (plane = padded size / 16), each on the same random
// data, checked against the tiled kernel. `progress` sees each timing once all are timed.
// `cancelled`, polled before each candidate is built and before each timed batch (all
// candidates at once: about 5 ms each on a GPU, seconds in all on lavapipe), gives up with
// Error(cancelled). Throws Error(unsupported) without timestamps.
TuneOutcome tune_trunk_conv(std::shared_ptr<const Context> context, int width, int plane_w,
                            int plane_h, Storage storage, std::vector<ConvChoice> candidates = {},
                            const std::function<void(const TuneTiming&)>& progress = {},
                            const std::function<bool()>& cancelled = {});

// The runtime's choice for a trunk conv when nothing is tuned, fitted to the device and shape.
ConvChoice default_trunk_choice(const DeviceCaps& caps, const ConvShape& shape, Storage storage);

// A trunk conv problem as the tuning cache keys it: trunk width and plane.
struct TrunkProblem {
  int width = 0, plane_w = 0, plane_h = 0;
  bool operator==(const TrunkProblem&) const = default;
};
// The distinct trunk problems of a model for w x h frames, each of which a runtime looks up
// in the cache: block0's (plane = padded size / 16) and every refinement block's (padded size
// / (4 x its scale)), and the large-motion pass's block0 at 1/8 (the size padded to 32, / 32).
// Tuning a model means tuning each of them.
std::vector<TrunkProblem> trunk_problems(const ModelShape& shape, int w, int h);

}  // namespace framecast::vulkan
