#version 450
// FiLM conditioning of tfact models: x' = x * (1 + scale[c]) + shift[c], from the saved trunk
// into the working activation (so the trunk survives for the next t). The parameters come
// from the tiny t-MLP, run on the host per t; `slot` picks one t's set of a batch.
#include "common.glsl"
#include "linear.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 0) const int C = 1;
layout(constant_id = 1) const int N = 1;  // values per channel

layout(std430, binding = 0) readonly buffer Src { SFLOAT src[]; };
layout(std430, binding = 1) readonly buffer Params { float params[]; };  // [slots][2C]
layout(std430, binding = 2) writeonly buffer Dst { SFLOAT dst[]; };
layout(push_constant) uniform Push { int slot; } pc;

void main() {
  int i = linear_index();
  if (i >= C * N) return;
  int c = i / N, base = pc.slot * 2 * C;
  float scale = 1.0 + params[base + c];
  dst[i] = SFLOAT(float(src[i]) * scale + params[base + C + c]);
}
