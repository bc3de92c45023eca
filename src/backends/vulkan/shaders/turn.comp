#version 450
// A packed frame turned by 180 degrees (the ensemble's turned passes), one output word per
// invocation, so no two invocations write the same word.
#include "linear.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 0) const int W = 1;
layout(constant_id = 1) const int H = 1;
layout(constant_id = 2) const bool DEEP = false;

#include "packed.glsl"

layout(std430, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uint dst[]; };

void main() {
  const int samples = W * H * 3;
  int word = linear_index();
  int first = word * SAMPLES_PER_WORD;
  if (first >= samples) return;
  uint packed = 0u;
  for (int k = 0; k < SAMPLES_PER_WORD && first + k < samples; ++k) {
    int from = turned_sample(first + k, W * H);
    packed |= sample_in(src[from / SAMPLES_PER_WORD], from) << (k * SAMPLE_BITS);
  }
  dst[word] = packed;
}
