#version 450
// The output frame: sample the flow and mask (see flow.glsl), warp both frames, blend, add
// the refine residual (tfact2), clamp, apply the static guard, round floor(v * max + 0.5) and pack
// interleaved RGB at the input's depth. A thread owns 12 bytes (4 pixels of 8-bit or 2 of
// 16-bit samples), i.e. three whole words, so no two threads write one word.
#include "common.glsl"
#include "bilinear.glsl"
#include "linear.glsl"

layout(local_size_x = 64) in;
layout(constant_id = 0) const int W = 1;  // real frame size
layout(constant_id = 1) const int H = 1;
layout(constant_id = 2) const int FW = 1;  // flow field (padded size / FACTOR)
layout(constant_id = 3) const int FH = 1;
layout(constant_id = 4) const bool RESIDUAL = false;
layout(constant_id = 5) const bool GUARD = false;
layout(constant_id = 6) const bool DEEP = false;
layout(constant_id = 7) const float MAXV = 255.0;
layout(constant_id = 8) const int FACTOR = 8;  // 8: block0's deconv output; 1: full resolution

layout(std430, binding = 0) readonly buffer Field { float field[]; };
layout(std430, binding = 1) readonly buffer Img0 { vec4 img0[]; };
layout(std430, binding = 2) readonly buffer Img1 { vec4 img1[]; };
layout(std430, binding = 3) readonly buffer Residual { float residual[]; };  // [3, padded size / 4]
layout(std430, binding = 4) writeonly buffer Out { uint words[]; };

#include "flow.glsl"
#define READ_RESIDUAL(i) residual[i]
DEFINE_BILINEAR(residual_at, READ_RESIDUAL)

float smooth_step(float e0, float e1, float x) {
  float t = clamp((x - e0) / (e1 - e0), 0.0, 1.0);
  return t * t * (3.0 - 2.0 * t);
}

// The rounded RGB samples of pixel (x, y).
uvec3 pixel(int x, int y) {
  Flow f = sample_flow(x, y);
  vec3 a = warp0(float(x) + f.f0.x, float(y) + f.f0.y);
  vec3 b = warp1(float(x) + f.f1.x, float(y) + f.f1.y);
  vec3 bgr = a * f.mask + b * (1.0 - f.mask);
  if (RESIDUAL) {
    int qw = FW * FACTOR / 4, qh = FH * FACTOR / 4;
    float rx = (float(x) + 0.5) / 4.0 - 0.5, ry = (float(y) + 0.5) / 4.0 - 0.5;
    [[unroll]] for (int c = 0; c < 3; ++c) bgr[c] += residual_at(c * qw * qh, qw, qh, rx, ry);
  }
  bgr = clamp(bgr, 0.0, 1.0);
  if (GUARD) {
    float d = 0.0;
    [[unroll]] for (int dy = -1; dy <= 1; ++dy) {
      [[unroll]] for (int dx = -1; dx <= 1; ++dx) {
        int at = clamp(y + dy, 0, H - 1) * W + clamp(x + dx, 0, W - 1);
        vec3 e = abs(img0[at].xyz - img1[at].xyz);
        d += max(e.x, max(e.y, e.z));
      }
    }
    d *= 1.0 / 9.0;
    float w_static = 1.0 - smooth_step(0.03, 0.09, d);
    if (w_static > 0.001) {
      int at = y * W + x;
      bgr = lerp(bgr, (img0[at].xyz + img1[at].xyz) * 0.5, w_static);
    }
  }
  return uvec3(floor(bgr.zyx * MAXV + 0.5));  // BGR -> RGB
}

void main() {
  const int per_thread = DEEP ? 2 : 4;
  int g = linear_index();
  int first = g * per_thread;
  if (first >= W * H) return;
  uint samples[12];
  [[unroll]] for (int k = 0; k < per_thread; ++k) {
    int p = first + k;
    uvec3 rgb = p < W * H ? pixel(p % W, p / W) : uvec3(0);
    samples[3 * k] = rgb.x;
    samples[3 * k + 1] = rgb.y;
    samples[3 * k + 2] = rgb.z;
  }
  int total_words = DEEP ? (W * H * 3 + 1) / 2 : (W * H * 3 + 3) / 4;
  [[unroll]] for (int j = 0; j < 3; ++j) {
    uint word = DEEP ? samples[2 * j] | (samples[2 * j + 1] << 16)
                     : samples[4 * j] | (samples[4 * j + 1] << 8) | (samples[4 * j + 2] << 16) |
                           (samples[4 * j + 3] << 24);
    if (3 * g + j < total_words) words[3 * g + j] = word;
  }
}
