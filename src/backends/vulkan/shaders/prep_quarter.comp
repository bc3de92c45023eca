#version 450
// Block0's input [CH, QH, QW] at 1 / SCALE of the padded grid (4: the seed's quarter
// resolution; 8: the large-motion pass): bilinear (align_corners=false) from the real-size
// images, whose clamped taps are exactly the edge-replicated padding; the 7th channel of
// classic models is the constant t.
#include "common.glsl"
#include "bilinear.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(constant_id = 0) const int W = 1;  // real frame size
layout(constant_id = 1) const int H = 1;
layout(constant_id = 2) const int QW = 1;  // padded size / SCALE
layout(constant_id = 3) const int QH = 1;
layout(constant_id = 4) const int CH = 7;
layout(constant_id = 5) const int SCALE = 4;

layout(std430, binding = 0) readonly buffer Img0 { vec4 img0[]; };
layout(std430, binding = 1) readonly buffer Img1 { vec4 img1[]; };
layout(std430, binding = 2) writeonly buffer Xq { SFLOAT xq[]; };
layout(push_constant) uniform Push { float t; } pc;

#define READ_IMG0(i) img0[i].xyz
#define READ_IMG1(i) img1[i].xyz
DEFINE_BILINEAR_RGB(sample0, READ_IMG0)
DEFINE_BILINEAR_RGB(sample1, READ_IMG1)

void main() {
  int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
  if (x >= QW || y >= QH) return;
  float sx = (float(x) + 0.5) * float(SCALE) - 0.5;
  float sy = (float(y) + 0.5) * float(SCALE) - 0.5;
  int o = y * QW + x, plane = QW * QH;
  vec3 a = sample0(0, W, H, sx, sy), b = sample1(0, W, H, sx, sy);
  [[unroll]] for (int c = 0; c < 3; ++c) {
    xq[c * plane + o] = SFLOAT(a[c]);
    xq[(3 + c) * plane + o] = SFLOAT(b[c]);
  }
  if (CH == 7) xq[6 * plane + o] = SFLOAT(pc.t);
}
