#version 450
// conv3x3 (stride 1 or 2) + bias + PReLU (+ residual) on tensor cores through
// VK_NV_cooperative_matrix (f16 storage only; f16 products, f32 accumulation). As an implicit
// GEMM per input-channel chunk of 16 and per tap: C[co][px] += A[co][ci] * B[ci][px], with
//   A: the tap's weights, packed on the host as contiguous 16 x 16 matrices,
//      [tap][CO / 16][CIP / 16][16][16] (CIP: CI rounded up to 16, the extra channels zero), so
//      that one matrix load reads 512 consecutive bytes, and staged per chunk in shared memory
//      as [tap][co][24] (16 channels + 8 of padding),
//   B: the input tile stored channels-last, [row][col][24], so that for every tap the 16
//      channels x N pixels of a row segment are one column-major matrix at a 16-byte-aligned
//      offset whose columns are STRIDE pixels apart - no im2col copy. The 48-byte pixel pitch
//      spreads a load's rows over all banks.
// A workgroup is 4 subgroups of 32 (NVIDIA); it computes COC output channels (a multiple of
// 16) x 16 columns x 4*R rows; each subgroup owns R rows and every channel block. The
// accumulators go through a small per-subgroup f32 staging area for the epilogue.
// WEIGHTS_GLOBAL (the coop-global kind) skips the shared weight chunk: each subgroup loads
// its A matrices from global memory, where the workgroup's four subgroups hit L1.
// Software-pipelined, since a grid of a few hundred workgroups leaves too few warps per
// multiprocessor to hide memory latency: the next chunk's input (and, in the shared-weights
// kind, its weights) loads into registers while this chunk's products run, and each tap's A
// matrices load during the previous tap's.
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#include "common.glsl"
#define WEIGHTS_UVEC4 1

layout(local_size_x = 128) in;
#include "conv_common.glsl"
layout(constant_id = 12) const bool WEIGHTS_GLOBAL = false;

const int MT = COC / 16;     // channel blocks of 16 per workgroup
const int R = SLAB;          // output rows per subgroup (the `slab` knob of this kind)
const int CN = TS;           // N of the matrix type, 8 or 16 (the `tile_stride` knob)
const int NT = 16 / CN;      // matrices per 16-pixel row segment
const int ROWS = 4 * R;      // output rows per workgroup
const int TROWS = (ROWS - 1) * STRIDE + 3;  // input rows with the halo
const int TCOLS = 15 * STRIDE + 3;          // input columns of 16 output columns
const int PITCH = 3;         // uvec4s per staged pixel / weight row: 16 halves + 8 of padding
const int CIP = (CI + 15) / 16 * 16;  // input channels as packed: whole chunks of 16

// Staged input and weights are uvec4 arrays and every matrix load is addressed in uvec4s, so
// that the driver loads 16 bytes at a time (with f16 arrays it loads halves one by one).
const int GROUPS = 2 * TROWS * TCOLS;  // one chunk's staged 8-channel pixel groups
const int LOADS = (GROUPS + 127) / 128;  // per thread

shared uvec4 tile[TROWS * TCOLS * PITCH];
shared uvec4 wsh[WEIGHTS_GLOBAL ? 1 : 9 * COC * PITCH];
shared float stage[4 * 16 * 16];

// The next chunk's input, held in registers while the tensor cores work on this one, so that
// its global loads are in flight during the products instead of before them.
uvec4 staged[LOADS];

// Group i of a chunk: 8 channels (g = 0, 1) of one tile pixel, threads running along x so
// that each channel's global reads are coalesced.
ivec3 tile_group(int i) {
  int g = i / (TROWS * TCOLS), r = i - g * (TROWS * TCOLS);
  int row = r / TCOLS;
  return ivec3(g, row, r - row * TCOLS);
}

void load_chunk(int c0, int ox0, int oy0, int li) {
  [[unroll]] for (int j = 0; j < LOADS; ++j) {
    int i = li + j * 128;
    ivec3 e = tile_group(min(i, GROUPS - 1));
    int y = oy0 * STRIDE + e.y - 1, x = ox0 * STRIDE + e.z - 1;
    bool inside = i < GROUPS && y >= 0 && y < IH && x >= 0 && x < IW;
    float16_t v[8];
    [[unroll]] for (int k = 0; k < 8; ++k) {
      int c = c0 + e.x * 8 + k;
      v[k] = inside && c < CI ? src[(c * IH + y) * IW + x] : float16_t(0.0);
    }
    staged[j] = uvec4(packFloat2x16(f16vec2(v[0], v[1])), packFloat2x16(f16vec2(v[2], v[3])),
                      packFloat2x16(f16vec2(v[4], v[5])), packFloat2x16(f16vec2(v[6], v[7])));
  }
}

void store_chunk(int li) {
  [[unroll]] for (int j = 0; j < LOADS; ++j) {
    int i = li + j * 128;
    if (i < GROUPS) {
      ivec3 e = tile_group(i);
      tile[(e.y * TCOLS + e.z) * PITCH + e.x] = staged[j];
    }
  }
}

// The first uvec4 of the packed 16 x 16 weight matrix of `tap`, output channels co..co + 15
// (co a multiple of 16) and input channels c0..c0 + 15; its rows are 2 uvec4s apart.
uint weight_matrix(int tap, int co, int c0) {
  return uint(((tap * (CO / 16) + co / 16) * (CIP / 16) + c0 / 16) * 32);
}

// The shared-weights kind stages a chunk's 9 taps x COC channels x 16 input channels, 16
// bytes per copy: loaded into registers with the next chunk's input, stored after the barrier.
const int WGROUPS = WEIGHTS_GLOBAL ? 0 : 9 * COC * 2;
const int WLOADS = WGROUPS > 0 ? (WGROUPS + 127) / 128 : 1;  // per thread
uvec4 wstaged[WLOADS];

void load_weight_chunk(int c0, int co0, int li) {
  if (WEIGHTS_GLOBAL) return;
  [[unroll]] for (int j = 0; j < WLOADS; ++j) {
    int i = min(li + j * 128, WGROUPS - 1);
    int row = i >> 1, half8 = i & 1;  // row = tap * COC + co
    int tap = row / COC, co = row - tap * COC;
    wstaged[j] = wgt8[weight_matrix(tap, co0 + co, c0) + (co & 15) * 2 + half8];
  }
}

void store_weight_chunk(int li) {
  if (WEIGHTS_GLOBAL) return;
  [[unroll]] for (int j = 0; j < WLOADS; ++j) {
    int i = li + j * 128;
    if (i < WGROUPS) wsh[(i >> 1) * PITCH + (i & 1)] = wstaged[j];
  }
}

void load_weights(out fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> a[MT], int tap, int c0, int co0) {
  [[unroll]] for (int m = 0; m < MT; ++m) {
    if (WEIGHTS_GLOBAL) {
      coopMatLoadNV(a[m], wgt8, weight_matrix(tap, co0 + m * 16, c0), 2u, false);
    } else {
      coopMatLoadNV(a[m], wsh, uint((tap * COC + m * 16) * PITCH), uint(PITCH), false);
    }
  }
}

void main() {
  int sg = int(gl_SubgroupID), lane = int(gl_SubgroupInvocationID);
  int li = int(gl_LocalInvocationIndex);
  int ox0 = int(gl_WorkGroupID.x) * 16, oy0 = int(gl_WorkGroupID.y) * ROWS;
  int co0 = int(gl_WorkGroupID.z) * COC;
  fcoopmatNV<32, gl_ScopeSubgroup, 16, CN> acc[MT * R * NT];
  [[unroll]] for (int i = 0; i < MT * R * NT; ++i) acc[i] = fcoopmatNV<32, gl_ScopeSubgroup, 16, CN>(0.0);

  load_chunk(0, ox0, oy0, li);
  load_weight_chunk(0, co0, li);
  for (int c0 = 0; c0 < CIP; c0 += 16) {
    barrier();  // every subgroup is done with the previous chunk
    store_chunk(li);
    store_weight_chunk(li);
    barrier();
    if (c0 + 16 < CIP) {
      load_chunk(c0 + 16, ox0, oy0, li);
      load_weight_chunk(c0 + 16, co0, li);
    }
    // The weights of tap k + 1 load while tap k's products run.
    fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> a[2][MT];
    load_weights(a[0], 0, c0, co0);
    [[unroll]] for (int tap = 0; tap < 9; ++tap) {
      if (tap < 8) load_weights(a[(tap + 1) & 1], tap + 1, c0, co0);
      int ky = tap / 3, kx = tap - ky * 3;
      [[unroll]] for (int r = 0; r < R; ++r) {
        [[unroll]] for (int nt = 0; nt < NT; ++nt) {
          fcoopmatNV<16, gl_ScopeSubgroup, 16, CN> b;
          int trow = (sg * R + r) * STRIDE + ky, tcol = nt * CN * STRIDE + kx;
          coopMatLoadNV(b, tile, uint((trow * TCOLS + tcol) * PITCH), uint(STRIDE * PITCH), true);
          [[unroll]] for (int m = 0; m < MT; ++m) {
            int k = (m * R + r) * NT + nt;
            acc[k] = coopMatMulAddNV(a[tap & 1][m], b, acc[k]);
          }
        }
      }
    }
  }
  // epilogue: each accumulator through the subgroup's staging area, then bias, PReLU,
  // residual and the f16 store per element
  int stage0 = sg * 256;
  [[unroll]] for (int m = 0; m < MT; ++m) {
    [[unroll]] for (int r = 0; r < R; ++r) {
      [[unroll]] for (int nt = 0; nt < NT; ++nt) {
        coopMatStoreNV(acc[(m * R + r) * NT + nt], stage, uint(stage0), uint(CN), false);
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        int y = oy0 + sg * R + r;
        for (int e = lane; e < 16 * CN; e += 32) {
          int co = co0 + m * 16 + e / CN, x = ox0 + nt * CN + e % CN;
          if (x < OW && y < OH) store_output(co, x, y, stage[stage0 + e] + bias[co]);
        }
        subgroupMemoryBarrierShared();
        subgroupBarrier();
      }
    }
  }
}
