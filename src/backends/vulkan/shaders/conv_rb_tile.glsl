// The input side of the register-blocked kernels: a workgroup of 8x8 threads computes a
// 16x16 output tile, each thread a 2x2 patch, so it reads a 4x4 window per input channel.
// Tiles of 18x18 (halo included) are stored as vec2 pairs with a row stride of TS floats:
// a thread's window is 8 vec2 reads, and a TS that puts the rows of neighbouring threads in
// different banks (24 on 32-bank hardware) avoids conflicts. TS is a tuning knob.
const int TROW = TS / 2;        // vec2 per tile row
const int TPLANE = 18 * TROW;   // vec2 per input channel
shared vec2 tile[SLAB * TPLANE];

// Stages input channels [s, s + sl) of the tile whose output origin is (ox0, oy0).
void load_tile(int s, int sl, int ox0, int oy0, int li) {
  for (int i = li; i < sl * 18 * 9; i += 64) {
    int ci = i / (18 * 9), r = i - ci * (18 * 9);
    int row = r / 9, pair = r - row * 9;
    int ty = oy0 + row - 1, tx = ox0 + pair * 2 - 1;
    int plane = (s + ci) * IH * IW + ty * IW;
    bool row_inside = ty >= 0 && ty < IH;
    float a = row_inside && tx >= 0 && tx < IW ? float(src[plane + tx]) : 0.0;
    float b = row_inside && tx + 1 < IW ? float(src[plane + tx + 1]) : 0.0;
    tile[ci * TPLANE + row * TROW + pair] = vec2(a, b);
  }
}

// The thread's 4x4 window of input channel ci (rows, columns).
void read_window(int ci, int lx, int ly, out float win[4][4]) {
  int tb = ci * TPLANE + (ly * 2) * TROW + lx;
  [[unroll]] for (int r = 0; r < 4; ++r) {
    vec2 a = tile[tb + r * TROW], b = tile[tb + r * TROW + 1];
    win[r][0] = a.x;
    win[r][1] = a.y;
    win[r][2] = b.x;
    win[r][3] = b.y;
  }
}

// The 2x2 patch of one vec4 of output channels: pixel p = (p & 1, p >> 1).
void store_patch(int co4, int x0, int y0, vec4 acc[4]) {
  [[unroll]] for (int p = 0; p < 4; ++p) {
    int x = x0 + (p & 1), y = y0 + (p >> 1);
    if (x < OW && y < OH) {
      [[unroll]] for (int j = 0; j < 4; ++j) store_output(co4 + j, x, y, acc[p][j]);
    }
  }
}
