#version 450
// The large-motion pass's flow field: the chosen block0 output (choice[0], scale_choice.comp)
// upsampled into the full-resolution field [5, FH, FW] f32 as flow_accumulate.comp writes it:
// block0 at 1/4 (coarse4 [5, FH / FACTOR, FW / FACTOR], x FACTOR) or at 1/8 (coarse8 [5, CH8,
// CW8], x 2 FACTOR; it ran on the frames padded to 32, so it may cover more than the grid).
// FACTOR is 8 for the deconv's output, 4 where a convex block0 upsampled it by 2. The choice
// is uniform, so every invocation takes the same branch.
#include "common.glsl"
#include "bilinear.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(constant_id = 0) const int FW = 1;  // padded size
layout(constant_id = 1) const int FH = 1;
layout(constant_id = 2) const int CW8 = 1;  // coarse8's size
layout(constant_id = 3) const int CH8 = 1;
layout(constant_id = 4) const int FACTOR = 8;

layout(std430, binding = 0) readonly buffer Coarse4 { float coarse4[]; };
layout(std430, binding = 1) readonly buffer Coarse8 { float coarse8[]; };
layout(std430, binding = 2) readonly buffer Choice { uint choice[]; };
layout(std430, binding = 3) writeonly buffer Field { float field[]; };

#define READ_COARSE4(i) coarse4[i]
#define READ_COARSE8(i) coarse8[i]
DEFINE_BILINEAR(coarse4_at, READ_COARSE4)
DEFINE_BILINEAR(coarse8_at, READ_COARSE8)

void main() {
  int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
  if (x >= FW || y >= FH) return;
  bool half_scale = choice[0] != 0u;
  int factor = half_scale ? 2 * FACTOR : FACTOR;
  int cw = half_scale ? CW8 : FW / FACTOR, ch = half_scale ? CH8 : FH / FACTOR;
  float scale = float(factor);
  float sx = (float(x) + 0.5) / scale - 0.5, sy = (float(y) + 0.5) / scale - 0.5;
  int i = y * FW + x, plane = FW * FH;
  [[unroll]] for (int c = 0; c < 5; ++c) {
    int base = c * cw * ch;
    float v = half_scale ? coarse8_at(base, cw, ch, sx, sy) : coarse4_at(base, cw, ch, sx, sy);
    field[c * plane + i] = c < 4 ? v * scale : v;
  }
}
