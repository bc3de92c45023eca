#include "backends/cpu/ops_reference.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "backends/cpu/pixel_math.hpp"

namespace framecast::cpu {
namespace {

using pixel::bilinear;
using pixel::sigmoid;
using pixel::warp3;

// The flow field of the padded grid at full-resolution pixel (x, y): x8 upsample of the
// [5, H/8, W/8] deconv output, flows scaled by 8, mask through the sigmoid.
struct FlowSample {
  float fx0, fy0, fx1, fy1, mask;
};

inline FlowSample sample_flow(const FlowField& field, int x, int y) {
  const Planes& p = field.planes;
  if (field.factor == 1) {
    const std::size_t i = std::size_t(y) * p.width + x;
    return {p.plane(0)[i], p.plane(1)[i], p.plane(2)[i], p.plane(3)[i], sigmoid(p.plane(4)[i])};
  }
  const float f = float(field.factor);
  const float sx = (float(x) + 0.5f) / f - 0.5f;
  const float sy = (float(y) + 0.5f) / f - 0.5f;
  auto up = [&](int c) { return bilinear(p.plane(c), p.width, p.height, sx, sy); };
  return {up(0) * f, up(1) * f, up(2) * f, up(3) * f, sigmoid(up(4))};
}

// Bilinear resampling onto width x height with source coordinates (dst + 0.5) * r - 0.5 and
// taps clamped to src's border: resize_bilinear's and upsample_flow's loop.
void resample(const Planes& src, int width, int height, float rx, float ry, Planes& dst) {
  dst = Planes(src.channels, height, width);
#pragma omp parallel for
  for (int y = 0; y < height; ++y) {
    const float sy = (float(y) + 0.5f) * ry - 0.5f;
    for (int x = 0; x < width; ++x) {
      const float sx = (float(x) + 0.5f) * rx - 0.5f;
      for (int c = 0; c < src.channels; ++c)
        dst.at(c, y, x) = bilinear(src.plane(c), src.width, src.height, sx, sy);
    }
  }
}

}  // namespace

void frames_to_planes(const Frame& frame0, const Frame& frame1, Planes& imgs) {
  const int w = frame0.width(), h = frame0.height();
  imgs = Planes(6, h, w);
  const float scale = 1.0f / float(frame0.max_value());
  const Frame* frames[2] = {&frame0, &frame1};
#pragma omp parallel for
  for (int y = 0; y < h; ++y) {
    for (int f = 0; f < 2; ++f) {
      for (int x = 0; x < w; ++x) {
        const std::size_t i = (std::size_t(y) * w + x) * 3;
        for (int c = 0; c < 3; ++c)  // RGB samples -> BGR planes
          imgs.at(f * 3 + 2 - c, y, x) = float(frames[f]->sample(i + c)) * scale;
      }
    }
  }
}

void prep_quarter(const Planes& imgs, int padded_width, int padded_height, int channels, float t,
                  Planes& xq, int scale) {
  const int qw = padded_width / scale, qh = padded_height / scale;
  const float s = float(scale);
  xq = Planes(channels, qh, qw);
#pragma omp parallel for
  for (int y = 0; y < qh; ++y) {
    const float sy = (float(y) + 0.5f) * s - 0.5f;
    for (int x = 0; x < qw; ++x) {
      const float sx = (float(x) + 0.5f) * s - 0.5f;
      for (int c = 0; c < 6; ++c)
        xq.at(c, y, x) = bilinear(imgs.plane(c), imgs.width, imgs.height, sx, sy);
      if (channels == 7) xq.at(6, y, x) = t;
    }
  }
}

void conv3x3(const Planes& src, const float* weight, const float* bias, const float* prelu,
             int stride, Padding padding, Planes& dst) {
  const int ci_n = src.channels, ih = src.height, iw = src.width;
  const int oh = dst.height, ow = dst.width;
#pragma omp parallel for
  for (int co = 0; co < dst.channels; ++co) {
    float* out = dst.plane(co);
    std::fill(out, out + dst.plane_size(), bias[co]);
    for (int ci = 0; ci < ci_n; ++ci) {
      const float* in = src.plane(ci);
      const float* w = weight + (std::size_t(co) * ci_n + ci) * 9;
      for (int y = 0; y < oh; ++y) {
        float* orow = out + std::size_t(y) * ow;
        for (int ky = 0; ky < 3; ++ky) {
          int iy = y * stride + ky - 1;
          if (iy < 0 || iy >= ih) {
            if (padding == Padding::zero) continue;
            iy = std::clamp(iy, 0, ih - 1);
          }
          const float* irow = in + std::size_t(iy) * iw;
          for (int kx = 0; kx < 3; ++kx) {
            const float wv = w[ky * 3 + kx];
            for (int x = 0; x < ow; ++x) {
              int ix = x * stride + kx - 1;
              if (ix < 0 || ix >= iw) {
                if (padding == Padding::zero) continue;
                ix = std::clamp(ix, 0, iw - 1);
              }
              orow[x] += irow[ix] * wv;
            }
          }
        }
      }
    }
    if (prelu) {
      const float a = prelu[co];
      for (std::size_t i = 0; i < dst.plane_size(); ++i)
        if (out[i] < 0.0f) out[i] *= a;
    }
  }
}

void deconv4x4s2(const Planes& src, const float* weight, const float* bias, Planes& dst) {
  const int ci_n = src.channels, ih = src.height, iw = src.width, co_n = dst.channels;
#pragma omp parallel for
  for (int co = 0; co < co_n; ++co) {
    for (int y = 0; y < dst.height; ++y) {
      for (int x = 0; x < dst.width; ++x) {
        float acc = bias[co];
        for (int ky = 0; ky < 4; ++ky) {
          const int ty = y + 1 - ky;
          if (ty < 0 || (ty & 1) || ty / 2 >= ih) continue;
          for (int kx = 0; kx < 4; ++kx) {
            const int tx = x + 1 - kx;
            if (tx < 0 || (tx & 1) || tx / 2 >= iw) continue;
            for (int ci = 0; ci < ci_n; ++ci)
              acc += src.at(ci, ty / 2, tx / 2) *
                     weight[(std::size_t(ci) * co_n + co) * 16 + ky * 4 + kx];
          }
        }
        dst.at(co, y, x) = acc;
      }
    }
  }
}

std::vector<float> film_params(const Model& model, const std::string& prefix, float t) {
  const auto& w0 = model.tensor(prefix + ".0.weight").values;
  const auto& b0 = model.tensor(prefix + ".0.bias").values;
  const auto& w2 = model.tensor(prefix + ".2.weight").values;
  const auto& b2 = model.tensor(prefix + ".2.bias").values;
  const std::size_t hidden = b0.size();
  std::vector<float> h(hidden), out(b2.size());
  for (std::size_t j = 0; j < hidden; ++j) h[j] = std::max(0.0f, w0[j] * t + b0[j]);
  for (std::size_t k = 0; k < out.size(); ++k) {
    float s = b2[k];
    for (std::size_t j = 0; j < hidden; ++j) s += w2[k * hidden + j] * h[j];
    out[k] = s;
  }
  return out;
}

void apply_film(Planes& x, std::span<const float> scale_shift) {
#pragma omp parallel for
  for (int c = 0; c < x.channels; ++c) {
    const float scale = 1.0f + scale_shift[c], shift = scale_shift[x.channels + c];
    float* p = x.plane(c);
    for (std::size_t i = 0; i < x.plane_size(); ++i) p[i] = p[i] * scale + shift;
  }
}

void add_in_place(Planes& dst, const Planes& src) {
  const std::size_t n = dst.values.size();
#pragma omp parallel for
  for (std::size_t i = 0; i < n; ++i) dst.values[i] += src.values[i];
}

void resize_bilinear(const Planes& src, int width, int height, Planes& dst) {
  resample(src, width, height, float(src.width) / float(width), float(src.height) / float(height),
           dst);
}

void upsample_flow(const Planes& coarse, int width, int height, float factor, Planes& field) {
  resample(coarse, width, height, 1.0f / factor, 1.0f / factor, field);  // a power of two: exact
  for (int c = 0; c < 4; ++c)
    for (std::size_t i = 0; i < field.plane_size(); ++i) field.plane(c)[i] *= factor;
}

void add_flow_residual(const Planes& coarse, float factor, Planes& field) {
  Planes up;
  upsample_flow(coarse, field.width, field.height, factor, up);
  add_in_place(field, up);
}

void add_convex_residual(const Planes& coarse, const Planes& logits, int factor, Planes& field) {
  const int h = coarse.height, w = coarse.width, f = factor;
#pragma omp parallel for
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      float neighbours[5][9];
      for (int c = 0; c < 5; ++c)
        for (int k = 0; k < 9; ++k)
          neighbours[c][k] = coarse.at(c, std::clamp(y + k / 3 - 1, 0, h - 1),
                                       std::clamp(x + k % 3 - 1, 0, w - 1));
      for (int ay = 0; ay < f; ++ay) {
        for (int ax = 0; ax < f; ++ax) {
          float weights[9];
          for (int k = 0; k < 9; ++k) weights[k] = logits.at((k * f + ay) * f + ax, y, x);
          pixel::softmax9(weights);
          for (int c = 0; c < 5; ++c) {
            float sum = 0.0f;
            for (int k = 0; k < 9; ++k) sum += weights[k] * neighbours[c][k];
            field.at(c, f * y + ay, f * x + ax) += c < 4 ? sum * float(f) : sum;
          }
        }
      }
    }
  }
}

void refinement_input(const Planes& imgs, const Planes& field, bool with_t, float t, int scale,
                      Planes& input) {
  const int w = field.width, h = field.height;
  Planes full(with_t ? 18 : 17, h, w);
  const int mask_channel = with_t ? 13 : 12;
#pragma omp parallel for
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const int cx = std::min(x, imgs.width - 1), cy = std::min(y, imgs.height - 1);
      for (int c = 0; c < 6; ++c) full.at(c, y, x) = imgs.at(c, cy, cx);  // edge-replicated
      float a[3], b[3];
      warp3(imgs, 0, float(x) + field.at(0, y, x), float(y) + field.at(1, y, x), a);
      warp3(imgs, 3, float(x) + field.at(2, y, x), float(y) + field.at(3, y, x), b);
      for (int c = 0; c < 3; ++c) {
        full.at(6 + c, y, x) = a[c];
        full.at(9 + c, y, x) = b[c];
      }
      if (with_t) full.at(12, y, x) = t;
      full.at(mask_channel, y, x) = field.at(4, y, x);
      for (int c = 0; c < 4; ++c) full.at(mask_channel + 1 + c, y, x) = field.at(c, y, x) / float(scale);
    }
  }
  if (scale == 1) {
    input = std::move(full);
  } else {
    resize_bilinear(full, w / scale, h / scale, input);
  }
}

double warp_disagreement(const FlowField& flow, const Planes& imgs) {
  const int w = imgs.width, h = imgs.height;
  std::vector<double> rows(std::size_t(h), 0.0);
#pragma omp parallel for
  for (int y = 0; y < h; ++y) {
    double sum = 0.0;
    for (int x = 0; x < w; ++x) {
      const FlowSample f = sample_flow(flow, x, y);
      float a[3], b[3];
      warp3(imgs, 0, float(x) + f.fx0, float(y) + f.fy0, a);
      warp3(imgs, 3, float(x) + f.fx1, float(y) + f.fy1, b);
      for (int c = 0; c < 3; ++c) sum += double(std::abs(a[c] - b[c]));
    }
    rows[std::size_t(y)] = sum;
  }
  return std::accumulate(rows.begin(), rows.end(), 0.0);
}

void refine_prep(const FlowField& flow, const Planes& imgs, Planes& rin) {
  const int qw = padded_size(imgs.width) / 4, qh = padded_size(imgs.height) / 4;
  rin = Planes(11, qh, qw);
  constexpr float kFlowNorm = 0.25f * (0.25f / 20.0f);  // mean of 4 * (0.25 / FLOW_NORM)
#pragma omp parallel for
  for (int hy = 0; hy < qh; ++hy) {
    for (int hx = 0; hx < qw; ++hx) {
      float w0[3] = {0, 0, 0}, w1[3] = {0, 0, 0}, flows[4] = {0, 0, 0, 0}, mask = 0.0f;
      for (int sy = 1; sy <= 2; ++sy) {  // the centre 2x2 of the 4x4 block
        for (int sx = 1; sx <= 2; ++sx) {
          const int X = hx * 4 + sx, Y = hy * 4 + sy;
          const FlowSample f = sample_flow(flow, X, Y);
          float a[3], b[3];
          warp3(imgs, 0, float(X) + f.fx0, float(Y) + f.fy0, a);
          warp3(imgs, 3, float(X) + f.fx1, float(Y) + f.fy1, b);
          for (int c = 0; c < 3; ++c) {
            w0[c] += a[c];
            w1[c] += b[c];
          }
          mask += f.mask;
          flows[0] += f.fx0;
          flows[1] += f.fy0;
          flows[2] += f.fx1;
          flows[3] += f.fy1;
        }
      }
      for (int c = 0; c < 3; ++c) {
        rin.at(c, hy, hx) = w0[c] * 0.25f;
        rin.at(3 + c, hy, hx) = w1[c] * 0.25f;
      }
      rin.at(6, hy, hx) = mask * 0.25f;
      for (int c = 0; c < 4; ++c) rin.at(7 + c, hy, hx) = flows[c] * kFlowNorm;
    }
  }
}

void refine_out(const Planes& src, const Model& model, Planes& residual) {
  residual = Planes(3, src.height, src.width);
  conv3x3(src, model.tensor("refine.c3.weight").values.data(),
          model.tensor("refine.c3.bias").values.data(), nullptr, 1, Padding::replicate, residual);
  for (auto& v : residual.values) v = 2.0f * sigmoid(v) - 1.0f;
}

void flow_out(const FlowField& flow, const Planes& imgs, const Planes* refine_residual,
              bool static_guard, Frame& out) {
  const int w = imgs.width, h = imgs.height;
  const float max_value = float(out.max_value());
  const bool deep = out.depth() == SampleDepth::u16;
#pragma omp parallel for
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const FlowSample f = sample_flow(flow, x, y);
      float a[3], b[3], bgr[3];
      warp3(imgs, 0, float(x) + f.fx0, float(y) + f.fy0, a);
      warp3(imgs, 3, float(x) + f.fx1, float(y) + f.fy1, b);
      for (int c = 0; c < 3; ++c) bgr[c] = a[c] * f.mask + b[c] * (1.0f - f.mask);
      if (refine_residual) {
        const float rx = (float(x) + 0.5f) / 4.0f - 0.5f, ry = (float(y) + 0.5f) / 4.0f - 0.5f;
        for (int c = 0; c < 3; ++c)
          bgr[c] += bilinear(refine_residual->plane(c), refine_residual->width,
                             refine_residual->height, rx, ry);
      }
      pixel::finish(imgs, static_guard, x, y, bgr);
      const std::size_t i = (std::size_t(y) * w + x) * 3;
      if (deep) {
        pixel::write_rgb(bgr, max_value, out.rgb16().data() + i);
      } else {
        pixel::write_rgb(bgr, max_value, out.rgb8().data() + i);
      }
    }
  }
}

}  // namespace framecast::cpu
