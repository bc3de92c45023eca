#version 450
// The register-blocked conv with weights NOT staged through shared memory: every lane needs
// the same weight, so it is loaded from global memory (L1/L2) and made subgroup-uniform with
// subgroupBroadcastFirst. Saves the staging loop and half of the shared memory; whether that
// wins depends on the device and size, which is why `framecast tune` decides.
#include "common.glsl"
#define WEIGHTS_VEC4 1
#extension GL_KHR_shader_subgroup_ballot : require

layout(local_size_x = 8, local_size_y = 8) in;
#include "conv_common.glsl"
#include "conv_rb_tile.glsl"

const int Q = COC / 4;

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
    load_tile(s, sl, ox0, oy0, li);
    barrier();
    for (int ci = 0; ci < sl; ++ci) {
      float win[4][4];
      read_window(ci, lx, ly, win);
      int wrow = (block * CI + s + ci) * 9 * COC;
      [[unroll]] for (int ky = 0; ky < 3; ++ky) {
        [[unroll]] for (int kx = 0; kx < 3; ++kx) {
          int e = wrow + (ky * 3 + kx) * COC;
          [[unroll]] for (int q = 0; q < Q; ++q) {
            // broadcast the raw bits, unpack after: every lane then holds the same value
            vec4 w = unpack_weight4(subgroupBroadcastFirst(wgt4[(e >> 2) + q]));
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
