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
  double ms = 0.0;  // device time of one conv (the best of two timed batches)
};

struct TuneOutcome {
  TuneKey key;
  std::string device;
  std::vector<TuneTiming> timings;  // every candidate that ran, fastest first
  TuneTiming best;
  std::optional<TuneTiming> fallback;  // the runtime's default choice, for comparison
};

// The variants worth timing for this shape on this device (each one fits it).
std::vector<ConvChoice> conv_candidates(const DeviceCaps& caps, const ConvShape& shape);

// Times `candidates` (all of conv_candidates() when empty) for a trunk conv of `width`
// channels on the plane of a padded frame (plane = padded size / 16). `progress` sees each
// timing as it comes. Throws Error(unsupported) without timestamps.
TuneOutcome tune_trunk_conv(std::shared_ptr<const Context> context, int width, int plane_w,
                            int plane_h, Storage storage, std::vector<ConvChoice> candidates = {},
                            const std::function<void(const TuneTiming&)>& progress = {});

// The runtime's choice when nothing is tuned.
ConvChoice default_trunk_choice();

}  // namespace framecast::vulkan
