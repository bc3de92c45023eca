// Helpers shared by the tests: golden cases, frame comparison, temporary folders.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "framecast/frame.hpp"
#include "framecast/model.hpp"

namespace framecast::testing {

inline std::filesystem::path golden_dir() { return std::filesystem::path(FRAMECAST_TEST_DATA) / "golden"; }

inline std::vector<std::string> golden_cases() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(golden_dir()))
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

inline nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

struct FrameDiff {
  int max_error = 0;
  double mean_error = 0.0;
  std::size_t worst = 0;  // index of the worst sample
};

inline FrameDiff compare(const Frame& a, const Frame& b) {
  FrameDiff d;
  EXPECT_EQ(a.width(), b.width());
  EXPECT_EQ(a.height(), b.height());
  if (a.sample_count() != b.sample_count()) return {1 << 20, 1e9, 0};
  double sum = 0.0;
  for (std::size_t i = 0; i < a.sample_count(); ++i) {
    const int e = std::abs(a.sample(i) - b.sample(i));
    sum += e;
    if (e > d.max_error) {
      d.max_error = e;
      d.worst = i;
    }
  }
  d.mean_error = sum / double(a.sample_count());
  return d;
}

// Where in the frame sample i lies, for failure messages.
inline std::string where(const Frame& f, std::size_t i) {
  const std::size_t pixel = i / 3;
  return "x=" + std::to_string(pixel % f.width()) + " y=" + std::to_string(pixel / f.width()) +
         " channel=" + std::to_string(i % 3);
}

// A folder under the system's temp dir, removed with its contents at the end of the test.
class TempDir {
 public:
  TempDir() {
    static std::mt19937_64 rng{std::random_device{}()};
    path_ = std::filesystem::temp_directory_path() / ("framecast-test-" + std::to_string(rng()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  // Names of the files in the folder (hidden ones too): proves nothing stray was left.
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace framecast::testing
