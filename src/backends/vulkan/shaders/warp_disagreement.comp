#version 450
// The large-motion pass's measure of one block0 output: |frame0 warped - frame1 warped|
// summed over the three channels of the frame's real pixels (see flow.glsl for the flow and
// the warp), one partial sum per workgroup of 16x16 pixels, written at sums[OFFSET + group].
// scale_choice.comp adds the partial sums up.
#include "common.glsl"
#include "bilinear.glsl"

layout(local_size_x = 16, local_size_y = 16) in;
layout(constant_id = 0) const int W = 1;  // real frame size
layout(constant_id = 1) const int H = 1;
layout(constant_id = 2) const int FW = 1;  // block0's output (padded size / FACTOR)
layout(constant_id = 3) const int FH = 1;
layout(constant_id = 4) const int FACTOR = 8;
layout(constant_id = 5) const int OFFSET = 0;

layout(std430, binding = 0) readonly buffer Field { float field[]; };
layout(std430, binding = 1) readonly buffer Img0 { vec4 img0[]; };
layout(std430, binding = 2) readonly buffer Img1 { vec4 img1[]; };
layout(std430, binding = 3) writeonly buffer Sums { float sums[]; };

#include "flow.glsl"

shared float partial[256];

void main() {
  int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
  float d = 0.0;
  if (x < W && y < H) {
    Flow f = sample_flow(x, y);
    vec3 a = warp0(float(x) + f.f0.x, float(y) + f.f0.y);
    vec3 b = warp1(float(x) + f.f1.x, float(y) + f.f1.y);
    vec3 e = abs(a - b);
    d = e.x + e.y + e.z;
  }
  uint i = gl_LocalInvocationIndex;
  partial[i] = d;
  barrier();
  for (uint n = 128; n > 0; n >>= 1) {
    if (i < n) partial[i] += partial[i + n];
    barrier();
  }
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  if (i == 0) sums[OFFSET + int(group)] = partial[0];
}
