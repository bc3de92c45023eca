// Packed interleaved RGB frames (Frame's samples as uploaded: 1 or 2 little-endian bytes per
// sample, four or two to a 32-bit word, rows without padding). Needs the spec constant DEEP.
const int SAMPLES_PER_WORD = DEEP ? 2 : 4;
const int SAMPLE_BITS = DEEP ? 16 : 8;
const uint SAMPLE_MASK = DEEP ? 0xffffu : 0xffu;

uint sample_in(uint word, int i) {
  return (word >> ((i % SAMPLES_PER_WORD) * SAMPLE_BITS)) & SAMPLE_MASK;
}

// Sample i of a W x H frame turned by 180 degrees: turning reverses the order of the pixels.
int turned_sample(int i, int pixels) {
  return (pixels - 1 - i / 3) * 3 + i % 3;
}
