#include "vulkan/vk_test_support.hpp"

#include <cmath>
#include <mutex>
#include <random>

#include "framecast/error.hpp"

namespace framecast::vulkan::testing {
namespace {

// Validation on for every Vulkan object the tests create; errors fail the running test.
class ValidationEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    set_validation(true);
    set_validation_handler(
        [](const std::string& message) { ADD_FAILURE() << "Vulkan validation: " << message; });
  }
  void TearDown() override { set_validation_handler(nullptr); }
};

const auto* const environment = ::testing::AddGlobalTestEnvironment(new ValidationEnvironment);

}  // namespace

std::shared_ptr<Context> shared_context(std::string* why_none) {
  static std::mutex mutex;
  static std::shared_ptr<Context> context;
  static std::string none;
  static bool tried = false;
  std::lock_guard lock(mutex);
  if (!tried) {
    tried = true;
    try {
      context = Context::create(-1);
    } catch (const Error& e) {
      // Skip only when there is no device to test on; a device that fails to start is a bug.
      bool any_device = false;
      try {
        any_device = !Instance().devices().empty();
      } catch (const Error&) {
      }
      if (any_device) {
        ADD_FAILURE() << "a Vulkan device exists but the backend cannot start: " << e.what();
      }
      none = e.what();
    }
  }
  if (why_none) *why_none = none;
  return context;
}

ErrorStats compare_values(std::span<const float> actual, std::span<const float> expected) {
  ErrorStats s;
  double num = 0.0, den = 0.0;
  const std::size_t n = std::min(actual.size(), expected.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(actual[i])) {
      ++s.non_finite;
      continue;
    }
    const double d = double(actual[i]) - double(expected[i]);
    num += d * d;
    den += double(expected[i]) * double(expected[i]);
    if (std::abs(d) > s.max_abs) {
      s.max_abs = std::abs(d);
      s.worst = i;
    }
  }
  s.nmse = den > 0.0 ? num / den : num;
  return s;
}

std::vector<float> random_values(std::size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

}  // namespace framecast::vulkan::testing
