#version 450
// Register-blocked stride-1 conv3x3 + bias + PReLU (+ residual): each thread computes a 2x2
// pixel patch x COC output channels (COC a multiple of 4, held as vec4 accumulators), so each
// shared read feeds 4 to 8 FMAs. The weight slab is staged in shared memory as vec4 of
// channels, read uniformly by the whole workgroup (a broadcast). The trunk runs here.
#include "common.glsl"
#define WEIGHTS_VEC4 1

layout(local_size_x = 8, local_size_y = 8) in;
#include "conv_common.glsl"
#include "conv_rb_tile.glsl"

const int Q = COC / 4;
shared vec4 wsh[SLAB * 9 * Q];

void main() {
  int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y);
  int ox0 = int(gl_WorkGroupID.x) * 16, oy0 = int(gl_WorkGroupID.y) * 16;
  int block = int(gl_WorkGroupID.z), cb = block * COC;
  int li = int(gl_LocalInvocationIndex);
  vec4 acc[Q][4];
  [[unroll]] for (int q = 0; q < Q; ++q) {
    vec4 b = vec4(bias[cb + 4 * q], bias[cb + 4 * q + 1], bias[cb + 4 * q + 2], bias[cb + 4 * q + 3]);
    [[unroll]] for (int p = 0; p < 4; ++p) acc[q][p] = b;
  }

  for (int s = 0; s < CI; s += SLAB) {
    int sl = min(SLAB, CI - s);
    barrier();
    int wbase = (block * CI + s) * 9 * COC;
    for (int i = li; i < sl * 9 * Q; i += 64) wsh[i] = load_weight4(wbase + 4 * i);
    load_tile(s, sl, ox0, oy0, li);
    barrier();
    for (int ci = 0; ci < sl; ++ci) {
      float win[4][4];
      read_window(ci, lx, ly, win);
      [[unroll]] for (int ky = 0; ky < 3; ++ky) {
        [[unroll]] for (int kx = 0; kx < 3; ++kx) {
          int wi = (ci * 9 + ky * 3 + kx) * Q;
          [[unroll]] for (int q = 0; q < Q; ++q) {
            vec4 w = wsh[wi + q];
            acc[q][0] += win[ky][kx] * w;
            acc[q][1] += win[ky][kx + 1] * w;
            acc[q][2] += win[ky + 1][kx] * w;
            acc[q][3] += win[ky + 1][kx + 1] * w;
          }
        }
      }
    }
  }
  [[unroll]] for (int q = 0; q < Q; ++q) store_patch(cb + 4 * q, ox0 + lx * 2, oy0 + ly * 2, acc[q]);
}
