#version 450
// A refinement block's input [CI, FH / S, FW / S]: both frames, both frames warped by the
// current full-resolution flow field, t (classic models: CI = 18), the mask logits and the
// flows / S, on the padded grid; then resampled by 1 / S, bilinear with align_corners=false,
// i.e. the same lerps of the same taps as the reference's resize of the full-size tensor
// (S = 1 keeps it as is). Frames are read with coordinates clamped to their real size, which
// is exactly the edge-replicated padding.
#include "common.glsl"
#include "bilinear.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(constant_id = 0) const int W = 1;  // real frame size
layout(constant_id = 1) const int H = 1;
layout(constant_id = 2) const int FW = 1;  // padded size: the field's
layout(constant_id = 3) const int FH = 1;
layout(constant_id = 4) const int S = 1;  // the block's scale: 4, 2 or 1
layout(constant_id = 5) const bool WITH_T = false;
const int FACTOR = 1;  // for flow.glsl: the field is full resolution

layout(std430, binding = 0) readonly buffer Field { float field[]; };  // [5, FH, FW] f32
layout(std430, binding = 1) readonly buffer Img0 { vec4 img0[]; };
layout(std430, binding = 2) readonly buffer Img1 { vec4 img1[]; };
layout(std430, binding = 3) writeonly buffer Dst { SFLOAT dst[]; };
layout(push_constant) uniform Push { float t; } pc;

#include "flow.glsl"

const int MAX_CI = 18;

// Every input channel at padded pixel (x, y), in the graph's order.
void full_input(int x, int y, out float v[MAX_CI]) {
  int at = min(y, H - 1) * W + min(x, W - 1);
  vec3 p0 = img0[at].xyz, p1 = img1[at].xyz;
  [[unroll]] for (int c = 0; c < 3; ++c) {
    v[c] = p0[c];
    v[3 + c] = p1[c];
  }
  int i = y * FW + x, plane = FW * FH;
  vec4 flow = vec4(field[i], field[plane + i], field[2 * plane + i], field[3 * plane + i]);
  vec3 a = warp0(float(x) + flow.x, float(y) + flow.y);
  vec3 b = warp1(float(x) + flow.z, float(y) + flow.w);
  [[unroll]] for (int c = 0; c < 3; ++c) {
    v[6 + c] = a[c];
    v[9 + c] = b[c];
  }
  int m = 12;
  if (WITH_T) v[m++] = pc.t;
  v[m] = field[4 * plane + i];
  [[unroll]] for (int c = 0; c < 4; ++c) v[m + 1 + c] = flow[c] / float(S);
  v[MAX_CI - 1] = WITH_T ? v[MAX_CI - 1] : 0.0;  // defined even where unused
}

void main() {
  int OW = FW / S, OH = FH / S;
  int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
  if (x >= OW || y >= OH) return;
  float v[MAX_CI];
  if (S == 1) {
    full_input(x, y, v);
  } else {
    float sx = (float(x) + 0.5) * float(S) - 0.5, sy = (float(y) + 0.5) * float(S) - 0.5;
    float fx0 = floor(sx), fy0 = floor(sy);
    float fx = sx - fx0, fy = sy - fy0;
    int xa = clamp(int(fx0), 0, FW - 1), xb = clamp(int(fx0) + 1, 0, FW - 1);
    int ya = clamp(int(fy0), 0, FH - 1), yb = clamp(int(fy0) + 1, 0, FH - 1);
    float p[MAX_CI], q[MAX_CI], top[MAX_CI];
    full_input(xa, ya, p);
    full_input(xb, ya, q);
    [[unroll]] for (int c = 0; c < MAX_CI; ++c) top[c] = lerp(p[c], q[c], fx);
    full_input(xa, yb, p);
    full_input(xb, yb, q);
    [[unroll]] for (int c = 0; c < MAX_CI; ++c) v[c] = lerp(top[c], lerp(p[c], q[c], fx), fy);
  }
  int ci = WITH_T ? 18 : 17, o = y * OW + x, out_plane = OW * OH;
  for (int c = 0; c < ci; ++c) dst[c * out_plane + o] = SFLOAT(v[c]);
}
