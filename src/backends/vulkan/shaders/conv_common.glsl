// The interface every conv3x3 kernel shares: specialization constants, bindings and the
// epilogue (bias is the accumulator's start; then PReLU, then the trunk residual, added after
// the activation as the seed does). Weights are pre-packed on the host to
// [CO / COC][CI][9][COC] so that a block's slab of weights is one contiguous range.
layout(constant_id = 0) const int CI = 1;
layout(constant_id = 1) const int CO = 1;
layout(constant_id = 2) const int IW = 1;
layout(constant_id = 3) const int IH = 1;
layout(constant_id = 4) const int OW = 1;
layout(constant_id = 5) const int OH = 1;
layout(constant_id = 6) const int STRIDE = 1;
layout(constant_id = 7) const int COC = 4;    // output channels per thread
layout(constant_id = 8) const int SLAB = 16;  // input channels staged per round
layout(constant_id = 9) const bool RESIDUAL = false;
layout(constant_id = 10) const bool PRELU = true;
layout(constant_id = 11) const int TS = 18;  // shared tile row stride (floats), rb kernels

layout(std430, binding = 0) readonly buffer Src { SFLOAT src[]; };
#if WEIGHTS_VEC4
// Register-blocked kernels read weights four channels at a time (COC is a multiple of 4, so
// every read is aligned): one 16-byte f32 or 8-byte f16 load, the f16 halves unpacked from
// their raw bits.
#if STORAGE_F16
layout(std430, binding = 1) readonly buffer Wgt { uvec2 wgt4[]; };
vec4 unpack_weight4(uvec2 raw) { return vec4(unpackHalf2x16(raw.x), unpackHalf2x16(raw.y)); }
#else
layout(std430, binding = 1) readonly buffer Wgt { vec4 wgt4[]; };
vec4 unpack_weight4(vec4 raw) { return raw; }
#endif
// Weights e .. e + 3 (e a multiple of 4).
vec4 load_weight4(int e) { return unpack_weight4(wgt4[e >> 2]); }
#elif WEIGHTS_UVEC4
// The cooperative-matrix kernel copies weights 8 halves (16 bytes) at a time.
layout(std430, binding = 1) readonly buffer Wgt { uvec4 wgt8[]; };
#else
layout(std430, binding = 1) readonly buffer Wgt { SFLOAT wgt[]; };
#endif
layout(std430, binding = 2) readonly buffer Bias { float bias[]; };
layout(std430, binding = 3) readonly buffer Alpha { float alpha[]; };
layout(std430, binding = 4) writeonly buffer Dst { SFLOAT dst[]; };
layout(std430, binding = 5) readonly buffer Res { SFLOAT res[]; };  // bound to dst if unused

void store_output(int co, int x, int y, float acc) {
  float v = acc;
  if (PRELU && v < 0.0) v *= alpha[co];
  int o = (co * OH + y) * OW + x;
  if (RESIDUAL) v += float(res[o]);
  dst[o] = SFLOAT(v);
}
