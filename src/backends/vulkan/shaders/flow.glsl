// The flow field of the padded grid at a full-resolution pixel: x8 bilinear upsample
// (align_corners=false) of the [5, TH, TW] deconv output, flows scaled by 8, sigmoid(mask);
// and the backward warp of a frame's three planes. Needs bindings tmp8, img0, img1 and the
// constants W, H (real frame size), TW, TH.
#define READ_TMP8(i) tmp8[i]
#define READ_IMG0(i) img0[i]
#define READ_IMG1(i) img1[i]
DEFINE_BILINEAR(tmp8_at, READ_TMP8)
DEFINE_BILINEAR(img0_at, READ_IMG0)
DEFINE_BILINEAR(img1_at, READ_IMG1)

struct Flow {
  vec2 f0, f1;
  float mask;
};

Flow sample_flow(int x, int y) {
  float sx = (float(x) + 0.5) / 8.0 - 0.5, sy = (float(y) + 0.5) / 8.0 - 0.5;
  int plane = TW * TH;
  Flow f;
  f.f0 = vec2(tmp8_at(0, TW, TH, sx, sy), tmp8_at(plane, TW, TH, sx, sy)) * 8.0;
  f.f1 = vec2(tmp8_at(2 * plane, TW, TH, sx, sy), tmp8_at(3 * plane, TW, TH, sx, sy)) * 8.0;
  f.mask = sigmoid(tmp8_at(4 * plane, TW, TH, sx, sy));
  return f;
}

vec3 warp0(float sx, float sy) {
  return vec3(img0_at(0, W, H, sx, sy), img0_at(W * H, W, H, sx, sy), img0_at(2 * W * H, W, H, sx, sy));
}
vec3 warp1(float sx, float sy) {
  return vec3(img1_at(0, W, H, sx, sy), img1_at(W * H, W, H, sx, sy), img1_at(2 * W * H, W, H, sx, sy));
}
