// Helpers shared by the tests: golden cases, frame comparison, temporary folders.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "framecast/backend.hpp"
#include "framecast/error.hpp"
#include "framecast/frame.hpp"
#include "framecast/model.hpp"
#include "io/test_pattern.hpp"

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

// A .safetensors file of 256 MiB that is no model (one F32 tensor of zeros, sparse on disk):
// reading it takes long enough to be interrupted (1.2 s on the shared 2-core machine), and once
// read it is refused (a dimension above 2^24).
inline void write_large_non_model(const std::filesystem::path& path) {
  const std::size_t bytes = std::size_t(256) << 20;
  const std::string header = "{\"x\":{\"dtype\":\"F32\",\"shape\":[" + std::to_string(bytes / 4) +
                             "],\"data_offsets\":[0," + std::to_string(bytes) + "]}}";
  std::string length(8, '\0');
  for (std::size_t i = 0; i < 8; ++i) length[i] = char(header.size() >> (8 * i) & 0xff);
  std::ofstream(path, std::ios::binary) << length << header;
  std::filesystem::resize_file(path, 8 + header.size() + bytes);
}

// A shell line that starts `job` in the background, sends it `signal` (INT, TERM) as soon as it
// has a file named `open_file` open (after at most 8 s of looking), waits for it, writes the
// milliseconds from the signal to its end to `took_ms`, and exits with the job's status.
inline std::string signal_when_open(const std::string& job, const std::string& open_file,
                                    const std::string& signal, const std::filesystem::path& took_ms) {
  return job + " & pid=$!; n=0; until ls -l /proc/$pid/fd 2>/dev/null | grep -q '" + open_file +
         "' || [ $n -ge 4000 ]; do n=$((n+1)); sleep 0.002; done; t=$(date +%s%N); kill -" + signal +
         " $pid; wait $pid; s=$?; echo $(( ($(date +%s%N) - t) / 1000000 )) > " + took_ms.string() + "; exit $s";
}

inline int read_int(const std::filesystem::path& path) {
  std::ifstream in(path);
  int value = -1;
  in >> value;
  return value;
}

// A fresh `runtime` refuses prepare_next; after a pair, prepare_next(c) gives the frames of
// prepare_pair(b, c) byte for byte, twice in a row (a GPU runtime's alternating upload
// slots), and refuses a frame of the other depth.
inline void expect_prepare_next_matches_pair(Runtime& runtime, SampleDepth depth) {
  const int w = runtime.width(), h = runtime.height();
  const Frame a = io::test_pattern(w, h, 0.0f, depth), b = io::test_pattern(w, h, 5.0f, depth);
  const Frame c = io::test_pattern(w, h, 11.0f, depth);
  EXPECT_THROW(runtime.prepare_next(c), Error);
  const std::vector<float> ts = {0.3f, 0.5f};
  runtime.prepare_pair(a, b);
  const auto ab = runtime.mids(ts);
  runtime.prepare_next(c);
  const auto bc_next = runtime.mids(ts);
  runtime.prepare_next(a);
  const auto ca_next = runtime.mids(ts);
  runtime.prepare_pair(b, c);
  const auto bc = runtime.mids(ts);
  runtime.prepare_pair(c, a);
  const auto ca = runtime.mids(ts);
  for (std::size_t i = 0; i < ts.size(); ++i) {
    EXPECT_EQ(compare(bc_next[i], bc[i]).max_error, 0) << "(b, c) at t = " << ts[i];
    EXPECT_EQ(compare(ca_next[i], ca[i]).max_error, 0) << "(c, a) at t = " << ts[i];
    EXPECT_GT(compare(bc[i], ab[i]).max_error, 0) << "the pairs must differ, t = " << ts[i];
  }
  const SampleDepth other = depth == SampleDepth::u8 ? SampleDepth::u16 : SampleDepth::u8;
  EXPECT_THROW(runtime.prepare_next(io::test_pattern(w, h, 2.0f, other)), Error);
}

// Pairs overlapped as the video pipeline runs them (each pair prepared while the last one's
// mids are started, then those taken) give the frames of one pair at a time byte for byte;
// start_mids twice, or take_mids with nothing started, is refused.
inline void expect_started_mids_match_mids(Runtime& runtime, SampleDepth depth) {
  const int w = runtime.width(), h = runtime.height();
  const Frame a = io::test_pattern(w, h, 0.0f, depth), b = io::test_pattern(w, h, 5.0f, depth);
  const Frame c = io::test_pattern(w, h, 11.0f, depth);
  const std::vector<float> ts = {0.25f, 0.5f, 0.8f};
  EXPECT_THROW(runtime.take_mids(), Error);
  runtime.prepare_pair(a, b);
  runtime.start_mids(ts);
  EXPECT_THROW(runtime.start_mids(ts), Error);
  runtime.prepare_next(c);
  const auto ab = runtime.take_mids();
  runtime.start_mids(ts);
  runtime.prepare_pair(c, a);
  const auto bc = runtime.take_mids();
  runtime.start_mids(ts);
  const auto ca = runtime.take_mids();
  const std::vector<std::pair<const Frame*, const Frame*>> pairs = {{&a, &b}, {&b, &c}, {&c, &a}};
  const std::vector<const std::vector<Frame>*> started = {&ab, &bc, &ca};
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    runtime.prepare_pair(*pairs[p].first, *pairs[p].second);
    const auto one_at_a_time = runtime.mids(ts);
    ASSERT_EQ(started[p]->size(), ts.size());
    for (std::size_t i = 0; i < ts.size(); ++i)
      EXPECT_EQ(compare((*started[p])[i], one_at_a_time[i]).max_error, 0)
          << "pair " << p << " at t = " << ts[i];
  }
}

}  // namespace framecast::testing
