#include "video/duplicates.hpp"

#include <algorithm>
#include <cmath>

#include "framecast/error.hpp"
#include "video/luma.hpp"

namespace framecast::video {
namespace {

constexpr int block = 8;  // half-resolution pixels per block side

// Half-resolution luma of interleaved RGB samples, in 8-bit levels times `scale`, summed over
// 2x2 pixels in integers. A last odd row or column counts twice, which keeps its mean. Rows
// in parallel, as the scene-cut thumbnail's: on one thread a 1080p frame took 2.6 ms of the
// decoding thread, 1.7 times the thumbnail.
template <typename Sample>
void half_luma_of(const Sample* rgb, int width, int height, float scale, int half_width,
                  std::vector<float>& out) {
  const auto luma = [](const Sample* p) { return std::int64_t(weighted_luma(p)); };
  const float to_levels = scale / (65536.0f * 4.0f);
  const std::size_t row = std::size_t(width) * 3;
  const int half_height = (height + 1) / 2;
#pragma omp parallel for schedule(static) num_threads(4)
  for (int half_y = 0; half_y < half_height; ++half_y) {
    const int y = 2 * half_y;
    const Sample* r0 = rgb + std::size_t(y) * row;
    const Sample* r1 = y + 1 < height ? r0 + row : r0;
    float* o = out.data() + std::size_t(half_y) * half_width;
    int x = 0;
    for (; x + 1 < width; x += 2, r0 += 6, r1 += 6)
      *o++ = float(luma(r0) + luma(r0 + 3) + luma(r1) + luma(r1 + 3)) * to_levels;
    if (x < width) *o = float(2 * (luma(r0) + luma(r1))) * to_levels;
  }
}

}  // namespace

DuplicateFilter::DuplicateFilter(DedupSettings settings) : settings_(settings) {
  if (!(settings.threshold > 0.0))
    throw Error(ErrorKind::invalid_argument, "--dedup-threshold must be above 0");
  if (settings.max_run < 1)
    throw Error(ErrorKind::invalid_argument, "--dedup-run must be at least 1");
}

void DuplicateFilter::half_luma(const Frame& frame, HalfLuma& luma) {
  luma.width = (frame.width() + 1) / 2;
  luma.height = (frame.height() + 1) / 2;
  luma.values.resize(std::size_t(luma.width) * luma.height);
  if (frame.depth() == SampleDepth::u8)
    half_luma_of(frame.rgb8().data(), frame.width(), frame.height(), 1.0f, luma.width, luma.values);
  else
    half_luma_of(frame.rgb16().data(), frame.width(), frame.height(), 1.0f / 257.0f, luma.width,
                 luma.values);
}

// Block row by block row, so a changed frame (the common case) is usually decided early.
bool DuplicateFilter::repeats(const HalfLuma& luma) const {
  if (luma.width != kept_.width || luma.height != kept_.height) return false;
  const int blocks_across = (luma.width + block - 1) / block;
  std::vector<float> sums(static_cast<std::size_t>(blocks_across));
  for (int y0 = 0; y0 < luma.height; y0 += block) {
    const int rows = std::min(block, luma.height - y0);
    std::fill(sums.begin(), sums.end(), 0.0f);
    for (int y = y0; y < y0 + rows; ++y) {
      const float* a = &luma.values[std::size_t(y) * luma.width];
      const float* b = &kept_.values[std::size_t(y) * luma.width];
      for (int x = 0; x < luma.width; ++x) sums[std::size_t(x / block)] += std::abs(a[x] - b[x]);
    }
    for (int bx = 0; bx < blocks_across; ++bx) {
      const int cols = std::min(block, luma.width - bx * block);
      if (sums[std::size_t(bx)] >= float(settings_.threshold) * float(rows * cols)) return false;
    }
  }
  return true;
}

bool DuplicateFilter::drop(const Frame& frame) {
  half_luma(frame, candidate_);
  if (run_ < settings_.max_run && repeats(candidate_)) {
    ++run_;
    ++dropped_;
    return true;
  }
  std::swap(kept_, candidate_);
  run_ = 0;
  return false;
}

}  // namespace framecast::video
