// The graph's layers with the seed's exact semantics, as plain loops over planar f32. They
// are the oracle of every other path; the fast CPU path reuses the cheap ones directly.
//
// Frames keep their real size w x h; the network runs on the padded size W x H (multiples
// of 16). Reading a frame with coordinates clamped to its real border is exactly reading
// the edge-replicated padded frame, so no padded copy of the frames is ever made.
#pragma once

#include <span>
#include <string>

#include "backends/cpu/planes.hpp"
#include "engine/round_up.hpp"
#include "framecast/frame.hpp"
#include "framecast/model.hpp"

namespace framecast::cpu {

enum class Padding { zero, replicate };

// The padded grid's size along a frame dimension of size v: the next multiple of 16.
inline int padded_size(int v) { return round_up(v, 16); }

// Six planes b0 g0 r0 b1 g1 r1 in [0,1] at the frames' real size.
void frames_to_planes(const Frame& frame0, const Frame& frame1, Planes& imgs);

// Block0's input [6 or 7, H/scale, W/scale] of the padded W x H grid: bilinear,
// align_corners=false; the 7th channel (classic models) is the constant t. Scale 4 is the
// seed's quarter resolution, 8 the large-motion pass's.
void prep_quarter(const Planes& imgs, int padded_width, int padded_height, int channels, float t,
                  Planes& xq, int scale = 4);

// conv3x3 with padding 1 (zeros or replicated edges), stride 1 or 2, bias, and PReLU when
// `prelu` is non-null. dst must be sized by the caller: out = (in - 1) / stride + 1.
void conv3x3(const Planes& src, const float* weight, const float* bias, const float* prelu,
             int stride, Padding padding, Planes& dst);

// ConvTranspose2d 4x4, stride 2, padding 1; weight layout [in, out, 4, 4].
void deconv4x4s2(const Planes& src, const float* weight, const float* bias, Planes& dst);

// FiLM MLP of tfact models: 2*C2 values, scales then shifts. `prefix` names the MLP's
// tensors: "film" for block0, "block{k}.film" for a refinement block.
std::vector<float> film_params(const Model& model, const std::string& prefix, float t);
inline std::vector<float> film_params(const Model& model, float t) {
  return film_params(model, "film", t);
}
// x = x * (1 + scale[c]) + shift[c].
void apply_film(Planes& x, std::span<const float> scale_shift);

void add_in_place(Planes& dst, const Planes& src);

// Where the flow-out and refine passes read flows and mask: a coarse [5, h, w] field
// upsampled by `factor` on the fly (block0's deconv output, factor 8: flows scale by 8), or
// a full-resolution field (factor 1) that refinement blocks have accumulated into.
struct FlowField {
  FlowField(const Planes& field_planes, int upsample_factor = 8)  // NOLINT: a tmp8 is a field
      : planes(field_planes), factor(upsample_factor) {}
  const Planes& planes;
  int factor;
};

// Bilinear resampling with align_corners=false and taps clamped to the border, to any size:
// the seed's sampleQ/up/rup for every ratio the graph uses.
void resize_bilinear(const Planes& src, int width, int height, Planes& dst);

// A coarse [5, h, w] block output upsampled by `factor` (source = (dst + 0.5) / factor - 0.5)
// onto width x height, which it may cover beyond (the large-motion pass's 1/8 output), flows
// multiplied by `factor`, mask logits as they are.
void upsample_flow(const Planes& coarse, int width, int height, float factor, Planes& field);
// field += the coarse output upsampled by `factor` onto it: a refinement block's residual.
void add_flow_residual(const Planes& coarse, float factor, Planes& field);
// The same by RAFT's convex upsampling (graph.py's convex_upsample), for convex models: the
// field (factor times the coarse size) gets at (factor * y + ay, factor * x + ax) the 3x3
// neighbourhood of coarse pixel (y, x), edges replicated, weighted by the softmax over its 9
// taps k = ky * 3 + kx of logits[k * factor^2 + ay * factor + ax] ([9 factor^2, h, w]);
// flows multiplied by `factor`, mask logits as they are.
void add_convex_residual(const Planes& coarse, const Planes& logits, int factor, Planes& field);

// A refinement block's input at 1/scale of the padded grid: both frames, both frames warped
// by the field's flows, t (when `with_t`), the mask logits, and the flows divided by scale.
void refinement_input(const Planes& imgs, const Planes& field, bool with_t, float t, int scale,
                      Planes& input);

// How well a flow explains the pair, for the large-motion pass's choice: the sum over the
// frame's real pixels and three channels of |frame0 warped - frame1 warped|, in double.
double warp_disagreement(const FlowField& flow, const Planes& imgs);

// Refine head input [11, H/4, W/4]: warped frames, sigmoid(mask) and flow*(0.25/20), each
// averaged over the centre 2x2 of every 4x4 block.
void refine_prep(const FlowField& flow, const Planes& imgs, Planes& rin);
// Final refine conv (replicated edges) and the residual 2*sigmoid(x)-1, [3, H/4, W/4].
void refine_out(const Planes& src, const Model& model, Planes& residual);

// Upsample the [5, H/8, W/8] flow and mask x8, warp both frames, blend, add the refine
// residual (if any), clamp, apply the static guard (if asked) and round into `out`, a frame
// of the real size at the frames' depth.
void flow_out(const FlowField& flow, const Planes& imgs, const Planes* refine_residual,
              bool static_guard, Frame& out);

}  // namespace framecast::cpu
