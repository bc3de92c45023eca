// The fast `cpu` path's versions of the full-resolution per-pixel passes of ops_reference.hpp,
// with the same signatures and meaning. They keep the reference's arithmetic (pixel_math.hpp)
// and reorganise the work by rows: a bilinear upsample resamples each source row horizontally
// once and then costs one mix per destination value; a convex upsample weighs edge-padded
// copies of the three source rows around a row in loops along it; a refinement block's input
// is computed only at the pixels its downsample reads; the refine head's last conv runs as
// branch-free row loops. Results equal the reference's up to float rounding
// (tests/core/fast_ops_test.cpp).
#pragma once

#include "backends/cpu/ops_reference.hpp"

namespace framecast::cpu::fast {

void frames_to_planes(const Frame& frame0, const Frame& frame1, Planes& imgs);

void upsample_flow(const Planes& coarse, int width, int height, float factor, Planes& field);
void add_flow_residual(const Planes& coarse, float factor, Planes& field);
void add_convex_residual(const Planes& coarse, const Planes& logits, int factor, Planes& field);
void refinement_input(const Planes& imgs, const Planes& field, bool with_t, float t, int scale,
                      Planes& input);
double warp_disagreement(const FlowField& flow, const Planes& imgs);
void refine_prep(const FlowField& flow, const Planes& imgs, Planes& rin);
void refine_out(const Planes& src, const Model& model, Planes& residual);
void flow_out(const FlowField& flow, const Planes& imgs, const Planes* refine_residual,
              bool static_guard, Frame& out);

}  // namespace framecast::cpu::fast
