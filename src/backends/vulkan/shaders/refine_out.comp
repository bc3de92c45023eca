#version 450
// Last refine conv of tfact2 (C -> 3, replicated edges) and the residual 2 * sigmoid(x) - 1,
// [3, QH, QW] f32. Weight layout [3, C, 3, 3] as in the model file.
#include "common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(constant_id = 0) const int C = 1;
layout(constant_id = 1) const int QW = 1;
layout(constant_id = 2) const int QH = 1;

layout(std430, binding = 0) readonly buffer Src { SFLOAT src[]; };
layout(std430, binding = 1) readonly buffer Wgt { float wgt[]; };
layout(std430, binding = 2) readonly buffer Bias { float bias[]; };
layout(std430, binding = 3) writeonly buffer Dst { float dst[]; };

void main() {
  int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
  if (x >= QW || y >= QH) return;
  int xs[3] = int[3](max(x - 1, 0), x, min(x + 1, QW - 1));
  int ys[3] = int[3](max(y - 1, 0), y, min(y + 1, QH - 1));
  float acc[3] = float[3](bias[0], bias[1], bias[2]);
  for (int ci = 0; ci < C; ++ci) {
    [[unroll]] for (int ky = 0; ky < 3; ++ky) {
      [[unroll]] for (int kx = 0; kx < 3; ++kx) {
        float v = float(src[(ci * QH + ys[ky]) * QW + xs[kx]]);
        [[unroll]] for (int co = 0; co < 3; ++co) acc[co] += v * wgt[(co * C + ci) * 9 + ky * 3 + kx];
      }
    }
  }
  [[unroll]] for (int co = 0; co < 3; ++co) dst[(co * QH + y) * QW + x] = 2.0 * sigmoid(acc[co]) - 1.0;
}
