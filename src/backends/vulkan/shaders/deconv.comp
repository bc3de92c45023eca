#version 450
// ConvTranspose2d 4x4, stride 2, padding 1, no activation: [CI, IH, IW] -> [CO, 2 IH, 2 IW] f32.
// Weight layout [CI, CO, 4, 4] as in the model file, read as one vec4 per kernel row.
//
// A thread owns the 2 x 2 output pixels (2 Y + r, 2 X + s) of input pixel (Y, X): output row
// 2 Y + r takes kernel row ky = 1 - r + 2 a from input row Y + r - a (a = 0, 1), and likewise
// for the columns, so the four read the input's 3 x 3 neighbourhood of (Y, X). Each channel's
// nine values are loaded once for 4 x COB x 4 products, where a thread per output pixel loads
// four values for COB x 4. SPLIT threads share a pixel, each summing a slice of the input
// channels (the planes are small: 1/16 and 1/32 of the frame), and the slices are added to
// the bias in a fixed order through shared memory. A workgroup computes the COB output
// channels of block gl_WorkGroupID.z: all CO of a flow block's lastconv (5), or a slice of
// wider outputs, whose sums would not fit in registers or shared memory at once. (Convex
// upmasks, 9 f^2 outputs, run as parity convs on the conv kernels instead: faster.)
#include "common.glsl"

layout(constant_id = 0) const int CI = 1;
layout(constant_id = 1) const int CO = 5;
layout(constant_id = 2) const int IW = 1;
layout(constant_id = 3) const int IH = 1;
layout(constant_id = 4) const int SPLIT = 4;
layout(constant_id = 5) const int COB = 5;  // output channels per workgroup; divides CO
layout(local_size_x = 8, local_size_y = 4, local_size_z_id = 4) in;

layout(std430, binding = 0) readonly buffer Src { SFLOAT src[]; };
layout(std430, binding = 1) readonly buffer Wgt { vec4 wgt[]; };
layout(std430, binding = 2) readonly buffer Bias { float bias[]; };
layout(std430, binding = 3) writeonly buffer Dst { float dst[]; };

const int OW = 2 * IW, OH = 2 * IH;
// A workgroup's outputs: COB channels x 8 rows x 16 columns, ordered so that consecutive
// elements are consecutive output columns.
const int OUTS = COB * 8 * 16;
shared float partial[SPLIT * OUTS];

int element(int co, int row, int col) { return (co * 8 + row) * 16 + col; }

void main() {
  int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y);
  int part = int(gl_LocalInvocationID.z);
  int x = int(gl_WorkGroupID.x) * 8 + lx, y = int(gl_WorkGroupID.y) * 4 + ly;
  int co0 = int(gl_WorkGroupID.z) * COB;  // the block's first output channel
  float acc[4 * COB];  // [r * 2 + s][co - co0]
  [[unroll]] for (int i = 0; i < 4 * COB; ++i) acc[i] = 0.0;
  if (x < IW && y < IH) {
    int per = (CI + SPLIT - 1) / SPLIT;
    int ci0 = part * per, ci1 = min(CI, ci0 + per);
    for (int ci = ci0; ci < ci1; ++ci) {
      float v[9];  // the 3 x 3 neighbourhood, zero outside the plane
      [[unroll]] for (int dy = 0; dy < 3; ++dy) {
        [[unroll]] for (int dx = 0; dx < 3; ++dx) {
          int iy = y - 1 + dy, ix = x - 1 + dx;
          bool inside = iy >= 0 && iy < IH && ix >= 0 && ix < IW;
          v[dy * 3 + dx] = inside ? float(src[(ci * IH + iy) * IW + ix]) : 0.0;
        }
      }
      [[unroll]] for (int co = 0; co < COB; ++co) {
        [[unroll]] for (int ky = 0; ky < 4; ++ky) {
          vec4 w = wgt[(ci * CO + co0 + co) * 4 + ky];
          int r = (ky + 1) & 1, dy = 1 + r - (ky >> 1);
          [[unroll]] for (int kx = 0; kx < 4; ++kx) {
            int s = (kx + 1) & 1, dx = 1 + s - (kx >> 1);
            acc[(r * 2 + s) * COB + co] += v[dy * 3 + dx] * w[kx];
          }
        }
      }
    }
  }
  [[unroll]] for (int r = 0; r < 2; ++r)
    [[unroll]] for (int s = 0; s < 2; ++s)
      [[unroll]] for (int co = 0; co < COB; ++co)
        partial[part * OUTS + element(co, 2 * ly + r, 2 * lx + s)] = acc[(r * 2 + s) * COB + co];
  barrier();
  int ox0 = int(gl_WorkGroupID.x) * 16, oy0 = int(gl_WorkGroupID.y) * 8;
  for (int e = int(gl_LocalInvocationIndex); e < OUTS; e += 32 * SPLIT) {
    int col = e % 16, row = (e / 16) % 8, co = co0 + e / 128;
    int ox = ox0 + col, oy = oy0 + row;
    if (ox >= OW || oy >= OH) continue;
    float sum = bias[co];
    for (int p = 0; p < SPLIT; ++p) sum += partial[p * OUTS + e];
    dst[(co * OH + oy) * OW + ox] = sum;
  }
}
