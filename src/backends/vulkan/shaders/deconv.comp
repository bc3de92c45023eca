#version 450
// ConvTranspose2d 4x4, stride 2, padding 1, no activation: [CI, IH, IW] -> [CO, OH, OW] f32.
// Weight layout [CI, CO, 4, 4] as in the model file. A pixel's CO (5) outputs are computed by
// SPLIT threads, each summing a quarter of the input channels, then added in a fixed order
// through shared memory: the output plane is small (padded size / 8), and one thread per
// pixel left most of the GPU idle on long serial sums.
#include "common.glsl"

layout(constant_id = 0) const int CI = 1;
layout(constant_id = 1) const int CO = 5;
layout(constant_id = 2) const int IW = 1;
layout(constant_id = 3) const int IH = 1;
layout(constant_id = 4) const int OW = 1;
layout(constant_id = 5) const int OH = 1;
layout(constant_id = 6) const int SPLIT = 4;
layout(local_size_x = 8, local_size_y = 8, local_size_z_id = 6) in;

layout(std430, binding = 0) readonly buffer Src { SFLOAT src[]; };
layout(std430, binding = 1) readonly buffer Wgt { float wgt[]; };
layout(std430, binding = 2) readonly buffer Bias { float bias[]; };
layout(std430, binding = 3) writeonly buffer Dst { float dst[]; };

shared float partial[SPLIT * 64 * CO];

void main() {
  int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
  int part = int(gl_LocalInvocationID.z);
  int pixel = int(gl_LocalInvocationID.y) * 8 + int(gl_LocalInvocationID.x);
  bool inside = x < OW && y < OH;
  float acc[CO];
  [[unroll]] for (int co = 0; co < CO; ++co) acc[co] = 0.0;
  if (inside) {
    int per = (CI + SPLIT - 1) / SPLIT;
    int ci0 = part * per, ci1 = min(CI, ci0 + per);
    // Only taps with y + 1 - ky even contribute: ky = py and py + 2 (likewise kx), visited in
    // increasing order like the reference loops.
    int py = (y + 1) & 1, px = (x + 1) & 1;
    for (int a = 0; a < 2; ++a) {
      int ky = py + 2 * a, ty = y + 1 - ky;
      if (ty < 0 || ty / 2 >= IH) continue;
      for (int b = 0; b < 2; ++b) {
        int kx = px + 2 * b, tx = x + 1 - kx;
        if (tx < 0 || tx / 2 >= IW) continue;
        int at = (ty / 2) * IW + tx / 2;
        for (int ci = ci0; ci < ci1; ++ci) {
          float v = float(src[ci * IH * IW + at]);
          int wb = ci * CO * 16 + ky * 4 + kx;
          [[unroll]] for (int co = 0; co < CO; ++co) acc[co] += v * wgt[wb + co * 16];
        }
      }
    }
  }
  [[unroll]] for (int co = 0; co < CO; ++co) partial[(part * 64 + pixel) * CO + co] = acc[co];
  barrier();
  if (part != 0 || !inside) return;
  [[unroll]] for (int co = 0; co < CO; ++co) {
    float sum = bias[co];
    for (int p = 0; p < SPLIT; ++p) sum += partial[(p * 64 + pixel) * CO + co];
    dst[(co * OH + y) * OW + x] = sum;
  }
}
