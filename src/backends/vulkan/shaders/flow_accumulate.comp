#version 450
// The full-resolution flow field [5, FH, FW] f32 of models with refinement blocks: a block's
// coarse output [5, FH / FACTOR, FW / FACTOR] upsampled by FACTOR, flows times FACTOR, mask
// logits as they are; written (block0) or added (block k). FACTOR is 2 x the block's scale
// both ways: its deconv output has 1 / (2 scale) of the padded size, and the flows are in
// pixels of that plane doubled.
//
// Bilinear (align_corners=false), or with CONVEX RAFT's convex upsampling (graph.py's
// convex_upsample, the CPU's add_convex_residual): the output at (FACTOR Y + ay, FACTOR X + ax)
// is the 3x3 neighbourhood of coarse pixel (Y, X), edges replicated, weighted by the softmax
// of the 9 logits [(k FACTOR + ay) FACTOR + ax] at (Y, X) that the block's upmask wrote, tap
// k = ky * 3 + kx. The upmask is a parity conv on the plane of half the coarse size: logit c
// at (Y, X) is its channel 4 c + 2 (Y % 2) + X % 2 at (Y / 2, X / 2), in storage precision.
#include "common.glsl"
#include "bilinear.glsl"

layout(constant_id = 0) const int FW = 1;  // padded size
layout(constant_id = 1) const int FH = 1;
layout(constant_id = 2) const int FACTOR = 8;
layout(constant_id = 3) const bool ACCUMULATE = false;
layout(constant_id = 4) const bool CONVEX = false;
// 8x8 invocations, one per pixel; CONVEX: 32x2, each the 2x2 coarse pixels of one half-plane
// pixel at one sub-pixel (main)
layout(local_size_x_id = 5, local_size_y_id = 6) in;

layout(std430, binding = 0) readonly buffer Coarse { float coarse[]; };
layout(std430, binding = 1) buffer Field { float field[]; };
layout(std430, binding = 2) readonly buffer Logits { SFLOAT logits[]; };  // CONVEX only

#define READ_COARSE(i) coarse[i]
DEFINE_BILINEAR(coarse_at, READ_COARSE)

const int CW = FW / FACTOR, CH = FH / FACTOR;

// Bilinear: the 5 values at full-resolution pixel (x, y), before the flows' scaling.
void bilinear_at(int x, int y, out float v[5]) {
  float scale = float(FACTOR);
  float sx = (float(x) + 0.5) / scale - 0.5, sy = (float(y) + 0.5) / scale - 0.5;
  [[unroll]] for (int c = 0; c < 5; ++c) v[c] = coarse_at(c * CW * CH, CW, CH, sx, sy);
}

// Convex: the 5 values at sub-pixel (ax, ay) of coarse pixel (cx, cy).
void convex_at(int cx, int cy, int ax, int ay, out float v[5]) {
  int plane = CW * CH;
  int half_plane = (CW / 2) * (CH / 2), parity = (cy & 1) * 2 + (cx & 1);
  int half_at = (cy >> 1) * (CW / 2) + (cx >> 1);
  float w[9];
  [[unroll]] for (int k = 0; k < 9; ++k) {
    int c = (k * FACTOR + ay) * FACTOR + ax;
    w[k] = float(logits[(4 * c + parity) * half_plane + half_at]);
  }
  softmax9(w);
  int xs[3] = int[3](max(cx - 1, 0), cx, min(cx + 1, CW - 1));
  int ys[3] = int[3](max(cy - 1, 0), cy, min(cy + 1, CH - 1));
  [[unroll]] for (int c = 0; c < 5; ++c) {
    float sum = 0.0;
    [[unroll]] for (int k = 0; k < 9; ++k)
      sum += w[k] * coarse[c * plane + ys[k / 3] * CW + xs[k % 3]];
    v[c] = sum;
  }
}

void store(int x, int y, float v[5]) {
  int i = y * FW + x, plane = FW * FH;
  [[unroll]] for (int c = 0; c < 5; ++c) {
    if (c < 4) v[c] *= float(FACTOR);
    field[c * plane + i] = ACCUMULATE ? field[c * plane + i] + v[c] : v[c];
  }
}

// CONVEX: invocation (gx, gy) is sub-pixel (gx % FACTOR, gy % FACTOR) of half-plane pixel
// (gx / FACTOR, gy / FACTOR), so that a subgroup's 32 invocations read each logit plane at 8
// consecutive half-plane pixels (4 planes, one per sub-pixel column) instead of 32 planes at
// scattered pixels; the 2x2 coarse pixels it covers are the four parities.
void main() {
  int gx = int(gl_GlobalInvocationID.x), gy = int(gl_GlobalInvocationID.y);
  float v[5];
  if (!CONVEX) {
    if (gx >= FW || gy >= FH) return;
    bilinear_at(gx, gy, v);
    store(gx, gy, v);
    return;
  }
  int ax = gx % FACTOR, ay = gy % FACTOR, hx = gx / FACTOR, hy = gy / FACTOR;
  if (hx >= CW / 2 || hy >= CH / 2) return;
  [[unroll]] for (int py = 0; py < 2; ++py)
    [[unroll]] for (int px = 0; px < 2; ++px) {
      int cx = 2 * hx + px, cy = 2 * hy + py;
      convex_at(cx, cy, ax, ay, v);
      store(FACTOR * cx + ax, FACTOR * cy + ay, v);
    }
}
