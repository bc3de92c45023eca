#version 450
// The full-resolution flow field [5, FH, FW] f32 of models with refinement blocks: a block's
// coarse output [5, FH / FACTOR, FW / FACTOR] upsampled by FACTOR (bilinear, align_corners=
// false), flows times FACTOR, mask logits as they are; written (block0) or added (block k).
// FACTOR is 2 x the block's scale both ways: its deconv output has 1 / (2 scale) of the padded
// size, and the flows are in pixels of that plane doubled.
#include "common.glsl"
#include "bilinear.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(constant_id = 0) const int FW = 1;  // padded size
layout(constant_id = 1) const int FH = 1;
layout(constant_id = 2) const int FACTOR = 8;
layout(constant_id = 3) const bool ACCUMULATE = false;

layout(std430, binding = 0) readonly buffer Coarse { float coarse[]; };
layout(std430, binding = 1) buffer Field { float field[]; };

#define READ_COARSE(i) coarse[i]
DEFINE_BILINEAR(coarse_at, READ_COARSE)

void main() {
  int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
  if (x >= FW || y >= FH) return;
  int cw = FW / FACTOR, ch = FH / FACTOR;
  float scale = float(FACTOR);
  float sx = (float(x) + 0.5) / scale - 0.5, sy = (float(y) + 0.5) / scale - 0.5;
  int i = y * FW + x, plane = FW * FH;
  [[unroll]] for (int c = 0; c < 5; ++c) {
    float v = coarse_at(c * cw * ch, cw, ch, sx, sy);
    if (c < 4) v *= scale;
    field[c * plane + i] = ACCUMULATE ? field[c * plane + i] + v : v;
  }
}
