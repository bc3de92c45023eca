// The convolutional part of the graph (encoder convs, trunk, FiLM, deconv, refine convs)
// behind one seam, so that the reference loops and oneDNN run the same schedule. An
// implementation keeps its activations in whatever layout suits it; only the inputs and
// outputs of these calls are plain planes.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "backends/cpu/planes.hpp"
#include "framecast/model.hpp"

namespace framecast::cpu {

class ConvNet {
 public:
  virtual ~ConvNet() = default;
  // conv0a + PReLU, conv0b + PReLU on the quarter-resolution input; the result is both the
  // current activation and the trunk residual feat0.
  virtual void encode(const Planes& xq) = 0;
  // Convblocks [first, last) on the current activation; after the eighth, adds feat0.
  virtual void convblocks(int first, int last) = 0;
  // Keep / bring back the current activation (the t-free trunk of tfact models).
  virtual void save_trunk() = 0;
  virtual void restore_trunk() = 0;
  virtual void film(std::span<const float> scale_shift) = 0;
  // lastconv into plain planes [5, H/8, W/8].
  virtual void decode(Planes& tmp8) = 0;
  // A convex model's refinement block: upmask into plain planes [9 f^2, H/8, W/8], the
  // logits of its convex upsampling by f.
  virtual void upmask(Planes& logits) = 0;
  // refine c0..c2, each + PReLU, on [11, H/4, W/4]; plain output [R, H/4, W/4].
  virtual void refine(const Planes& rin, Planes& features) = 0;
};

// One flow block's convolutions: block0 reads the quarter-resolution frames, a refinement
// block its own input at 1/scale of the padded grid.
struct BlockSpec {
  std::string name;                     // tensor prefix: "block0", "block1", ...
  int input_width = 0;                  // the block's input size (multiples of 4)
  int input_height = 0;
  bool refine_head = false;             // tfact2's head rides on block0's net
  bool bf16 = false;                    // activations and weights in bfloat16 (oneDNN only)
};

// oneDNN's bfloat16 convolutions on this CPU: none, AVX512-BF16 dot products (1.3-1.9x faster
// than f32 on a Zen 4 EPYC), or AMX tiles (2.6-3.8x faster than f32 on a Sapphire Rapids Xeon).
enum class CpuBf16 { none, instructions, amx };
CpuBf16 cpu_bf16();

std::unique_ptr<ConvNet> make_reference_net(const Model& model, const BlockSpec& block);
std::unique_ptr<ConvNet> make_dnnl_net(const Model& model, const BlockSpec& block);

}  // namespace framecast::cpu
