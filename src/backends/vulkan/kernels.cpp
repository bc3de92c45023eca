#include "backends/vulkan/kernels.hpp"

#include <cstring>
#include <stdexcept>

#include "engine/half.hpp"
#include "engine/round_up.hpp"
#include "framecast/error.hpp"

namespace framecast::vulkan {
namespace {

std::string module(const char* kernel, Storage storage) {
  return std::string(kernel) + "_" + storage_name(storage);
}

int largest_divisor(int n, std::initializer_list<int> candidates) {
  for (int c : candidates)
    if (n % c == 0) return c;
  return 1;
}

bool register_blocked(ConvKind kind) { return kind == ConvKind::rb || kind == ConvKind::rb_subgroup; }

// The coop kernel's input tile: (4 slab - 1) stride + 3 rows of 15 stride + 3 pixels, each
// 24 halves.
std::size_t coop_tile_bytes(const ConvChoice& c, int stride) {
  return std::size_t((4 * c.slab - 1) * stride + 3) * (15 * stride + 3) * 24 * 2;
}

}  // namespace

std::string ConvChoice::text() const {
  if (cooperative(kind))
    return std::string(conv_kind_name(kind)) + " co" + std::to_string(coc) + " rows" +
           std::to_string(slab) + " n" + std::to_string(tile_stride);
  std::string s = std::string(conv_kind_name(kind)) + " coc" + std::to_string(coc) + " slab" +
                  std::to_string(slab);
  if (register_blocked(kind)) s += " ts" + std::to_string(tile_stride);
  return s;
}

std::size_t conv_shared_bytes(const ConvChoice& c, int stride) {
  const std::size_t weights = std::size_t(c.slab) * 9 * c.coc * 4;
  switch (c.kind) {
    case ConvKind::direct: return weights;
    case ConvKind::tiled: return weights + std::size_t(c.slab) * 100 * 4;
    case ConvKind::rb: return weights + std::size_t(c.slab) * 18 * c.tile_stride * 4;
    case ConvKind::rb_subgroup: return std::size_t(c.slab) * 18 * c.tile_stride * 4;
    case ConvKind::coop:  // input tile, weight chunk (f16, pitch 24), f32 epilogue staging
      return coop_tile_bytes(c, stride) + std::size_t(9) * c.coc * 24 * 2 + 4096;
    case ConvKind::coop_global:
      return coop_tile_bytes(c, stride) + 4096;
  }
  return 0;
}

std::string conv_unfit(const DeviceCaps& caps, const ConvShape& shape, const ConvChoice& c,
                       Storage storage) {
  if (cooperative(c.kind)) {
    if (storage != Storage::f16) return "the coop kernel needs f16 storage";
    if (!caps.coop()) return "the device has no usable VK_NV_cooperative_matrix";
    if (caps.subgroup_size != 32) return "the coop kernel is written for subgroups of 32";
    if ((c.tile_stride == 16 && !caps.coop_n16) || (c.tile_stride == 8 && !caps.coop_n8) ||
        (c.tile_stride != 8 && c.tile_stride != 16))
      return "the device has no 16x" + std::to_string(c.tile_stride) + "x16 matrices";
    if (shape.stride != 1 && shape.stride != 2) return "the coop kernel has stride 1 or 2";
    if (c.coc < 16 || c.coc % 16 || shape.co % c.coc)
      return "the coop kernel needs channel blocks of 16 that divide the output width";
    if (c.slab != 1 && c.slab != 2) return "the coop kernel runs 1 or 2 rows per subgroup";
    if (conv_shared_bytes(c, shape.stride) > caps.max_shared_memory)
      return "too much shared memory";
    return {};
  }
  if (c.coc < 1 || shape.co % c.coc) return "COC must divide the output width";
  if (c.slab < 1) return "slab must be positive";
  if (shape.stride != 1 && c.kind != ConvKind::direct) return "only the direct kernel strides";
  if (register_blocked(c.kind)) {
    if (c.coc % 4) return "register-blocked kernels need COC a multiple of 4";
    if (c.tile_stride < 18 || c.tile_stride % 2) return "tile stride must be even and >= 18";
  }
  if (c.kind == ConvKind::rb_subgroup && !caps.subgroup_broadcast)
    return "the device has no subgroup broadcast in compute shaders";
  if (conv_shared_bytes(c) > caps.max_shared_memory)
    return std::to_string(conv_shared_bytes(c)) + " bytes of shared memory exceed the device's " +
           std::to_string(caps.max_shared_memory);
  return {};
}

ConvChoice fit_conv(const DeviceCaps& caps, const ConvShape& shape, ConvChoice wanted,
                    Storage storage) {
  ConvChoice c = wanted;
  if (cooperative(c.kind)) {
    if (conv_unfit(caps, shape, c, storage).empty()) return c;
    c = {ConvKind::rb, 8, 8, 24};
  }
  if (shape.stride != 1) {
    c.kind = ConvKind::direct;
  } else if (register_blocked(c.kind) && (shape.co % 4 || shape.co % c.coc)) {
    c.kind = shape.co % 4 ? ConvKind::tiled : c.kind;
  }
  if (register_blocked(c.kind)) {
    if (shape.co % c.coc) c.coc = 4;
  } else {
    c.coc = largest_divisor(shape.co, {std::min(c.coc, 8), 4, 2, 1});
  }
  c.slab = std::max(1, std::min(c.slab, shape.ci));
  if (c.kind == ConvKind::rb_subgroup && !caps.subgroup_broadcast) c.kind = ConvKind::rb;
  while (c.slab > 1 && conv_shared_bytes(c) > caps.max_shared_memory) c.slab /= 2;
  if (auto why = conv_unfit(caps, shape, c, storage); !why.empty())
    throw Error(ErrorKind::unsupported, "no conv kernel fits this device: " + why);
  return c;
}

ConvChoice coop_conv_or(const DeviceCaps& caps, Storage storage, const ConvShape& shape,
                        const ConvChoice& otherwise, std::initializer_list<int> blocks) {
  for (int coc : blocks) {
    const ConvChoice coop{ConvKind::coop_global, coc, 1, 16};
    if (conv_unfit(caps, shape, coop, storage).empty()) return coop;  // also: coc divides co
  }
  return otherwise;
}

std::unique_ptr<Pipeline> make_conv(std::shared_ptr<const Context> context, Storage storage,
                                    const ConvShape& s, const ConvChoice& c) {
  if (auto why = conv_unfit(context->caps(), s, c, storage); !why.empty())
    throw Error(ErrorKind::internal, "conv " + c.text() + ": " + why);
  const char* kernel = "conv3x3_direct";
  Extent3 per_group{8, 8, std::uint32_t(c.coc)};
  switch (c.kind) {
    case ConvKind::direct: break;
    case ConvKind::tiled: kernel = "conv3x3_tiled"; break;
    case ConvKind::rb:
      kernel = "conv3x3_rb";
      per_group = {16, 16, std::uint32_t(c.coc)};
      break;
    case ConvKind::rb_subgroup:
      kernel = "conv3x3_rb_sg";
      per_group = {16, 16, std::uint32_t(c.coc)};
      break;
    case ConvKind::coop:
    case ConvKind::coop_global:
      kernel = "conv3x3_coop";
      per_group = {16, std::uint32_t(4 * c.slab), std::uint32_t(c.coc)};
      break;
  }
  SpecConstants k;
  k.add(s.ci).add(s.co).add(s.in_w).add(s.in_h).add(s.out_w()).add(s.out_h()).add(s.stride);
  k.add(c.coc).add(c.slab).add(s.residual).add(s.prelu).add(c.tile_stride);
  k.add(c.kind == ConvKind::coop_global);  // 12: the coop kernel's weights from global memory
  return std::make_unique<Pipeline>(std::move(context), module(kernel, storage), 6, 0, k, per_group);
}

Extent3 conv_elements(const ConvShape& s) {
  return {std::uint32_t(s.out_w()), std::uint32_t(s.out_h()), std::uint32_t(s.co)};
}

std::vector<float> pack_conv_weights(std::span<const float> w, int co, int ci, int coc) {
  std::vector<float> packed(w.size());
  for (int o = 0; o < co; ++o)
    for (int i = 0; i < ci; ++i)
      for (int k = 0; k < 9; ++k)
        packed[((std::size_t(o / coc) * ci + i) * 9 + k) * coc + o % coc] =
            w[(std::size_t(o) * ci + i) * 9 + k];
  return packed;
}

std::vector<float> pack_conv_weights_by_tap(std::span<const float> w, int co, int ci) {
  if (co % 16 != 0) throw std::invalid_argument("tap-packed conv weights need CO % 16 == 0");
  const int cip = round_up(ci, 16);
  std::vector<float> packed(std::size_t(9) * co * cip, 0.0f);
  for (int o = 0; o < co; ++o)
    for (int i = 0; i < ci; ++i)
      for (int k = 0; k < 9; ++k) {
        const std::size_t matrix = (std::size_t(k) * (co / 16) + o / 16) * (cip / 16) + i / 16;
        packed[matrix * 256 + (o % 16) * 16 + i % 16] = w[(std::size_t(o) * ci + i) * 9 + k];
      }
  return packed;
}

std::vector<float> deconv_as_parity_conv(std::span<const float> w, int ci, int co) {
  std::vector<float> conv(std::size_t(4) * co * ci * 9, 0.0f);
  // Kernel row ky serves output rows of parity r = (ky + 1) % 2 from input row Y - 1 + dy,
  // dy = 1 + r - ky / 2 (deconv.comp's indexing); likewise the columns.
  for (int i = 0; i < ci; ++i)
    for (int c = 0; c < co; ++c)
      for (int ky = 0; ky < 4; ++ky)
        for (int kx = 0; kx < 4; ++kx) {
          const int r = (ky + 1) & 1, dy = 1 + r - (ky >> 1);
          const int s = (kx + 1) & 1, dx = 1 + s - (kx >> 1);
          const int o = 4 * c + 2 * r + s;
          conv[((std::size_t(o) * ci + i) * 3 + dy) * 3 + dx] =
              w[((std::size_t(i) * co + c) * 4 + ky) * 4 + kx];
        }
  return conv;
}

std::vector<float> parity_conv_bias(std::span<const float> bias) {
  std::vector<float> out;
  out.reserve(bias.size() * 4);
  for (float b : bias) out.insert(out.end(), 4, b);
  return out;
}

std::vector<float> pack_conv_weights(std::span<const float> weights, const ConvShape& shape,
                                     const ConvChoice& choice) {
  return cooperative(choice.kind)
             ? pack_conv_weights_by_tap(weights, shape.co, shape.ci)
             : pack_conv_weights(weights, shape.co, shape.ci, choice.coc);
}

std::unique_ptr<Pipeline> make_prep_full(std::shared_ptr<const Context> context, int w, int h,
                                         bool deep) {
  SpecConstants k;
  k.add(w).add(h).add(deep).add(1.0f / (deep ? 65535.0f : 255.0f));
  return std::make_unique<Pipeline>(std::move(context), "prep_full_f32", 4, 0, k,
                                    Extent3{256, 1, 1});
}

std::unique_ptr<Pipeline> make_prep_quarter(std::shared_ptr<const Context> context,
                                            Storage storage, int w, int h, int qw, int qh,
                                            int channels, int scale) {
  SpecConstants k;
  k.add(w).add(h).add(qw).add(qh).add(channels).add(scale);
  return std::make_unique<Pipeline>(std::move(context), module("prep_quarter", storage), 3,
                                    sizeof(PrepQuarterPush), k, Extent3{8, 8, 1});
}

namespace {

// Output channels per deconv workgroup: all of a flow block's 5; of wider outputs a divisor
// up to 12, which keeps 48 sums per thread and 6 KiB of shared memory per slice.
int deconv_channel_block(int co) {
  return co <= 12 ? co : largest_divisor(co, {12, 9, 8, 6, 5, 4, 3, 2});
}

}  // namespace

std::unique_ptr<Pipeline> make_deconv(std::shared_ptr<const Context> context, Storage storage,
                                      int ci, int co, int in_w, int in_h) {
  const int cob = deconv_channel_block(co);
  const std::int64_t groups_z = co / cob;
  // Threads per input pixel: enough for about 64k threads in all, at most 8 (20 KiB of shared
  // partial sums for 5 channels), at most one per input channel, and within shared memory.
  const auto shared = [&](int split) { return std::size_t(split) * cob * 8 * 16 * 4; };
  int split = 1;
  while (split < 8 && split * 2 <= ci && std::int64_t(in_w) * in_h * groups_z * split < 65536 &&
         shared(split * 2) <= context->caps().max_shared_memory)
    split *= 2;
  if (shared(split) > context->caps().max_shared_memory)
    throw Error(ErrorKind::unsupported, "the deconv kernel needs " +
                                            std::to_string(shared(split)) +
                                            " bytes of shared memory, more than the device has");
  SpecConstants k;
  k.add(ci).add(co).add(in_w).add(in_h).add(split).add(cob);
  return std::make_unique<Pipeline>(std::move(context), module("deconv", storage), 4, 0, k,
                                    Extent3{8, 4, std::uint32_t(cob)});
}

Extent3 deconv_elements(int co, int in_w, int in_h) {
  return {std::uint32_t(in_w), std::uint32_t(in_h), std::uint32_t(co)};
}

std::unique_ptr<Pipeline> make_film(std::shared_ptr<const Context> context, Storage storage, int c,
                                    int n) {
  SpecConstants k;
  k.add(c).add(n);
  return std::make_unique<Pipeline>(std::move(context), module("film", storage), 3,
                                    sizeof(FilmPush), k, Extent3{256, 1, 1});
}

std::unique_ptr<Pipeline> make_refine_prep(std::shared_ptr<const Context> context,
                                           Storage storage, int w, int h, int fw, int fh,
                                           int factor) {
  SpecConstants k;
  k.add(w).add(h).add(fw).add(fh).add(factor);
  return std::make_unique<Pipeline>(std::move(context), module("refine_prep", storage), 4, 0, k,
                                    Extent3{8, 8, 1});
}

std::unique_ptr<Pipeline> make_refine_out(std::shared_ptr<const Context> context,
                                          Storage storage, int c, int qw, int qh) {
  SpecConstants k;
  k.add(c).add(qw).add(qh);
  return std::make_unique<Pipeline>(std::move(context), module("refine_out", storage), 4, 0, k,
                                    Extent3{8, 8, 1});
}

std::unique_ptr<Pipeline> make_flow_out(std::shared_ptr<const Context> context, int w, int h,
                                        int fw, int fh, int factor, bool residual, bool guard,
                                        bool deep) {
  SpecConstants k;
  k.add(w).add(h).add(fw).add(fh).add(residual).add(guard).add(deep);
  k.add(deep ? 65535.0f : 255.0f).add(factor);
  return std::make_unique<Pipeline>(std::move(context), "flow_out_f32", 5, 0, k,
                                    Extent3{64, 1, 1});
}

std::uint64_t flow_out_threads(int w, int h, bool deep) {
  const std::uint64_t pixels = std::uint64_t(w) * std::uint64_t(h);
  const std::uint64_t per_thread = deep ? 2 : 4;
  return (pixels + per_thread - 1) / per_thread;
}

std::unique_ptr<Pipeline> make_block_input(std::shared_ptr<const Context> context,
                                           Storage storage, int w, int h, int pw, int ph,
                                           int scale, bool with_t) {
  SpecConstants k;
  k.add(w).add(h).add(pw).add(ph).add(scale).add(with_t);
  return std::make_unique<Pipeline>(std::move(context), module("block_input", storage), 4,
                                    sizeof(BlockInputPush), k, Extent3{8, 8, 1});
}

std::unique_ptr<Pipeline> make_warp_disagreement(std::shared_ptr<const Context> context, int w,
                                                 int h, int fw, int fh, int factor, int offset) {
  SpecConstants k;
  k.add(w).add(h).add(fw).add(fh).add(factor).add(offset);
  return std::make_unique<Pipeline>(std::move(context), "warp_disagreement_f32", 4, 0, k,
                                    Extent3{16, 16, 1});
}

std::uint32_t warp_disagreement_groups(int w, int h) {
  return std::uint32_t((w + 15) / 16) * std::uint32_t((h + 15) / 16);
}

std::unique_ptr<Pipeline> make_scale_choice(std::shared_ptr<const Context> context, int n) {
  SpecConstants k;
  k.add(n);
  return std::make_unique<Pipeline>(std::move(context), "scale_choice_f32", 2, 0, k,
                                    Extent3{1, 1, 1});
}

std::unique_ptr<Pipeline> make_flow_choose(std::shared_ptr<const Context> context, int pw,
                                           int ph, int cw8, int ch8, int factor) {
  SpecConstants k;
  k.add(pw).add(ph).add(cw8).add(ch8).add(factor);
  return std::make_unique<Pipeline>(std::move(context), "flow_choose_f32", 4, 0, k,
                                    Extent3{8, 8, 1});
}

std::unique_ptr<Pipeline> make_flow_accumulate(std::shared_ptr<const Context> context,
                                               Storage storage, int pw, int ph, int factor,
                                               bool accumulate, bool convex) {
  // Convex: a 32x2 group of invocations covers 64x4 pixels (each invocation 2x2, the shader's
  // main), so the dispatch is {pw, ph} either way.
  const Extent3 local = convex ? Extent3{32, 2, 1} : Extent3{8, 8, 1};
  SpecConstants k;
  k.add(pw).add(ph).add(factor).add(accumulate).add(convex).add(int(local.x)).add(int(local.y));
  const Extent3 per_group = convex ? Extent3{2 * local.x, 2 * local.y, 1} : local;
  return std::make_unique<Pipeline>(std::move(context), module("flow_accumulate", storage), 3,
                                    0, k, per_group);
}

std::size_t packed_frame_bytes(int w, int h, bool deep) {
  const std::size_t bytes = std::size_t(w) * std::size_t(h) * 3 * (deep ? 2 : 1);
  return (bytes + 3) / 4 * 4;
}

std::size_t packed_pair_offset(int w, int h) {
  const std::size_t bytes = packed_frame_bytes(w, h, true);
  return (bytes + 255) / 256 * 256;
}

void write_packed_frame(Buffer& upload, const Frame& frame, std::size_t offset) {
  if (frame.depth() == SampleDepth::u16) {
    upload.write(frame.rgb16().data(), frame.rgb16().size_bytes(), offset);
  } else {
    upload.write(frame.rgb8().data(), frame.rgb8().size_bytes(), offset);
  }
}

void write_packed_pair(Buffer& upload, const Frame& frame0, const Frame& frame1) {
  write_packed_frame(upload, frame0, 0);
  write_packed_frame(upload, frame1, packed_pair_offset(frame0.width(), frame0.height()));
}

Frame read_packed_frame(const Buffer& readback, int w, int h, bool deep) {
  Frame frame(w, h, deep ? SampleDepth::u16 : SampleDepth::u8);
  if (deep) {
    readback.read(frame.rgb16().data(), frame.rgb16().size_bytes());
  } else {
    readback.read(frame.rgb8().data(), frame.rgb8().size_bytes());
  }
  return frame;
}

std::unique_ptr<Pipeline> make_turn(std::shared_ptr<const Context> context, int w, int h,
                                    bool deep) {
  SpecConstants k;
  k.add(w).add(h).add(deep);
  return std::make_unique<Pipeline>(std::move(context), "turn_f32", 2, 0, k, Extent3{256, 1, 1});
}

std::unique_ptr<Pipeline> make_ensemble_average(std::shared_ptr<const Context> context, int w,
                                                int h, bool deep, int passes, int turned) {
  if (passes != 2 && passes != 4)
    throw Error(ErrorKind::internal, "an ensemble averages 2 or 4 passes");
  SpecConstants k;
  k.add(w).add(h).add(deep).add(passes).add(turned);
  return std::make_unique<Pipeline>(std::move(context), "ensemble_average_f32", 5, 0, k,
                                    Extent3{256, 1, 1});
}

std::vector<unsigned char> encode_values(std::span<const float> values, Storage storage) {
  std::vector<unsigned char> bytes(values.size() * storage_bytes(storage));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (storage == Storage::f32) {
      std::memcpy(&bytes[i * 4], &values[i], 4);
    } else {
      const std::uint16_t h = to_half(values[i]);
      std::memcpy(&bytes[i * 2], &h, 2);
    }
  }
  return bytes;
}

std::vector<float> decode_values(std::span<const unsigned char> bytes, std::size_t n,
                                 Storage storage) {
  std::vector<float> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (storage == Storage::f32) {
      std::memcpy(&values[i], &bytes[i * 4], 4);
    } else {
      std::uint16_t h;
      std::memcpy(&h, &bytes[i * 2], 2);
      values[i] = from_half(h);
    }
  }
  return values;
}

}  // namespace framecast::vulkan
