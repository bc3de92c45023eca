// The scene-cut thumbnail of one 1920x1080 frame, which the decoding thread makes for every
// source frame: the best of 30 runs.
//
//   build/bench/bench_thumbnail
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "io/test_pattern.hpp"
#include "video/scene_cut.hpp"

int main() {
  using namespace framecast;
  const Frame frame = io::test_pattern(1920, 1080, 3.0f);
  double best_ms = 1e9;
  for (int run = 0; run < 30; ++run) {
    const auto start = std::chrono::steady_clock::now();
    const video::Thumbnail thumbnail = video::make_thumbnail(frame);
    const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
    best_ms = std::min(best_ms, ms.count());
    if (thumbnail.luma.empty()) return 1;
  }
  std::printf("scene-cut thumbnail of a 1920x1080 RGB8 frame: %.2f ms (best of 30)\n", best_ms);
}
