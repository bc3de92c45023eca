// Shared by every kernel: the storage type of activations (SFLOAT: f32, or f16 when compiled
// with STORAGE_F16=1) and the arithmetic type (AFLOAT, f32 in every variant built), after
// ncnn's sfp/afp split. Activations are loaded as SFLOAT and widened at once, so all sums run
// in AFLOAT; only the final store rounds to the storage type.
#extension GL_EXT_control_flow_attributes : enable
#if STORAGE_F16
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#define SFLOAT float16_t
#else
#define SFLOAT float
#endif
#define AFLOAT ARITH_T

// The seed's mix(), written out so that every backend rounds it the same way.
float lerp(float a, float b, float f) { return a * (1.0 - f) + b * f; }
vec3 lerp(vec3 a, vec3 b, float f) { return a * (1.0 - f) + b * f; }

float sigmoid(float x) { return 1.0 / (1.0 + exp(-x)); }

// Softmax in place as the CPU's pixel::softmax9 and PyTorch compute it: exp(x - max), divided
// by the sum of those, so that large logits cannot overflow.
void softmax9(inout float x[9]) {
  float m = x[0];
  [[unroll]] for (int k = 1; k < 9; ++k) m = max(m, x[k]);
  float sum = 0.0;
  [[unroll]] for (int k = 0; k < 9; ++k) {
    x[k] = exp(x[k] - m);
    sum += x[k];
  }
  [[unroll]] for (int k = 0; k < 9; ++k) x[k] /= sum;
}
