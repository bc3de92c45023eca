// Shared by the Vulkan tests: a context on the test device with validation on (every
// validation error fails the running test), skipping only when the machine has no Vulkan
// device at all; and comparisons with NMSE and max error.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backends/vulkan/context.hpp"

namespace framecast::vulkan::testing {

// The context shared by a test binary's tests, or nullptr with the reason when no Vulkan
// device exists (then the caller skips). Any other failure to start fails the test.
std::shared_ptr<Context> shared_context(std::string* why_none);

#define FRAMECAST_VK_CONTEXT_OR_SKIP(var)                       \
  std::string var##_why_none;                                   \
  auto var = ::framecast::vulkan::testing::shared_context(&var##_why_none); \
  if (!var) GTEST_SKIP() << "no Vulkan device: " << var##_why_none

struct ErrorStats {
  double nmse = 0.0;       // sum((a-b)^2) / sum(b^2)
  double max_abs = 0.0;    // max |a - b|
  std::size_t worst = 0;   // index of the max
  std::size_t non_finite = 0;
};
ErrorStats compare_values(std::span<const float> actual, std::span<const float> expected);

// Deterministic values uniform in [lo, hi].
std::vector<float> random_values(std::size_t n, float lo, float hi, unsigned seed);

}  // namespace framecast::vulkan::testing
