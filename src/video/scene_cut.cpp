#include "video/scene_cut.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "framecast/error.hpp"

namespace framecast::video {
namespace {

constexpr int thumb_width = 56;
constexpr int block = 8;
constexpr int search = 2;
constexpr float flat = 0.02f;

struct BlockStats {
  float mean = 0.0f, deviation = 0.0f;
};

BlockStats stats(const Thumbnail& t, int x0, int y0) {
  float sum = 0.0f, squares = 0.0f;
  for (int y = y0; y < y0 + block; ++y)
    for (int x = x0; x < x0 + block; ++x) {
      const float v = t.luma[std::size_t(y) * t.width + x];
      sum += v;
      squares += v * v;
    }
  constexpr float n = block * block;
  const float mean = sum / n;
  return {mean, std::sqrt(std::max(0.0f, squares / n - mean * mean))};
}

float correlation(const Thumbnail& a, int ax, int ay, const BlockStats& sa, const Thumbnail& b,
                  int bx, int by) {
  const BlockStats sb = stats(b, bx, by);
  float covariance = 0.0f;
  for (int y = 0; y < block; ++y)
    for (int x = 0; x < block; ++x)
      covariance += (a.luma[std::size_t(ay + y) * a.width + ax + x] - sa.mean) *
                    (b.luma[std::size_t(by + y) * b.width + bx + x] - sb.mean);
  return covariance / (block * block) / (sa.deviation * sb.deviation + 1e-9f);
}

// Adds each pixel's luma to its thumbnail cell. A column's cell is looked up, not divided out
// per pixel: with a division and a depth branch per sample this ran at ~60 frames/s at 1080p
// and was the interpolation thread's largest cost on a GPU. Thumbnail rows are summed in
// parallel (a row's cells see the same sums in the same order as serially).
template <typename Sample>
void add_luma(const Sample* rgb, int width, int height, float scale, const Thumbnail& t,
              std::vector<float>& sums, std::vector<int>& counts) {
  std::vector<std::size_t> column_cell(static_cast<std::size_t>(width));
  for (int x = 0; x < width; ++x) column_cell[std::size_t(x)] = std::size_t(x) * t.width / width;
  // Source row y belongs to thumbnail row y * t.height / height: rows first_row(r) up to
  // first_row(r + 1).
  const auto first_row = [&](int r) {
    return int((std::int64_t(r) * height + t.height - 1) / t.height);
  };
#pragma omp parallel for schedule(static) num_threads(4)
  for (int r = 0; r < t.height; ++r) {
    const std::size_t row = std::size_t(r) * t.width;
    for (int y = first_row(r); y < first_row(r + 1); ++y) {
      const Sample* p = rgb + std::size_t(y) * width * 3;
      for (int x = 0; x < width; ++x, p += 3) {
        // Rec. 709 luma weights on the stored (gamma-encoded) values.
        const float luma = 0.2126f * float(p[0]) + 0.7152f * float(p[1]) + 0.0722f * float(p[2]);
        const std::size_t cell = row + column_cell[std::size_t(x)];
        sums[cell] += luma * scale;
        counts[cell] += 1;
      }
    }
  }
}

}  // namespace

Thumbnail make_thumbnail(const Frame& frame) {
  Thumbnail t;
  t.width = std::min(thumb_width, frame.width());
  t.height = std::max(1, int(std::lround(double(t.width) * frame.height() / frame.width())));
  std::vector<float> sums(std::size_t(t.width) * t.height, 0.0f);
  std::vector<int> counts(sums.size(), 0);
  const float scale = 1.0f / float(frame.max_value());
  if (frame.depth() == SampleDepth::u8)
    add_luma(frame.rgb8().data(), frame.width(), frame.height(), scale, t, sums, counts);
  else
    add_luma(frame.rgb16().data(), frame.width(), frame.height(), scale, t, sums, counts);
  t.luma.resize(sums.size());
  for (std::size_t i = 0; i < sums.size(); ++i) t.luma[i] = sums[i] / float(counts[i]);
  return t;
}

double scene_change(const Thumbnail& a, const Thumbnail& b) {
  if (a.width != b.width || a.height != b.height)
    throw Error(ErrorKind::invalid_argument, "scene_change: thumbnails differ in size");
  std::vector<float> dissimilarity;
  for (int y0 = 0; y0 + block <= a.height; y0 += block)
    for (int x0 = 0; x0 + block <= a.width; x0 += block) {
      const BlockStats sa = stats(a, x0, y0);
      if (sa.deviation < flat || stats(b, x0, y0).deviation < flat) continue;
      float best = -1.0f;
      for (int dy = -search; dy <= search; ++dy)
        for (int dx = -search; dx <= search; ++dx) {
          const int bx = x0 + dx, by = y0 + dy;
          if (bx < 0 || by < 0 || bx + block > b.width || by + block > b.height) continue;
          best = std::max(best, correlation(a, x0, y0, sa, b, bx, by));
        }
      dissimilarity.push_back((1.0f - best) * 0.5f);
    }
  if (dissimilarity.empty()) return 0.0;
  const auto middle = dissimilarity.begin() + std::ptrdiff_t(dissimilarity.size() / 2);
  std::nth_element(dissimilarity.begin(), middle, dissimilarity.end());
  if (dissimilarity.size() % 2) return *middle;
  const float below = *std::max_element(dissimilarity.begin(), middle);
  return 0.5 * (double(below) + double(*middle));
}

SceneCutDetector::SceneCutDetector(double threshold) : threshold_(threshold) {
  if (!(threshold > 0.0 && threshold <= 1.0))
    throw Error(ErrorKind::invalid_argument,
                "the scene threshold must be in (0, 1] (got " + std::to_string(threshold) + ")");
}

void SceneCutDetector::add(Thumbnail thumbnail) { window_.push_back(std::move(thumbnail)); }

bool SceneCutDetector::exceeds(std::int64_t a, std::int64_t b) const {
  return scene_change(window_[std::size_t(a - first_)], window_[std::size_t(b - first_)]) >
         threshold_;
}

bool SceneCutDetector::cut_between(std::int64_t k) {
  while (first_ < k - span + 1) {
    window_.pop_front();
    ++first_;
  }
  if (k < first_ || k + 1 >= frames_added())
    throw Error(ErrorKind::internal, "scene detector: frames " + std::to_string(k) + " and " +
                                         std::to_string(k + 1) + " are not in its window");
  if (!exceeds(k, k + 1)) return false;
  for (int d = 1; d < span; ++d) {
    if (k + 1 + d < frames_added() && !exceeds(k, k + 1 + d)) return false;
    if (k - d >= first_ && !exceeds(k - d, k + 1)) return false;
  }
  return true;
}

}  // namespace framecast::video
