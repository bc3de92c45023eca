#version 450
// Stride-1 conv3x3 + bias + PReLU with shared-memory tiles: 8x8 outputs per workgroup, the
// 10x10 input tiles (halo included) of a whole slab of input channels staged at once, so a
// barrier pair costs one slab instead of one channel, and each value is reused 9x from shared
// memory. Any COC, so it also runs widths that the register-blocked kernel cannot.
#include "common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
#include "conv_common.glsl"

shared float wsh[SLAB * 9 * COC];
shared float tile[SLAB * 100];

void main() {
  int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y);
  int wx0 = int(gl_WorkGroupID.x) * 8, wy0 = int(gl_WorkGroupID.y) * 8;
  int x = wx0 + lx, y = wy0 + ly;
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
    for (int i = li; i < sl * 100; i += 64) {
      int ci = i / 100, r = i - ci * 100;
      int ty = wy0 + r / 10 - 1, tx = wx0 + r % 10 - 1;
      float v = 0.0;
      if (ty >= 0 && ty < IH && tx >= 0 && tx < IW) v = float(src[(s + ci) * IH * IW + ty * IW + tx]);
      tile[i] = v;
    }
    barrier();
    if (inside) {
      for (int ci = 0; ci < sl; ++ci) {
        int tb = ci * 100 + ly * 10 + lx;
        [[unroll]] for (int ky = 0; ky < 3; ++ky) {
          [[unroll]] for (int kx = 0; kx < 3; ++kx) {
            float v = tile[tb + ky * 10 + kx];
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
