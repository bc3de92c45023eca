#version 450
// The large-motion pass's choice, in one workgroup: the partial sums of warp_disagreement.comp
// for block0 at 1/4 (sums[0, N)) and at 1/8 (sums[N, 2N)) added up in a fixed order, and
// choice[0] = 1 where 1/8 agrees better (a tie keeps 1/4). Dispatch {1, 1, 1}.
layout(local_size_x = 256) in;
layout(constant_id = 0) const int N = 1;

layout(std430, binding = 0) readonly buffer Sums { float sums[]; };
layout(std430, binding = 1) writeonly buffer Choice { uint choice[]; };

shared vec2 partial[256];

void main() {
  uint i = gl_LocalInvocationIndex;
  vec2 s = vec2(0.0);
  for (int k = int(i); k < N; k += 256) s += vec2(sums[k], sums[N + k]);
  partial[i] = s;
  barrier();
  for (uint n = 128; n > 0; n >>= 1) {
    if (i < n) partial[i] += partial[i + n];
    barrier();
  }
  if (i == 0) choice[0] = partial[0].y < partial[0].x ? 1u : 0u;
}
