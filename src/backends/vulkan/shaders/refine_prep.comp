#version 450
// Refine head input of tfact2 models [11, QH, QW]: warped frames (3 + 3), sigmoid(mask) and
// flow * (0.25 / 20), each the mean over the centre 2x2 of a 4x4 block, which is what a
// bilinear x0.25 resize (align_corners=false) samples.
#include "common.glsl"
#include "bilinear.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(constant_id = 0) const int W = 1;  // real frame size
layout(constant_id = 1) const int H = 1;
layout(constant_id = 2) const int FW = 1;  // flow field (padded size / FACTOR)
layout(constant_id = 3) const int FH = 1;
layout(constant_id = 4) const int FACTOR = 8;  // 8: block0's deconv output; 1: full resolution

layout(std430, binding = 0) readonly buffer Field { float field[]; };
layout(std430, binding = 1) readonly buffer Img0 { vec4 img0[]; };
layout(std430, binding = 2) readonly buffer Img1 { vec4 img1[]; };
layout(std430, binding = 3) writeonly buffer Rin { SFLOAT rin[]; };

#include "flow.glsl"

void main() {
  int QW = FW * FACTOR / 4, QH = FH * FACTOR / 4;
  int hx = int(gl_GlobalInvocationID.x), hy = int(gl_GlobalInvocationID.y);
  if (hx >= QW || hy >= QH) return;
  vec3 w0 = vec3(0.0), w1 = vec3(0.0);
  vec4 flow = vec4(0.0);
  float mask = 0.0;
  [[unroll]] for (int sy = 1; sy <= 2; ++sy) {
    [[unroll]] for (int sx = 1; sx <= 2; ++sx) {
      int X = hx * 4 + sx, Y = hy * 4 + sy;
      Flow f = sample_flow(X, Y);
      w0 += warp0(float(X) + f.f0.x, float(Y) + f.f0.y);
      w1 += warp1(float(X) + f.f1.x, float(Y) + f.f1.y);
      mask += f.mask;
      flow += vec4(f.f0, f.f1);
    }
  }
  const float flow_norm = 0.25 * (0.25 / 20.0);
  int o = hy * QW + hx, plane = QW * QH;
  [[unroll]] for (int c = 0; c < 3; ++c) {
    rin[c * plane + o] = SFLOAT(w0[c] * 0.25);
    rin[(3 + c) * plane + o] = SFLOAT(w1[c] * 0.25);
  }
  rin[6 * plane + o] = SFLOAT(mask * 0.25);
  [[unroll]] for (int c = 0; c < 4; ++c) rin[(7 + c) * plane + o] = SFLOAT(flow[c] * flow_norm);
}
