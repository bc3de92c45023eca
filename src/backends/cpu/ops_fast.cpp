#include "backends/cpu/ops_fast.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <optional>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "backends/cpu/pixel_math.hpp"

namespace framecast::cpu::fast {
namespace {

using pixel::mix;
using pixel::Tap;

// Runs body(state, y) for y in [0, rows), one contiguous band of rows per thread, with one
// `make()` state per thread (its scratch rows and row caches).
template <typename Make, typename Body>
void parallel_rows(int rows, Make make, Body body) {
#pragma omp parallel
  {
    auto state = make();
#pragma omp for schedule(static)
    for (int y = 0; y < rows; ++y) body(state, y);
  }
}

std::vector<Tap> axis_taps(int count, float ratio, int source_size) {
  std::vector<Tap> taps(std::size_t(count), Tap{});
  for (int i = 0; i < count; ++i)
    taps[std::size_t(i)] = pixel::tap(pixel::source_coordinate(i, ratio), source_size);
  return taps;
}

// The row passes below get AVX2 and AVX-512 clones besides the baseline x86-64 code, picked
// when the library loads: their bilinear gathers and mixes vectorise there. The project
// compiles with -ffp-contract=off, so every clone rounds exactly like the reference.
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define FRAMECAST_ROW_CLONES __attribute__((target_clones("default", "avx2", "avx512f")))
#else
#define FRAMECAST_ROW_CLONES
#endif

// Whether tap i reads the pair (2 i, 2 i + 1), every one at the same weight: a ratio of
// exactly 2.
bool are_pairs(const std::vector<Tap>& taps) {
  for (std::size_t i = 0; i < taps.size(); ++i)
    if (taps[i].a != int(2 * i) || taps[i].b != int(2 * i + 1) || taps[i].f != taps[0].f)
      return false;
  return !taps.empty();
}

// Such a row halved: out[i] = mix(src[2 i], src[2 i + 1], f), without a gather.
FRAMECAST_ROW_CLONES
void mix_pairs(int n, const float* __restrict src, float f, float* __restrict out) {
  for (int i = 0; i < n; ++i) out[i] = mix(src[2 * i], src[2 * i + 1], f);
}

// Bilinear resampling of `channels` planes row by row, with the reference's arithmetic
// (pixel::read: horizontal mixes, then the vertical one). Each source row is resampled
// horizontally once and kept while the next destination rows read it, so a destination value
// costs one mix. Destination row y reads source coordinate (y + 0.5) * ratio_y - 0.5.
class RowResampler {
 public:
  RowResampler(int channels, int source_width, int source_height, float ratio_x, float ratio_y,
               int width)
      : channels_(channels),
        source_height_(source_height),
        ratio_y_(ratio_y),
        width_(width),
        x_taps_(axis_taps(width, ratio_x, source_width)),
        pairs_(are_pairs(x_taps_)) {
    for (auto& r : rows_) r.assign(std::size_t(channels) * width, 0.0f);
  }

  // The source columns the horizontal taps read, ascending.
  std::vector<int> columns() const {
    std::vector<int> cols;
    for (const Tap& t : x_taps_) cols.insert(cols.end(), {t.a, t.b});
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    return cols;
  }

  // Destination row y into dst[c] (width values each). source(sy, c) returns channel c of
  // source row sy; it needs to hold the values at columns() only.
  template <typename Source>
  void row(int y, Source&& source, float* const* dst) {
    const Tap ty = pixel::tap(pixel::source_coordinate(y, ratio_y_), source_height_);
    const float* a = horizontal(ty.a, source);
    const float* b = horizontal(ty.b, source);
    for (int c = 0; c < channels_; ++c) {
      const float* ra = a + std::size_t(c) * width_;
      const float* rb = b + std::size_t(c) * width_;
      float* d = dst[c];
      for (int x = 0; x < width_; ++x) d[x] = mix(ra[x], rb[x], ty.f);
    }
  }

 private:
  // Source row sy resampled horizontally, from the cache or made into the older slot.
  template <typename Source>
  const float* horizontal(int sy, Source& source) {
    int slot = held_[0] == sy ? 0 : held_[1] == sy ? 1 : -1;
    if (slot < 0) {
      slot = older_;
      held_[std::size_t(slot)] = sy;
      float* h = rows_[std::size_t(slot)].data();
      for (int c = 0; c < channels_; ++c) {
        const float* s = source(sy, c);
        float* hc = h + std::size_t(c) * width_;
        if (pairs_) {
          mix_pairs(width_, s, x_taps_[0].f, hc);
          continue;
        }
        for (int x = 0; x < width_; ++x) {
          const Tap& t = x_taps_[std::size_t(x)];
          hc[x] = mix(s[t.a], s[t.b], t.f);
        }
      }
    }
    older_ = 1 - slot;
    return rows_[std::size_t(slot)].data();
  }

  int channels_, source_height_;
  float ratio_y_;
  int width_;
  std::vector<Tap> x_taps_;
  bool pairs_;  // every tap is (2 x, 2 x + 1) at one weight: mix_pairs
  std::array<std::vector<float>, 2> rows_;
  std::array<int, 2> held_ = {-1, -1};
  int older_ = 0;
};

// Plain planes as a RowResampler source.
auto plane_rows(const Planes& p) {
  return [&p](int sy, int c) { return p.row(c, sy); };
}

// Rows of scratch values: channels x width floats.
struct Rows {
  Rows(int channels, int row_width) : width(row_width), values(std::size_t(channels) * row_width) {
    for (int c = 0; c < channels; ++c) pointers.push_back(row(c));
  }
  float* row(int c) { return values.data() + std::size_t(c) * width; }
  int width;
  std::vector<float> values;
  std::vector<float*> pointers;
};

// The flow field's rows for the first `width` columns: flows in pixels (channels 0-3) and
// the mask logit (channel 4), as the reference's sample_flow() computes them before the
// sigmoid. A full-resolution field is read in place; a coarse one is upsampled by its factor.
class FlowRows {
 public:
  // channels: 5, or 4 where the mask is not needed (a coarse field's is then not upsampled).
  FlowRows(const FlowField& flow, int width, int channels = 5)
      : flow_(flow),
        factor_(float(flow.factor)),
        channel_count_(channels),
        up_(channels, flow.planes.width, flow.planes.height, 1.0f / factor_, 1.0f / factor_,
            width),
        rows_(flow.factor == 1 ? 0 : channels, width) {}

  void row(int y) {
    const Planes& p = flow_.planes;
    if (flow_.factor == 1) {
      for (int c = 0; c < channel_count_; ++c) channels_[std::size_t(c)] = p.row(c, y);
      return;
    }
    up_.row(y, plane_rows(p), rows_.pointers.data());
    for (int c = 0; c < channel_count_; ++c) channels_[std::size_t(c)] = rows_.row(c);
    for (int c = 0; c < 4; ++c) {
      float* r = rows_.row(c);
      for (int x = 0; x < rows_.width; ++x) r[x] *= factor_;
    }
  }
  const float* channel(int c) const { return channels_[std::size_t(c)]; }

 private:
  const FlowField& flow_;
  float factor_;
  int channel_count_;
  RowResampler up_;
  Rows rows_;
  std::array<const float*, 5> channels_{};
};


// Bilinear taps of the points of one row (pixel::tap's clamping and arithmetic), laid out
// for vector loops that read each row's two taps as one 8-byte pair: the offsets in a plane
// of the top and bottom pairs, which of a pair's values are the left and right taps (`ends`),
// and the two weights: half as many gathered loads as four separate taps. A pair never
// reaches past its row, so this needs frames of at least two columns.
struct RowTaps {
  explicit RowTaps(int points)
      : top(std::size_t(points)), bottom(top), ends(top), fx(std::size_t(points)), fy(fx) {}
  std::vector<int> top, bottom, ends;
  std::vector<float> fx, fy;
};

// RowTaps::ends: a pair's (first, second) value as the (left, right) tap, or one of them as
// both, where the column is clamped at the left or the right edge.
enum PairEnds : int { both_taps = 0, first_twice = 1, second_twice = 2 };

// Every output is a __restrict parameter: GCC vectorises this loop only when it needs no
// run-time checks that the arrays do not overlap.
FRAMECAST_ROW_CLONES
void locate(int n, const float* __restrict x, float y, const float* __restrict dx,
            const float* __restrict dy, int width, int height, int* __restrict top,
            int* __restrict bottom, int* __restrict ends, float* __restrict fx,
            float* __restrict fy) {
  for (int i = 0; i < n; ++i) {
    const Tap tx = pixel::tap(x[i] + dx[i], width), ty = pixel::tap(y + dy[i], height);
    const int end = tx.a != tx.b ? both_taps : tx.a == 0 ? first_twice : second_twice;
    const int first = end == second_twice ? tx.a - 1 : tx.a;  // the pair's first column
    top[i] = ty.a * width + first;
    bottom[i] = ty.b * width + first;
    ends[i] = end;
    fx[i] = tx.f;
    fy[i] = ty.f;
  }
}

// Each pair is loaded as one 64-bit integer and split as bits, so that GCC vectorises the
// loop with one 8-byte gather per pair (two floats would be two 4-byte gathers).
FRAMECAST_ROW_CLONES
void gather(const float* __restrict plane, int n, const int* __restrict top,
            const int* __restrict bottom, const int* __restrict ends, const float* __restrict fx,
            const float* __restrict fy, float* __restrict out) {
  for (int i = 0; i < n; ++i) {
    std::uint64_t t, b;
    std::memcpy(&t, plane + top[i], 8);
    std::memcpy(&b, plane + bottom[i], 8);
    const bool left_second = ends[i] == second_twice, right_first = ends[i] == first_twice;
    const std::uint32_t t0 = std::uint32_t(t), t1 = std::uint32_t(t >> 32);
    const std::uint32_t b0 = std::uint32_t(b), b1 = std::uint32_t(b >> 32);
    out[i] = pixel::bilerp(std::bit_cast<float>(left_second ? t1 : t0),
                           std::bit_cast<float>(right_first ? t0 : t1),
                           std::bit_cast<float>(left_second ? b1 : b0),
                           std::bit_cast<float>(right_first ? b0 : b1), fx[i], fy[i]);
  }
}

// The three planes of frame `base` (0: frame0, 3: frame1) backward-warped at n points of row
// y, as pixel::warp3 does it: point i is column x[i] moved by (dx[i], dy[i]); out[c][i].
void warp_row(const Planes& imgs, int base, int y, int n, const float* x, const float* dx,
              const float* dy, RowTaps& t, float* const* out) {
  if (imgs.width < 2) {  // no pairs in a row: one tap at a time
    for (int i = 0; i < n; ++i) {
      float px[3];
      pixel::warp3(imgs, base, x[i] + dx[i], float(y) + dy[i], px);
      for (int c = 0; c < 3; ++c) out[c][i] = px[c];
    }
    return;
  }
  locate(n, x, float(y), dx, dy, imgs.width, imgs.height, t.top.data(), t.bottom.data(),
         t.ends.data(), t.fx.data(), t.fy.data());
  for (int c = 0; c < 3; ++c)
    gather(imgs.plane(base + c), n, t.top.data(), t.bottom.data(), t.ends.data(), t.fx.data(),
           t.fy.data(), out[c]);
}

// Columns 0, 1, ... as floats: the x of warp_row for a whole row.
std::vector<float> column_coordinates(int width) {
  std::vector<float> xs(static_cast<std::size_t>(width));
  for (int x = 0; x < width; ++x) xs[std::size_t(x)] = float(x);
  return xs;
}

// Both frames warped at chosen columns of a row, by the flows there: the per-point form of
// warp_row for passes that need a subset of columns. warped.row(0..2) is frame0's BGR at
// cols[i], warped.row(3..5) frame1's.
struct WarpColumns {
  explicit WarpColumns(int points)
      : taps(points), x(std::size_t(points)), flows(4, points), warped(6, points) {}

  void warp(const Planes& imgs, int y, const std::vector<int>& cols, const float* const* field_row) {
    const int n = int(cols.size());
    for (int i = 0; i < n; ++i) {
      const int col = cols[std::size_t(i)];
      x[std::size_t(i)] = float(col);
      for (int c = 0; c < 4; ++c) flows.row(c)[i] = field_row[c][col];
    }
    warp_row(imgs, 0, y, n, x.data(), flows.row(0), flows.row(1), taps, warped.pointers.data());
    warp_row(imgs, 3, y, n, x.data(), flows.row(2), flows.row(3), taps, warped.pointers.data() + 3);
  }

  RowTaps taps;
  std::vector<float> x;
  Rows flows, warped;
};

// Both frames warped along the first n columns of row y, by the flows there, straight into
// out[0..2] (frame0's BGR) and out[3..5] (frame1's): WarpColumns without the copies, for
// passes that need every column.
struct WarpRow {
  explicit WarpRow(int n) : taps(n), x(column_coordinates(n)) {}

  void warp(const Planes& imgs, int y, const float* const* field_row, float* const* out) {
    const int n = int(x.size());
    warp_row(imgs, 0, y, n, x.data(), field_row[0], field_row[1], taps, out);
    warp_row(imgs, 3, y, n, x.data(), field_row[2], field_row[3], taps, out + 3);
  }

  RowTaps taps;
  std::vector<float> x;
};

// The blend of a row, clamped: bgr[c] = frame0 warped * mask + frame1 warped * (1 - mask)
// (+ the refine head's residual), in place of frame0's rows bgr[0..2]; frame1's are bgr[3..5].
FRAMECAST_ROW_CLONES
void blend(int n, const float* __restrict mask, float* const* bgr, const float* const* residual) {
  for (int c = 0; c < 3; ++c) {
    float* __restrict a = bgr[c];
    const float* __restrict b = bgr[3 + c];
    if (residual) {
      const float* __restrict r = residual[c];
      for (int i = 0; i < n; ++i)
        a[i] = std::clamp(a[i] * mask[i] + b[i] * (1.0f - mask[i]) + r[i], 0.0f, 1.0f);
    } else {
      for (int i = 0; i < n; ++i)
        a[i] = std::clamp(a[i] * mask[i] + b[i] * (1.0f - mask[i]), 0.0f, 1.0f);
    }
  }
}

// A row of finished BGR planes as interleaved RGB samples (pixel::write_rgb per pixel).
template <typename Sample>
void write_rgb_row_of(int n, const float* const* bgr, float max_value, Sample* __restrict rgb) {
  const float* __restrict b = bgr[0];
  const float* __restrict g = bgr[1];
  const float* __restrict r = bgr[2];
  for (int i = 0; i < n; ++i) {
    const float px[3] = {b[i], g[i], r[i]};
    pixel::write_rgb(px, max_value, rgb + std::size_t(i) * 3);
  }
}

FRAMECAST_ROW_CLONES
void write_rgb_row(int n, const float* const* bgr, float max_value, std::uint8_t* rgb) {
  write_rgb_row_of(n, bgr, max_value, rgb);
}

FRAMECAST_ROW_CLONES
void write_rgb_row(int n, const float* const* bgr, float max_value, std::uint16_t* rgb) {
  write_rgb_row_of(n, bgr, max_value, rgb);
}

template <typename Sample>
void deinterleave(const Sample* rgb, int width, float scale, float* b, float* g, float* r) {
  for (int x = 0; x < width; ++x) {
    r[x] = float(rgb[3 * x]) * scale;
    g[x] = float(rgb[3 * x + 1]) * scale;
    b[x] = float(rgb[3 * x + 2]) * scale;
  }
}

// One channel's convex sums along a coarse row: sums[x] = the weights[k][x]-weighted sum of
// the 3x3 neighbours k = ky * 3 + kx, read from edge-padded rows[ky] at x + kx, summed in k's
// order as the reference does.
FRAMECAST_ROW_CLONES
void convex_sums(int n, const float* const* weights, const float* const* rows,
                 float* __restrict sums) {
  for (int x = 0; x < n; ++x) {
    float sum = 0.0f;
    for (int k = 0; k < 9; ++k) sum += weights[k][x] * rows[k / 3][x + k % 3];
    sums[x] = sum;
  }
}

// The softmax's first pass over one sub-pixel's 9 logit rows (k = ky * 3 + kx): each logit
// less the largest of its 9, as pixel::softmax9 computes it before the exponential. The rows
// are distinct: `omp simd` says so, where GCC would otherwise need more alias checks at run
// time than it makes and leave both passes scalar (it changes no rounding).
FRAMECAST_ROW_CLONES
void softmax_shift(int n, const float* const* logits, float* const* shifted) {
#pragma omp simd
  for (int x = 0; x < n; ++x) {
    float max = logits[0][x];
    for (int k = 1; k < 9; ++k) {
      const float v = logits[k][x];
      max = max < v ? v : max;  // std::max by value, which GCC vectorises
    }
    for (int k = 0; k < 9; ++k) shifted[k][x] = logits[k][x] - max;
  }
}

// Its last pass, on the exponentials in place: each divided by the sum of its 9, summed in
// k's order as pixel::softmax9 does.
FRAMECAST_ROW_CLONES
void softmax_normalise(int n, float* const* e) {
#pragma omp simd
  for (int x = 0; x < n; ++x) {
    float sum = 0.0f;
    for (int k = 0; k < 9; ++k) sum += e[k][x];
    for (int k = 0; k < 9; ++k) e[k][x] /= sum;
  }
}

}  // namespace

void frames_to_planes(const Frame& frame0, const Frame& frame1, Planes& imgs) {
  const int w = frame0.width(), h = frame0.height();
  imgs.reshape(6, h, w);
  const float scale = 1.0f / float(frame0.max_value());
  const Frame* frames[2] = {&frame0, &frame1};
#pragma omp parallel for
  for (int y = 0; y < h; ++y) {
    for (int f = 0; f < 2; ++f) {
      const std::size_t i = std::size_t(y) * w * 3;
      float* const bgr[3] = {imgs.row(3 * f, y), imgs.row(3 * f + 1, y), imgs.row(3 * f + 2, y)};
      if (frames[f]->depth() == SampleDepth::u16) {
        deinterleave(frames[f]->rgb16().data() + i, w, scale, bgr[0], bgr[1], bgr[2]);
      } else {
        deinterleave(frames[f]->rgb8().data() + i, w, scale, bgr[0], bgr[1], bgr[2]);
      }
    }
  }
}

void upsample_flow(const Planes& coarse, int width, int height, float factor, Planes& field) {
  field.reshape(coarse.channels, height, width);
  const float rx = 1.0f / factor, ry = rx;  // a power of two: exact
  parallel_rows(
      height, [&] { return RowResampler(coarse.channels, coarse.width, coarse.height, rx, ry, width); },
      [&](RowResampler& up, int y) {
        std::vector<float*> dst;
        for (int c = 0; c < coarse.channels; ++c) dst.push_back(field.row(c, y));
        up.row(y, plane_rows(coarse), dst.data());
        for (int c = 0; c < 4; ++c)
          for (int x = 0; x < width; ++x) dst[std::size_t(c)][x] *= factor;
      });
}

void add_flow_residual(const Planes& coarse, float factor, Planes& field) {
  const int w = field.width, h = field.height;
  const float rx = 1.0f / factor, ry = rx;  // a power of two: exact
  struct State {
    RowResampler up;
    Rows rows;
  };
  parallel_rows(
      h, [&] { return State{{coarse.channels, coarse.width, coarse.height, rx, ry, w}, {coarse.channels, w}}; },
      [&](State& s, int y) {
        s.up.row(y, plane_rows(coarse), s.rows.pointers.data());
        for (int c = 0; c < coarse.channels; ++c) {
          const float scale = c < 4 ? factor : 1.0f;  // x * 1 is exact: the mask as it is
          const float* r = s.rows.row(c);
          float* f = field.row(c, y);
          for (int x = 0; x < w; ++x) f[x] += r[x] * scale;
        }
      });
}

void add_convex_residual(const Planes& coarse, const Planes& logits, int factor, Planes& field) {
  const int h = coarse.height, w = coarse.width, f = factor, taps = 9 * f * f;
  // The softmax runs along rows, a pass at a time, so that its passes vectorise; the
  // exponentials are oneDNN's JIT eltwise kernel on a coarse row's taps x w shifted logits
  // (std::exp, one call per value, took most of the 53 ms this op spent per 1080p mid with a
  // 4x upmask on 2 cores). oneDNN runs it on the calling thread inside the parallel region.
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  const dnnl::memory::desc row_md({taps, w}, dnnl::memory::data_type::f32,
                                  dnnl::memory::format_tag::ab);
  const dnnl::eltwise_forward exp({{dnnl::prop_kind::forward_inference,
                                    dnnl::algorithm::eltwise_exp, row_md, 0.0f, 0.0f},
                                   engine});
  // Per coarse row: the rows above, at and below it of each channel with a replicated column
  // either side ([c][ky], w + 2 values each), the softmax weights of every tap of every
  // sub-pixel along the row ([k][sub-pixel], w each, as the logits' channels), and one output
  // channel's sub-pixel values before they go to every f-th column.
  struct State {
    Rows padded, weights;
    std::vector<float> sums;
    dnnl::stream stream;
    dnnl::memory weights_memory;
  };
  parallel_rows(
      h,
      [&] {
        State s{{15, w + 2}, {taps, w}, std::vector<float>(std::size_t(w)), dnnl::stream(engine), {}};
        s.weights_memory = dnnl::memory(row_md, engine, s.weights.values.data());
        return s;
      },
      [&](State& s, int y) {
        for (int c = 0; c < 5; ++c)
          for (int ky = 0; ky < 3; ++ky) {
            const float* src = coarse.row(c, std::clamp(y + ky - 1, 0, h - 1));
            float* dst = s.padded.row(c * 3 + ky);
            dst[0] = src[0];
            std::copy(src, src + w, dst + 1);
            dst[w + 1] = src[w - 1];
          }
        // Sub-pixel (ay, ax)'s tap k is channel k f^2 + ay f + ax of the logits and row
        // `k f^2 + sub` of the weights.
        auto tap_rows = [&](int sub, auto row) {
          std::array<decltype(row(0)), 9> rows{};
          for (int k = 0; k < 9; ++k) rows[std::size_t(k)] = row(k * f * f + sub);
          return rows;
        };
        for (int sub = 0; sub < f * f; ++sub)
          softmax_shift(w, tap_rows(sub, [&](int c) { return logits.row(c, y); }).data(),
                        tap_rows(sub, [&](int c) { return s.weights.row(c); }).data());
        exp.execute(s.stream, {{DNNL_ARG_SRC, s.weights_memory}, {DNNL_ARG_DST, s.weights_memory}});
        s.stream.wait();
        for (int ay = 0; ay < f; ++ay) {
          for (int ax = 0; ax < f; ++ax) {
            const auto weights = tap_rows(ay * f + ax, [&](int c) { return s.weights.row(c); });
            softmax_normalise(w, weights.data());
            for (int c = 0; c < 5; ++c) {
              convex_sums(w, weights.data(), s.padded.pointers.data() + c * 3, s.sums.data());
              const float scale = c < 4 ? float(f) : 1.0f;  // x * 1 is exact: the mask as it is
              float* out = field.row(c, f * y + ay) + ax;
              for (int x = 0; x < w; ++x) out[std::size_t(x) * f] += s.sums[std::size_t(x)] * scale;
            }
          }
        }
      });
}

void refinement_input(const Planes& imgs, const Planes& field, bool with_t, float t, int scale,
                      Planes& input) {
  const int w = field.width, h = field.height, channels = with_t ? 18 : 17;
  const int mask_channel = with_t ? 13 : 12;
  // Row y's field channels, the mask logit and the flows (at the block's scale) into `out`.
  auto field_channels = [&](int y, int x, float* const* out) {
    out[mask_channel][x] = field.row(4, y)[x];
    for (int c = 0; c < 4; ++c) out[mask_channel + 1 + c][x] = field.row(c, y)[x] / float(scale);
  };
  // Full-resolution row y of the input at columns `cols` (the reference's `full` planes).
  auto full_row = [&](WarpColumns& warps, int y, const std::vector<int>& cols, float* const* out) {
    const int cy = std::min(y, imgs.height - 1);
    const float* flows[5];
    for (int c = 0; c < 5; ++c) flows[c] = field.row(c, y);
    warps.warp(imgs, y, cols, flows);
    for (std::size_t i = 0; i < cols.size(); ++i) {
      const int x = cols[i];
      const int cx = std::min(x, imgs.width - 1);
      for (int c = 0; c < 6; ++c) out[c][x] = imgs.at(c, cy, cx);  // edge-replicated
      for (int c = 0; c < 6; ++c) out[6 + c][x] = warps.warped.row(c)[i];
      if (with_t) out[12][x] = t;
      field_channels(y, x, out);
    }
  };
  // The same for every column, warped in place and the frames' rows copied whole.
  auto whole_row = [&](WarpRow& warps, int y, float* const* out) {
    const int cy = std::min(y, imgs.height - 1), inside = std::min(w, imgs.width);
    for (int c = 0; c < 6; ++c) {
      const float* src = imgs.row(c, cy);
      std::copy(src, src + inside, out[c]);
      std::fill(out[c] + inside, out[c] + w, src[imgs.width - 1]);  // edge-replicated
    }
    const float* flows[4];
    for (int c = 0; c < 4; ++c) flows[c] = field.row(c, y);
    warps.warp(imgs, y, flows, out + 6);
    if (with_t) std::fill(out[12], out[12] + w, t);
    const float* mask = field.row(4, y);
    std::copy(mask, mask + w, out[mask_channel]);
    for (int c = 0; c < 4; ++c)
      for (int x = 0; x < w; ++x) out[mask_channel + 1 + c][x] = flows[c][x] / float(scale);
  };
  if (scale == 1) {
    input.reshape(channels, h, w);
    parallel_rows(h, [&] { return WarpRow(w); }, [&](WarpRow& warps, int y) {
      std::vector<float*> out;
      for (int c = 0; c < channels; ++c) out.push_back(input.row(c, y));
      whole_row(warps, y, out.data());
    });
    return;
  }
  const int iw = w / scale, ih = h / scale;
  input.reshape(channels, ih, iw);
  const float rx = float(w) / float(iw), ry = float(h) / float(ih);
  struct State {
    RowResampler down;
    std::vector<int> cols;
    bool every_column;  // scale 2 reads every column (the taps fall between pairs of pixels)
    WarpColumns warps;
    WarpRow row_warps;
    Rows full;
    int full_y = -1;
  };
  parallel_rows(
      ih,
      [&] {
        RowResampler down(channels, w, h, rx, ry, iw);
        std::vector<int> cols = down.columns();  // ascending, without repeats
        const int n = int(cols.size());
        const bool every = n == w;
        return State{std::move(down), std::move(cols), every, WarpColumns(every ? 0 : n),
                     WarpRow(every ? w : 0), {channels, w}};
      },
      [&](State& s, int y) {
        auto source = [&](int sy, int c) {
          if (sy != s.full_y) {
            if (s.every_column) {
              whole_row(s.row_warps, sy, s.full.pointers.data());
            } else {
              full_row(s.warps, sy, s.cols, s.full.pointers.data());
            }
            s.full_y = sy;
          }
          return static_cast<const float*>(s.full.row(c));
        };
        std::vector<float*> dst;
        for (int c = 0; c < channels; ++c) dst.push_back(input.row(c, y));
        s.down.row(y, source, dst.data());
      });
}

void refine_prep(const FlowField& flow, const Planes& imgs, Planes& rin) {
  const int qw = padded_size(imgs.width) / 4, qh = padded_size(imgs.height) / 4;
  rin.reshape(11, qh, qw);
  constexpr float kFlowNorm = 0.25f * (0.25f / 20.0f);  // mean of 4 * (0.25 / FLOW_NORM)
  std::vector<int> centre_cols;  // the centre two columns of each 4x4 block
  for (int hx = 0; hx < qw; ++hx) centre_cols.insert(centre_cols.end(), {hx * 4 + 1, hx * 4 + 2});
  struct State {
    FlowRows flows;
    WarpColumns warps;
    Rows sums;  // w0[3], w1[3], mask, flows[4] of each quarter-resolution pixel of the row
  };
  parallel_rows(
      qh, [&] { return State{{flow, qw * 4}, WarpColumns(2 * qw), {11, qw}}; },
      [&](State& s, int hy) {
        std::fill(s.sums.values.begin(), s.sums.values.end(), 0.0f);
        for (int sy = 1; sy <= 2; ++sy) {  // the centre 2x2 of each 4x4 block, in the reference's order
          const int Y = hy * 4 + sy;
          s.flows.row(Y);
          const float* f[5];
          for (int c = 0; c < 5; ++c) f[c] = s.flows.channel(c);
          s.warps.warp(imgs, Y, centre_cols, f);
          for (int hx = 0; hx < qw; ++hx) {
            for (int sx = 0; sx < 2; ++sx) {
              const int i = 2 * hx + sx, X = centre_cols[std::size_t(i)];
              for (int c = 0; c < 6; ++c) s.sums.row(c)[hx] += s.warps.warped.row(c)[i];
              s.sums.row(6)[hx] += pixel::sigmoid(f[4][X]);
              for (int c = 0; c < 4; ++c) s.sums.row(7 + c)[hx] += f[c][X];
            }
          }
        }
        for (int c = 0; c < 11; ++c) {
          const float norm = c < 7 ? 0.25f : kFlowNorm;
          const float* sum = s.sums.row(c);
          float* out = rin.row(c, hy);
          for (int hx = 0; hx < qw; ++hx) out[hx] = sum[hx] * norm;
        }
      });
}

void refine_out(const Planes& src, const Model& model, Planes& residual) {
  const int w = src.width, h = src.height, ci_n = src.channels;
  residual.reshape(3, h, w);
  const float* weight = model.tensor("refine.c3.weight").values.data();
  const float* bias = model.tensor("refine.c3.bias").values.data();
  // The reference's conv3x3 with replicated edges, summing in its order (input channel, then
  // ky, then kx) per output value, with the 9 taps of a channel in one expression.
#pragma omp parallel for
  for (int y = 0; y < h; ++y) {
    for (int co = 0; co < 3; ++co) {
      float* out = residual.row(co, y);
      std::fill(out, out + w, bias[co]);
      for (int ci = 0; ci < ci_n; ++ci) {
        const float* k = weight + (std::size_t(co) * ci_n + ci) * 9;
        const float* r0 = src.row(ci, std::max(y - 1, 0));
        const float* r1 = src.row(ci, y);
        const float* r2 = src.row(ci, std::min(y + 1, h - 1));
        auto at = [&](int x) {  // out[x] += the 9 taps around x, columns clamped
          const int xl = std::max(x - 1, 0), xr = std::min(x + 1, w - 1);
          out[x] = out[x] + r0[xl] * k[0] + r0[x] * k[1] + r0[xr] * k[2] + r1[xl] * k[3] +
                   r1[x] * k[4] + r1[xr] * k[5] + r2[xl] * k[6] + r2[x] * k[7] + r2[xr] * k[8];
        };
        at(0);
        for (int x = 1; x < w - 1; ++x)
          out[x] = out[x] + r0[x - 1] * k[0] + r0[x] * k[1] + r0[x + 1] * k[2] +
                   r1[x - 1] * k[3] + r1[x] * k[4] + r1[x + 1] * k[5] + r2[x - 1] * k[6] +
                   r2[x] * k[7] + r2[x + 1] * k[8];
        if (w > 1) at(w - 1);
      }
      for (int x = 0; x < w; ++x) out[x] = 2.0f * pixel::sigmoid(out[x]) - 1.0f;
    }
  }
}

// Sum over the row of |frame0 warped - frame1 warped| in all three channels, in double. The
// terms go to eight partial sums, one per column modulo 8, so that the loop vectorises; their
// order is fixed, so the sum is the same every run.
FRAMECAST_ROW_CLONES
double abs_difference_sum(int n, const float* const* bgr) {
  double lanes[8] = {};
  for (int c = 0; c < 3; ++c) {
    const float* __restrict a = bgr[c];
    const float* __restrict b = bgr[3 + c];
    int x = 0;
    for (; x + 8 <= n; x += 8)
      for (int k = 0; k < 8; ++k) lanes[k] += double(std::abs(a[x + k] - b[x + k]));
    for (; x < n; ++x) lanes[x % 8] += double(std::abs(a[x] - b[x]));
  }
  double sum = 0.0;
  for (double lane : lanes) sum += lane;
  return sum;
}

double warp_disagreement(const FlowField& flow, const Planes& imgs) {
  const int w = imgs.width, h = imgs.height;
  const std::vector<float> xs = column_coordinates(w);
  std::vector<double> rows(std::size_t(h), 0.0);  // added up in order: the same sum every run
  struct State {
    FlowRows flows;
    RowTaps taps;
    Rows frames;  // frame0 warped (BGR), then frame1 warped
  };
  parallel_rows(
      h, [&] { return State{{flow, w, 4}, RowTaps(w), {6, w}}; },  // flows without the mask
      [&](State& s, int y) {
        s.flows.row(y);
        float* const* bgr = s.frames.pointers.data();
        warp_row(imgs, 0, y, w, xs.data(), s.flows.channel(0), s.flows.channel(1), s.taps, bgr);
        warp_row(imgs, 3, y, w, xs.data(), s.flows.channel(2), s.flows.channel(3), s.taps,
                 bgr + 3);
        rows[std::size_t(y)] = abs_difference_sum(w, bgr);
      });
  return std::accumulate(rows.begin(), rows.end(), 0.0);
}

void flow_out(const FlowField& flow, const Planes& imgs, const Planes* refine_residual,
              bool static_guard, Frame& out) {
  const int w = imgs.width, h = imgs.height;
  const float max_value = float(out.max_value());
  const bool deep = out.depth() == SampleDepth::u16;
  const std::vector<float> xs = column_coordinates(w);
  struct State {
    FlowRows flows;
    std::optional<RowResampler> residual;
    Rows residual_rows;
    RowTaps taps;
    Rows frames;  // frame0 warped (BGR), then frame1 warped; the blend replaces frame0's
    std::vector<float> mask;
  };
  parallel_rows(
      h,
      [&] {
        State s{{flow, w}, {}, {refine_residual ? 3 : 0, w}, RowTaps(w), {6, w},
                std::vector<float>(std::size_t(w))};
        if (refine_residual)
          s.residual.emplace(3, refine_residual->width, refine_residual->height, 0.25f, 0.25f, w);
        return s;
      },
      [&](State& s, int y) {
        s.flows.row(y);
        const float* f[5];
        for (int c = 0; c < 5; ++c) f[c] = s.flows.channel(c);
        float* const* bgr = s.frames.pointers.data();
        warp_row(imgs, 0, y, w, xs.data(), f[0], f[1], s.taps, bgr);
        warp_row(imgs, 3, y, w, xs.data(), f[2], f[3], s.taps, bgr + 3);
        for (int x = 0; x < w; ++x) s.mask[std::size_t(x)] = pixel::sigmoid(f[4][x]);
        const float* const* residual = nullptr;
        if (refine_residual) {
          s.residual->row(y, plane_rows(*refine_residual), s.residual_rows.pointers.data());
          residual = s.residual_rows.pointers.data();
        }
        blend(w, s.mask.data(), bgr, residual);
        if (static_guard) {
          for (int x = 0; x < w; ++x) {
            float px[3] = {bgr[0][x], bgr[1][x], bgr[2][x]};
            pixel::guard_static(imgs, x, y, px);
            for (int c = 0; c < 3; ++c) bgr[c][x] = px[c];
          }
        }
        const std::size_t row = std::size_t(y) * w * 3;
        if (deep) {
          write_rgb_row(w, bgr, max_value, out.rgb16().data() + row);
        } else {
          write_rgb_row(w, bgr, max_value, out.rgb8().data() + row);
        }
      });
}

}  // namespace framecast::cpu::fast
