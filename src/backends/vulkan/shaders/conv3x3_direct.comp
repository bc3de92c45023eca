#version 450
// conv3x3 (any stride, zero padding) + bias + PReLU: one output pixel x COC channels per
// thread, 8x8 pixels per workgroup, the weight slab staged through shared memory and the
// input read straight from global memory (stride 2 reuses little of it). The encoder's two
// stride-2 convs run here.
#include "common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
#include "conv_common.glsl"

shared float wsh[SLAB * 9 * COC];

void main() {
  int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
  int block = int(gl_WorkGroupID.z), cb = block * COC;
  int li = int(gl_LocalInvocationIndex);
  bool inside = x < OW && y < OH;
  float acc[COC];
  [[unroll]] for (int c = 0; c < COC; ++c) acc[c] = bias[cb + c];

  for (int s = 0; s < CI; s += SLAB) {
    int sl = min(SLAB, CI - s);
    barrier();
    int wbase = (block * CI + s) * 9 * COC;
    for (int i = li; i < sl * 9 * COC; i += 64) wsh[i] = float(wgt[wbase + i]);
    barrier();
    if (inside) {
      for (int ci = 0; ci < sl; ++ci) {
        int plane = (s + ci) * IH * IW;
        [[unroll]] for (int ky = 0; ky < 3; ++ky) {
          int iy = y * STRIDE + ky - 1;
          if (iy < 0 || iy >= IH) continue;
          [[unroll]] for (int kx = 0; kx < 3; ++kx) {
            int ix = x * STRIDE + kx - 1;
            if (ix < 0 || ix >= IW) continue;
            float v = float(src[plane + iy * IW + ix]);
            int wb = (ci * 9 + ky * 3 + kx) * COC;
            [[unroll]] for (int c = 0; c < COC; ++c) acc[c] += v * wsh[wb + c];
          }
        }
      }
    }
  }
  if (!inside) return;
  [[unroll]] for (int c = 0; c < COC; ++c) store_output(cb + c, x, y, acc[c]);
}
