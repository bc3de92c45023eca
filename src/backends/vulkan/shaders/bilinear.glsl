// Bilinear reads with taps clamped to a plane's border: the seed's up(), sampleQ() and
// warp3() alike. GLSL cannot pass buffers to functions, so DEFINE_BILINEAR(NAME, READ) writes
// one function per buffer; READ(i) is a macro reading element i of that buffer as float
// (DEFINE_BILINEAR_RGB: as the vec3 of an image's pixel i).
#define DEFINE_BILINEAR(NAME, READ) DEFINE_BILINEAR_OF(float, NAME, READ)
#define DEFINE_BILINEAR_RGB(NAME, READ) DEFINE_BILINEAR_OF(vec3, NAME, READ)
#define DEFINE_BILINEAR_OF(T, NAME, READ)                                            \
  T NAME(int base, int width, int height, float sx, float sy) {                     \
    float fx0 = floor(sx), fy0 = floor(sy);                                          \
    int x0 = int(fx0), y0 = int(fy0);                                                \
    float fx = sx - fx0, fy = sy - fy0;                                              \
    int xa = clamp(x0, 0, width - 1), xb = clamp(x0 + 1, 0, width - 1);              \
    int ya = clamp(y0, 0, height - 1), yb = clamp(y0 + 1, 0, height - 1);            \
    T v00 = READ(base + ya * width + xa), v01 = READ(base + ya * width + xb);        \
    T v10 = READ(base + yb * width + xa), v11 = READ(base + yb * width + xb);        \
    return lerp(lerp(v00, v01, fx), lerp(v10, v11, fx), fy);                         \
  }
