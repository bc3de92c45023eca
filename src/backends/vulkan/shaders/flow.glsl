// The flow field of the padded grid at a full-resolution pixel, and the backward warp of a
// frame's image (prep_full.comp). The field [5, FH, FW] is either block0's deconv output (FACTOR 8:
// upsampled x8, bilinear with align_corners=false, flows scaled by 8) or the full-resolution
// field that refinement blocks accumulate into (FACTOR 1: read as is); the mask logits go
// through the sigmoid. Needs bindings field, img0, img1 and the constants W, H (real frame
// size), FW, FH and FACTOR.
#define READ_FIELD(i) field[i]
#define READ_IMG0(i) img0[i].xyz
#define READ_IMG1(i) img1[i].xyz
DEFINE_BILINEAR(field_at, READ_FIELD)
DEFINE_BILINEAR_RGB(img0_at, READ_IMG0)
DEFINE_BILINEAR_RGB(img1_at, READ_IMG1)

struct Flow {
  vec2 f0, f1;
  float mask;
};

Flow sample_flow(int x, int y) {
  int plane = FW * FH;
  Flow f;
  if (FACTOR == 1) {
    int i = y * FW + x;
    f.f0 = vec2(field[i], field[plane + i]);
    f.f1 = vec2(field[2 * plane + i], field[3 * plane + i]);
    f.mask = sigmoid(field[4 * plane + i]);
    return f;
  }
  float scale = float(FACTOR);
  float sx = (float(x) + 0.5) / scale - 0.5, sy = (float(y) + 0.5) / scale - 0.5;
  f.f0 = vec2(field_at(0, FW, FH, sx, sy), field_at(plane, FW, FH, sx, sy)) * scale;
  f.f1 = vec2(field_at(2 * plane, FW, FH, sx, sy), field_at(3 * plane, FW, FH, sx, sy)) * scale;
  f.mask = sigmoid(field_at(4 * plane, FW, FH, sx, sy));
  return f;
}

vec3 warp0(float sx, float sy) { return img0_at(0, W, H, sx, sy); }
vec3 warp1(float sx, float sy) { return img1_at(0, W, H, sx, sy); }
