#version 450
// Full-resolution images of both frames: packed interleaved RGB (8 or 16 bits per sample, as
// uploaded) -> one vec4 (b, g, r, 0) in [0, 1] per pixel at the frames' real size, so that a
// bilinear tap of all three samples is one 16-byte load. f32 in every precision: the warp
// reads them, and 16-bit frames need more than f16's 11 bits.
#include "common.glsl"
#include "linear.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 0) const int W = 1;  // real frame size
layout(constant_id = 1) const int H = 1;
layout(constant_id = 2) const bool DEEP = false;  // 16-bit samples
layout(constant_id = 3) const float SCALE = 1.0;  // 1 / max sample value, computed on the host

#include "packed.glsl"

layout(std430, binding = 0) readonly buffer Frame0 { uint frame0[]; };
layout(std430, binding = 1) readonly buffer Frame1 { uint frame1[]; };
layout(std430, binding = 2) writeonly buffer Img0 { vec4 img0[]; };
layout(std430, binding = 3) writeonly buffer Img1 { vec4 img1[]; };

void main() {
  int p = linear_index();
  if (p >= W * H) return;
  bool second = gl_WorkGroupID.z == 1;
  vec4 bgr = vec4(0.0);
  [[unroll]] for (int c = 0; c < 3; ++c) {
    int i = 3 * p + c;
    int word_index = i / SAMPLES_PER_WORD;
    uint word = second ? frame1[word_index] : frame0[word_index];
    bgr[2 - c] = float(sample_in(word, i)) * SCALE;  // RGB samples -> b, g, r
  }
  if (second) {
    img1[p] = bgr;
  } else {
    img0[p] = bgr;
  }
}
