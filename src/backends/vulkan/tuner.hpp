// The conv autotuner: times the trunk conv's variants (kernel kind, COC, slab, tile stride)
// for one width and frame size on this device with timestamp queries, and persists the
// fastest in the tuning cache, which runtimes consult when they are created.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/vulkan/context.hpp"
#include "backends/vulkan/kernels.hpp"
#include "backends/vulkan/tune_cache.hpp"

namespace framecast::vulkan {

struct TuneTiming {
  ConvChoice choice;
  double ms = 0.0;     // device time of one conv (the best of two timed batches)
  double nmse = 0.0;   // its output against the tiled kernel's on the same random data
  bool correct = true; // a variant that disagrees is never chosen (a driver bug, a kernel bug)
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
// data, checked against the tiled kernel. `progress` sees each timing as it comes. Throws
// Error(unsupported) without timestamps.
TuneOutcome tune_trunk_conv(std::shared_ptr<const Context> context, int width, int plane_w,
                            int plane_h, Storage storage, std::vector<ConvChoice> candidates = {},
                            const std::function<void(const TuneTiming&)>& progress = {});

// The runtime's choice when nothing is tuned.
ConvChoice default_trunk_choice();

}  // namespace framecast::vulkan
