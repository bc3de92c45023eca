#version 450
// The ensemble's frame: the mean of 2 or 4 passes' packed frames, each turned back where its
// pass was turned, rounded to nearest as the host ensemble does: (sum + n / 2) >> log2 n.
#include "linear.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 0) const int W = 1;
layout(constant_id = 1) const int H = 1;
layout(constant_id = 2) const bool DEEP = false;
layout(constant_id = 3) const int PASSES = 2;  // 2 or 4
layout(constant_id = 4) const int TURNED = 0;  // bit p: pass p's frame is turned

#include "packed.glsl"

layout(std430, binding = 0) readonly buffer Pass0 { uint pass0[]; };
layout(std430, binding = 1) readonly buffer Pass1 { uint pass1[]; };
layout(std430, binding = 2) readonly buffer Pass2 { uint pass2[]; };  // pass0 again for 2
layout(std430, binding = 3) readonly buffer Pass3 { uint pass3[]; };
layout(std430, binding = 4) writeonly buffer Dst { uint dst[]; };

uint pass_sample(int p, int i) {
  int j = (TURNED & (1 << p)) != 0 ? turned_sample(i, W * H) : i;
  int w = j / SAMPLES_PER_WORD;
  uint word = p == 0 ? pass0[w] : p == 1 ? pass1[w] : p == 2 ? pass2[w] : pass3[w];
  return sample_in(word, j);
}

void main() {
  const int samples = W * H * 3;
  const int shift = PASSES == 2 ? 1 : 2;
  int word = linear_index();
  int first = word * SAMPLES_PER_WORD;
  if (first >= samples) return;
  uint packed = 0u;
  for (int k = 0; k < SAMPLES_PER_WORD && first + k < samples; ++k) {
    uint sum = uint(PASSES / 2);
    for (int p = 0; p < PASSES; ++p) sum += pass_sample(p, first + k);
    packed |= (sum >> shift) << (k * SAMPLE_BITS);
  }
  dst[word] = packed;
}
