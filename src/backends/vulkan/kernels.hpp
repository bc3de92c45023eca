// The catalogue of kernels: for each shader in shaders/, the function that builds its
// pipeline for given sizes (specialization constants), its bindings (in order) and push
// constants. The runtime, the tuner and the kernel tests all build kernels through here.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backends/vulkan/buffers.hpp"
#include "backends/vulkan/context.hpp"
#include "backends/vulkan/pipelines.hpp"
#include "framecast/frame.hpp"

namespace framecast::vulkan {

enum class Storage { f32, f16 };  // activations and trunk weights; arithmetic is always f32
inline std::size_t storage_bytes(Storage s) { return s == Storage::f16 ? 2 : 4; }
inline const char* storage_name(Storage s) { return s == Storage::f16 ? "f16" : "f32"; }
// Host values as a buffer of `storage` holds them (f16 rounds to nearest even), and back.
std::vector<unsigned char> encode_values(std::span<const float> values, Storage storage);
std::vector<float> decode_values(std::span<const unsigned char> bytes, std::size_t count,
                                 Storage storage);

// Bumped whenever a conv kernel changes in a way that makes tuned choices stale.
inline constexpr int kConvKernelVersion = 3;

enum class ConvKind {
  direct,       // 1 pixel x COC channels per thread, input from global memory (any stride)
  tiled,        // 1 pixel x COC channels per thread, 10x10 shared tiles (stride 1)
  rb,           // 2x2 pixels x COC channels per thread, 18x18 shared tiles (stride 1)
  rb_subgroup,  // rb with weights broadcast through the subgroup instead of shared memory
  coop,         // tensor cores through VK_NV_cooperative_matrix (f16 storage, stride 1 or 2)
  coop_global,  // coop reading its weight matrices straight from global memory (L1/L2)
};
// Every kind, for parsers: a kind missing here would make its tuned entries unreadable.
inline constexpr ConvKind kAllConvKinds[] = {ConvKind::direct, ConvKind::tiled, ConvKind::rb,
                                             ConvKind::rb_subgroup, ConvKind::coop,
                                             ConvKind::coop_global};
// Inline, so that the tuning cache's parser (and its fuzz target) needs no kernel code.
inline const char* conv_kind_name(ConvKind kind) {
  switch (kind) {
    case ConvKind::direct: return "direct";
    case ConvKind::tiled: return "tiled";
    case ConvKind::rb: return "rb";
    case ConvKind::rb_subgroup: return "rb-subgroup";
    case ConvKind::coop: return "coop";
    case ConvKind::coop_global: return "coop-global";
  }
  return "?";
}
inline bool cooperative(ConvKind kind) {
  return kind == ConvKind::coop || kind == ConvKind::coop_global;
}

// The knobs of a conv kernel. The coop kind reads them differently: coc = output channels
// per workgroup (a multiple of 16), slab = output rows per subgroup (1 or 2), tile_stride =
// N of its 16 x N x 16 matrices (8 or 16).
struct ConvChoice {
  ConvKind kind = ConvKind::rb;
  int coc = 8;           // output channels per thread
  int slab = 8;          // input channels staged per round
  int tile_stride = 24;  // rb kinds: shared tile row stride in floats (even, >= 18)
  std::string text() const;
  bool operator==(const ConvChoice&) const = default;
};

struct ConvShape {
  int ci = 1, co = 1;
  int in_w = 1, in_h = 1;
  int stride = 1;
  bool prelu = true;
  bool residual = false;
  int out_w() const { return (in_w - 1) / stride + 1; }
  int out_h() const { return (in_h - 1) / stride + 1; }
};

// Shared memory the choice takes, and why the device or the shape cannot run it (empty: ok).
std::size_t conv_shared_bytes(const ConvChoice& choice, int stride = 1);
std::string conv_unfit(const DeviceCaps& caps, const ConvShape& shape, const ConvChoice& choice,
                       Storage storage);
// `wanted` made legal for the shape and device: a coop choice the device, storage or shape
// cannot run falls back to `rb`; stride 2 otherwise runs `direct`; a width that is not a
// multiple of 4 leaves the register-blocked kinds for `tiled`; COC drops to a divisor of CO.
ConvChoice fit_conv(const DeviceCaps& caps, const ConvShape& shape, ConvChoice wanted,
                    Storage storage);

// For convs the tuner does not time (the encoder's stride-2 convs, the refine head): tensor
// cores where the device has them and the output channels come in blocks of 16, at the first
// block in `blocks` (by default the widest) that divides them, else `otherwise`.
ConvChoice coop_conv_or(const DeviceCaps& caps, Storage storage, const ConvShape& shape,
                        const ConvChoice& otherwise,
                        std::initializer_list<int> blocks = {80, 64, 48, 32, 16});

// Bindings: src, packed weights (storage type), bias (f32), PReLU slopes (f32), dst, residual
// (bind dst again when the shape has none). Dispatch conv_elements(shape).
std::unique_ptr<Pipeline> make_conv(std::shared_ptr<const Context> context, Storage storage,
                                    const ConvShape& shape, const ConvChoice& choice);
Extent3 conv_elements(const ConvShape& shape);
// [CO, CI, 3, 3] -> [CO / coc][CI][9][coc]: each block's weight slab becomes contiguous.
std::vector<float> pack_conv_weights(std::span<const float> weights, int co, int ci, int coc);
// [CO, CI, 3, 3] -> [9][CO / 16][CIP / 16][16][16]: each tap's weights as contiguous row-major
// 16 x 16 matrices (output x input channels), CIP being CI rounded up to a multiple of 16 (the
// extra columns zero). CO must be a multiple of 16.
std::vector<float> pack_conv_weights_by_tap(std::span<const float> weights, int co, int ci);
// A ConvTranspose2d 4x4, stride 2, padding 1 [CI, CO, 4, 4] as the 3x3 conv (stride 1,
// padding 1) [4 CO, CI, 3, 3] that gives each output parity its own channels: output
// (2 Y + r, 2 X + s) of deconv channel c is channel 4 c + 2 r + s at (Y, X). Each parity
// takes 2 x 2 of the 3 x 3 taps; the others are zero. The bias goes to all four channels.
// Convex upmasks (9 f^2 outputs) run this way on the conv kernels, tensor cores included.
std::vector<float> deconv_as_parity_conv(std::span<const float> weights, int ci, int co);
std::vector<float> parity_conv_bias(std::span<const float> bias);
// The layout `choice`'s kernel reads.
std::vector<float> pack_conv_weights(std::span<const float> weights, const ConvShape& shape,
                                     const ConvChoice& choice);

// Bindings: frame0, frame1 (packed RGB words), img0, img1 (the frames' images: f32
// (b, g, r, 0) per pixel, [h, w, 4]).
// dispatch_linear(w * h, 2 layers).
std::unique_ptr<Pipeline> make_prep_full(std::shared_ptr<const Context> context, int w, int h,
                                         bool deep);
// Block0's input at 1 / `scale` (4, or 8 for the large-motion pass) of the padded grid.
// Bindings: img0, img1, xq [channels, qh, qw]. Push PrepQuarterPush. Dispatch {qw, qh, 1}.
struct PrepQuarterPush {
  float t;
};
std::unique_ptr<Pipeline> make_prep_quarter(std::shared_ptr<const Context> context,
                                            Storage storage, int w, int h, int qw, int qh,
                                            int channels, int scale = 4);
// Bindings: src [ci, in_h, in_w], weights f32 [ci, co, 4, 4], bias f32, dst f32
// [co, 2 in_h, 2 in_w]. Dispatch deconv_elements: a thread group per input pixel and block of
// output channels (one block for a flow block's 5; wider outputs come in several).
std::unique_ptr<Pipeline> make_deconv(std::shared_ptr<const Context> context, Storage storage,
                                      int ci, int co, int in_w, int in_h);
Extent3 deconv_elements(int co, int in_w, int in_h);
// Bindings: src, params f32 [slots][2c], dst. Push FilmPush. dispatch_linear(c * n).
struct FilmPush {
  std::int32_t slot;
};
std::unique_ptr<Pipeline> make_film(std::shared_ptr<const Context> context, Storage storage, int c,
                                    int n);
// The flow field that refine_prep and flow_out read is [5, fh, fw] f32 at 1 / `factor` of the
// padded size: block0's deconv output (factor 8) or the full-resolution field of models with
// refinement blocks (factor 1).
// Bindings: field, img0, img1, rin [11, padded h / 4, padded w / 4].
// Dispatch {padded w / 4, padded h / 4, 1}.
std::unique_ptr<Pipeline> make_refine_prep(std::shared_ptr<const Context> context,
                                           Storage storage, int w, int h, int fw, int fh,
                                           int factor);
// Bindings: src [c, qh, qw], weights f32 [3, c, 3, 3], bias f32, dst f32 [3, qh, qw].
// Dispatch {qw, qh, 1}.
std::unique_ptr<Pipeline> make_refine_out(std::shared_ptr<const Context> context,
                                          Storage storage, int c, int qw, int qh);
// Bindings: field (as for refine_prep), img0, img1, residual f32 [3, padded h / 4, padded
// w / 4] (the field again when none), out (packed RGB words).
// dispatch_linear(flow_out_threads(w, h, deep)).
std::unique_ptr<Pipeline> make_flow_out(std::shared_ptr<const Context> context, int w, int h,
                                        int fw, int fh, int factor, bool residual, bool guard,
                                        bool deep);
std::uint64_t flow_out_threads(int w, int h, bool deep);

// A refinement block's input at 1 / `scale` of the padded pw x ph grid (see block_input.comp).
// Bindings: field f32 [5, ph, pw], img0, img1, dst [17, or 18 `with_t`, ph / scale, pw /
// scale]. Push BlockInputPush. Dispatch {pw / scale, ph / scale, 1}.
struct BlockInputPush {
  float t;
};
std::unique_ptr<Pipeline> make_block_input(std::shared_ptr<const Context> context,
                                           Storage storage, int w, int h, int pw, int ph,
                                           int scale, bool with_t);
// A block's coarse output upsampled by `factor` (2 x its scale) into the full-resolution flow
// field: written, or added when `accumulate`; bilinearly, or when `convex` by RAFT's convex
// upsampling under the block's upmask logits (ops_reference's add_convex_residual).
// Bindings: coarse f32 [5, ph / factor, pw / factor], field f32 [5, ph, pw], logits in
// `storage` as the upmask's parity conv writes them (deconv_as_parity_conv) (bind coarse again
// when not `convex`). Dispatch {pw, ph, 1}.
std::unique_ptr<Pipeline> make_flow_accumulate(std::shared_ptr<const Context> context,
                                               Storage storage, int pw, int ph, int factor,
                                               bool accumulate, bool convex = false);

// The large-motion pass (large_motion.hpp). warp_disagreement: one block0 output [5, fh, fw]
// upsampled by `factor`; one partial sum per 16x16 pixels of the w x h frame, at
// sums[offset + group]. Bindings: coarse, img0, img1, sums f32. Dispatch {w, h, 1}.
std::unique_ptr<Pipeline> make_warp_disagreement(std::shared_ptr<const Context> context, int w,
                                                 int h, int fw, int fh, int factor, int offset);
std::uint32_t warp_disagreement_groups(int w, int h);
// scale_choice: choice[0] = 1 where sums[n, 2n) add up to less than sums[0, n).
// Bindings: sums, choice u32. Dispatch {1, 1, 1}.
std::unique_ptr<Pipeline> make_scale_choice(std::shared_ptr<const Context> context, int n);
// flow_choose: the chosen output (x factor from coarse4 [5, ph / factor, pw / factor], or
// x 2 factor from coarse8 [5, ch8, cw8], which may cover more than the grid) into the field;
// factor 8, or 4 for a convex block0's outputs.
// Bindings: coarse4, coarse8, choice, field f32 [5, ph, pw]. Dispatch {pw, ph, 1}.
std::unique_ptr<Pipeline> make_flow_choose(std::shared_ptr<const Context> context, int pw,
                                           int ph, int cw8, int ch8, int factor);

// Bytes of a packed interleaved RGB frame (rows without padding), rounded up to whole words.
std::size_t packed_frame_bytes(int w, int h, bool deep);
// Where the second frame of a pair starts in an upload buffer that holds both (room for 16
// bits, aligned for the copies); such a buffer is twice this.
std::size_t packed_pair_offset(int w, int h);
// A frame's samples into `upload` at `offset`.
void write_packed_frame(Buffer& upload, const Frame& frame, std::size_t offset);
// Both frames' samples into `upload`, at 0 and at packed_pair_offset.
void write_packed_pair(Buffer& upload, const Frame& frame0, const Frame& frame1);
// A w x h frame of the given depth from the packed samples that `readback` holds.
Frame read_packed_frame(const Buffer& readback, int w, int h, bool deep);

// The test-time ensemble's kernels over packed frames; dispatch_linear(packed_frame_bytes / 4).
// Bindings: src, dst: dst is src turned by 180 degrees.
std::unique_ptr<Pipeline> make_turn(std::shared_ptr<const Context> context, int w, int h,
                                    bool deep);
// Bindings: the passes' frames (4; for 2 passes bind the first two again), dst: their mean,
// rounded to nearest, with pass p's frame turned back where bit p of `turned` is set.
std::unique_ptr<Pipeline> make_ensemble_average(std::shared_ptr<const Context> context, int w,
                                                int h, bool deep, int passes, int turned);

}  // namespace framecast::vulkan
