// What the decoding thread computes for every source frame of one 1920x1080 frame: the
// scene-cut thumbnail, and with --dedup the duplicate filter's decision on a repeat (the
// whole frame compared) and on a changed frame. The best of 30 runs each.
//
//   build/bench/bench_thumbnail
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>

#include "io/test_pattern.hpp"
#include "video/duplicates.hpp"
#include "video/scene_cut.hpp"

namespace {

double best_ms(const std::function<void()>& work) {
  double best = 1e9;
  for (int run = 0; run < 30; ++run) {
    const auto start = std::chrono::steady_clock::now();
    work();
    const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
    best = std::min(best, ms.count());
  }
  return best;
}

}  // namespace

int main() {
  using namespace framecast;
  const Frame frame = io::test_pattern(1920, 1080, 3.0f);
  const Frame moved = io::test_pattern(1920, 1080, 6.0f);
  bool ok = true;
  const double thumbnail_ms = best_ms([&] { ok &= !video::make_thumbnail(frame).luma.empty(); });
  // max_run 1: the repeat after each kept frame is dropped, the next kept and compared again.
  video::DuplicateFilter repeats({6.0, 1});
  repeats.drop(frame);
  const double repeat_ms = best_ms([&] { repeats.drop(frame); });
  video::DuplicateFilter changes({});
  bool next = false;
  const double change_ms = best_ms([&] { ok &= !changes.drop((next = !next) ? moved : frame); });
  if (!ok || repeats.dropped() == 0) return 1;
  std::printf("1920x1080 RGB8 frame, best of 30: scene-cut thumbnail %.2f ms; duplicate filter "
              "%.2f ms on a repeat, %.2f ms on a changed frame\n",
              thumbnail_ms, repeat_ms, change_ms);
}
