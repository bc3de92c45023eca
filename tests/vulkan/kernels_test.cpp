// Each kernel against its CPU twin in ops_reference (the oracle), over a precision matrix:
// f32 storage must agree up to float rounding; f16 storage gets inputs pre-rounded to f16
// (as the GPU stores them) and a tolerance for the one rounding of each stored output.
// Sizes are odd on purpose, so that tile borders, partial slabs and clamped edges all occur.
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "backends/cpu/ops_reference.hpp"
#include "engine/half.hpp"
#include "backends/vulkan/kernels.hpp"
#include "core/test_support.hpp"
#include "io/test_pattern.hpp"
#include "vulkan/kernel_runner.hpp"
#include "vulkan/vk_test_support.hpp"

namespace framecast::vulkan {
namespace {

using cpu::Planes;
using testing::compare_values;
using testing::KernelRunner;
using testing::random_values;

// Explicit tolerances: NMSE, and max error relative to the largest expected magnitude.
struct Tolerance {
  double nmse;
  double max_rel;
};
Tolerance tolerance(Storage storage) {
  return storage == Storage::f32 ? Tolerance{1e-11, 2e-6} : Tolerance{2e-7, 1.5e-3};
}

void expect_matches(std::span<const float> got, std::span<const float> want, Storage storage,
                    const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double scale = 0.0;
  for (float v : want) scale = std::max(scale, double(std::abs(v)));
  const auto s = compare_values(got, want);
  const Tolerance t = tolerance(storage);
  EXPECT_EQ(s.non_finite, 0u) << what;
  EXPECT_LE(s.nmse, t.nmse) << what << " (" << storage_name(storage) << ")";
  EXPECT_LE(s.max_abs, t.max_rel * std::max(scale, 1e-3))
      << what << " (" << storage_name(storage) << ") worst at index " << s.worst << ": got "
      << got[s.worst] << ", want " << want[s.worst];
}

std::vector<float> rounded(std::vector<float> v, Storage storage) {
  if (storage == Storage::f16)
    for (auto& x : v) x = round_to_half(x);
  return v;
}

Planes planes(int c, int h, int w, std::vector<float> values) {
  Planes p(c, h, w);
  p.values = std::move(values);
  return p;
}

std::vector<Storage> storages(const Context& context) {
  if (context.caps().f16) return {Storage::f32, Storage::f16};
  return {Storage::f32};
}

// Two 8- or 16-bit frames uploaded as packed words, and their reference planes.
struct Frames {
  Frame a, b;
  Planes imgs;
};
Frames make_frames(int w, int h, SampleDepth depth) {
  Frames f{io::test_pattern(w, h, 0.0f, depth), io::test_pattern(w, h, 2.5f, depth), {}};
  cpu::frames_to_planes(f.a, f.b, f.imgs);
  return f;
}
Buffer upload_frame(KernelRunner& r, const Frame& f) {
  const bool deep = f.depth() == SampleDepth::u16;
  std::vector<unsigned char> bytes(packed_frame_bytes(f.width(), f.height(), deep));
  std::memcpy(bytes.data(), deep ? (const void*)f.rgb16().data() : (const void*)f.rgb8().data(),
              f.sample_count() * (deep ? 2 : 1));
  return r.upload_bytes(bytes.data(), bytes.size());
}
// Frame `frame`'s three reference planes (of imgs' six) as the kernels' image: one (b, g, r, 0)
// per pixel.
std::vector<float> image_of(const Planes& imgs, int frame) {
  const std::size_t n = imgs.plane_size();
  std::vector<float> image(4 * n, 0.0f);
  for (std::size_t p = 0; p < n; ++p)
    for (int c = 0; c < 3; ++c) image[4 * p + c] = imgs.values[(3 * frame + c) * n + p];
  return image;
}
// Uploads the reference planes as the two images the kernels read.
std::pair<Buffer, Buffer> upload_planes(KernelRunner& r, const Planes& imgs) {
  return {r.upload(image_of(imgs, 0)), r.upload(image_of(imgs, 1))};
}

TEST(Kernels, PrepFullMatchesFramesToPlanes) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  KernelRunner r(context);
  for (SampleDepth depth : {SampleDepth::u8, SampleDepth::u16}) {
    const int w = 37, h = 21;
    const Frames f = make_frames(w, h, depth);
    Buffer fa = upload_frame(r, f.a), fb = upload_frame(r, f.b);
    Buffer i0 = r.output(4 * w * h * 4), i1 = r.output(4 * w * h * 4);
    auto p = make_prep_full(r.shared(), w, h, depth == SampleDepth::u16);
    r.run(*p, {&fa, &fb, &i0, &i1}, [&](CommandBuffer& cmd, VkDescriptorSet set) {
      cmd.dispatch_linear(*p, set, std::uint64_t(w) * h, 2);
    });
    const char* what = depth == SampleDepth::u8 ? "8-bit" : "16-bit";
    EXPECT_EQ(r.download(i0, 4 * w * h), image_of(f.imgs, 0)) << what;
    EXPECT_EQ(r.download(i1, 4 * w * h), image_of(f.imgs, 1)) << what;
  }
}

TEST(Kernels, PrepQuarterMatchesReference) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  KernelRunner r(context);
  const int w = 45, h = 19, pw = 48, ph = 32;  // padded grid larger than the frame
  const Frames f = make_frames(w, h, SampleDepth::u8);
  auto [i0, i1] = upload_planes(r, f.imgs);
  for (Storage storage : storages(*context)) {
    for (int channels : {7, 6}) {
      Planes want;
      cpu::prep_quarter(f.imgs, pw, ph, channels, 0.375f, want);
      Buffer xq = r.output(want.values.size() * 4);
      auto p = make_prep_quarter(r.shared(), storage, w, h, pw / 4, ph / 4, channels);
      r.run(*p, {&i0, &i1, &xq}, [&](CommandBuffer& cmd, VkDescriptorSet set) {
        cmd.dispatch(*p, set, PrepQuarterPush{0.375f}, {std::uint32_t(pw / 4), std::uint32_t(ph / 4), 1});
      });
      expect_matches(r.download(xq, want.values.size(), storage), want.values, storage,
                     "prep_quarter " + std::to_string(channels) + " channels");
    }
  }
}

// One conv configuration: kernel choice, shape, residual.
struct ConvCase {
  ConvChoice choice;
  ConvShape shape;
};

std::string conv_case_name(const ConvCase& c) {
  return c.choice.text() + " " + std::to_string(c.shape.ci) + "->" + std::to_string(c.shape.co) +
         " " + std::to_string(c.shape.in_w) + "x" + std::to_string(c.shape.in_h) + " stride " +
         std::to_string(c.shape.stride) + (c.shape.residual ? " +residual" : "");
}

void run_conv_case(KernelRunner& r, const ConvCase& c, Storage storage) {
  const ConvShape& s = c.shape;
  const std::string what = conv_case_name(c);
  const std::size_t in_n = std::size_t(s.ci) * s.in_h * s.in_w;
  const std::size_t out_n = std::size_t(s.co) * s.out_h() * s.out_w();
  const auto src = rounded(random_values(in_n, -1.0f, 1.0f, 1), storage);
  const auto weight = rounded(random_values(std::size_t(s.co) * s.ci * 9, -0.3f, 0.3f, 2), storage);
  const auto bias = random_values(std::size_t(s.co), -0.1f, 0.1f, 3);
  const auto alpha = random_values(std::size_t(s.co), 0.1f, 0.3f, 4);
  const auto residual = rounded(random_values(out_n, -1.0f, 1.0f, 5), storage);

  Planes want(s.co, s.out_h(), s.out_w());
  cpu::conv3x3(planes(s.ci, s.in_h, s.in_w, src), weight.data(), bias.data(),
               s.prelu ? alpha.data() : nullptr, s.stride, cpu::Padding::zero, want);
  if (s.residual)
    for (std::size_t i = 0; i < out_n; ++i) want.values[i] += residual[i];

  Buffer bsrc = r.upload(src, storage);
  Buffer bw = r.upload(pack_conv_weights(weight, s, c.choice), storage);
  Buffer bb = r.upload(bias), ba = r.upload(alpha), bres = r.upload(residual, storage);
  Buffer bdst = r.output(out_n * storage_bytes(storage));
  auto p = make_conv(r.shared(), storage, s, c.choice);
  r.run(*p, {&bsrc, &bw, &bb, &ba, &bdst, s.residual ? &bres : &bdst},
        [&](CommandBuffer& cmd, VkDescriptorSet set) { cmd.dispatch(*p, set, conv_elements(s)); });
  expect_matches(r.download(bdst, out_n, storage), want.values, storage, what);
}

class ConvKernels : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvKernels, MatchReferenceConv) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  KernelRunner r(context);
  const ConvCase& c = GetParam();
  std::string skipped;
  for (Storage storage : storages(*context)) {
    const std::string why = conv_unfit(context->caps(), c.shape, c.choice, storage);
    if (why.empty()) {
      run_conv_case(r, c, storage);
    } else if (cooperative(c.choice.kind) &&
               (storage != Storage::f16 || !context->caps().coop())) {  // a device feature
      skipped += std::string(storage_name(storage)) + ": " + why + "; ";
    } else {
      ADD_FAILURE() << conv_case_name(c) << " does not fit the test device: " << why;
    }
  }
  if (skipped.size() && cooperative(c.choice.kind) &&
      (!context->caps().coop() || storages(*context).size() == 1))
    GTEST_SKIP() << skipped;
}

const ConvCase conv_cases[] = {
    // the encoder's stride-2 convs: 7 input channels, odd sizes, COC 4 and 2, partial slab
    {{ConvKind::direct, 4, 8}, {7, 12, 25, 19, 2}},
    {{ConvKind::direct, 2, 4}, {6, 6, 13, 9, 2}},
    {{ConvKind::direct, 8, 8}, {20, 16, 11, 7, 2}},
    // stride 1 without tiles (the same kernel), and the tiled kernel with COC 1 and 4
    {{ConvKind::direct, 4, 8}, {12, 8, 9, 5, 1}},
    {{ConvKind::tiled, 4, 8}, {20, 12, 21, 11, 1}},
    {{ConvKind::tiled, 1, 3}, {11, 5, 17, 9, 1}},
    // the trunk kernels, with the residual, partial slabs and partial 16x16 tiles
    {{ConvKind::rb, 4, 8, 18}, {20, 12, 21, 11, 1, true, true}},
    {{ConvKind::rb, 8, 6, 24}, {20, 16, 33, 18, 1, true, false}},
    {{ConvKind::rb, 8, 16, 24}, {24, 24, 7, 5, 1, true, true}},
    {{ConvKind::rb_subgroup, 4, 8, 24}, {20, 12, 21, 11, 1, true, true}},
    {{ConvKind::rb_subgroup, 8, 5, 18}, {13, 16, 17, 17, 1, true, false}},
    // no PReLU (not used by the graph today, but a switch of the kernel)
    {{ConvKind::rb, 4, 4, 24}, {8, 4, 9, 9, 1, false, false}},
    // tensor cores (devices with VK_NV_cooperative_matrix; f16 only): partial row and column
    // tiles, two input chunks, 16 and 48 channels per workgroup, 1 and 2 rows per subgroup
    {{ConvKind::coop, 16, 1, 16}, {32, 16, 21, 11, 1, true, true}},
    {{ConvKind::coop, 48, 2, 16}, {32, 48, 37, 13, 1, true, false}},
    {{ConvKind::coop, 16, 2, 8}, {16, 32, 19, 9, 1, true, true}},
    {{ConvKind::coop_global, 48, 1, 16}, {32, 48, 37, 13, 1, true, true}},
    {{ConvKind::coop_global, 16, 2, 8}, {16, 32, 19, 9, 1, true, false}},
    // the encoder's stride-2 convs on tensor cores: input channels padded to chunks of 16 (7,
    // 18, 40), odd input sizes, a partial last chunk beside whole ones, 2 rows per subgroup
    {{ConvKind::coop_global, 16, 1, 16}, {7, 32, 37, 21, 2}},
    {{ConvKind::coop_global, 48, 1, 16}, {18, 48, 35, 19, 2}},
    {{ConvKind::coop, 32, 2, 8}, {40, 64, 43, 29, 2}},
    {{ConvKind::coop_global, 16, 2, 16}, {40, 16, 66, 34, 2}},
    // the refine head's convs (11 -> 32, 32 -> 32) as coop_conv_or picks them, with the
    // residual-free epilogue, over more input chunks than a workgroup's rows
    {{ConvKind::coop_global, 32, 1, 16}, {11, 32, 45, 27, 1}},
    {{ConvKind::coop_global, 32, 1, 16}, {32, 32, 45, 27, 1}},
    {{ConvKind::coop_global, 80, 2, 16}, {80, 80, 30, 17, 1, true, true}},
};

INSTANTIATE_TEST_SUITE_P(Choices, ConvKernels, ::testing::ValuesIn(conv_cases),
                         [](const auto& p) {
                           std::string n = conv_case_name(p.param) + "_" + std::to_string(p.index);
                           for (auto& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

// What `tune --show` prints beside each variant: the driver's own statistics of the kernel.
TEST(Kernels, PipelinesReportTheDriversStatistics) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  if (!context->caps().pipeline_statistics)
    GTEST_SKIP() << context->caps().name << " has no VK_KHR_pipeline_executable_properties";
  const ConvShape shape{16, 16, 17, 9, 1, true, false};
  const auto pipeline = make_conv(context, Storage::f32, shape, {ConvKind::rb, 4, 8, 24});
  const std::string stats = pipeline->statistics();
  EXPECT_FALSE(stats.empty());
  EXPECT_NE(stats.find(' '), std::string::npos) << stats;  // "name value", at least one
}

TEST(Kernels, DeconvMatchesReference) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  KernelRunner r(context);
  // Planes that are not whole workgroups (8 x 4 input pixels), and input channel counts that
  // the threads sharing a pixel (8, 8, 2; 4 where shared memory runs out) do not divide. A
  // flow block's lastconv has 5 outputs; a convex block's upmask 9 f^2, in blocks of 12.
  for (auto [ci, co, iw, ih] : {std::array{20, 5, 7, 5}, std::array{37, 5, 19, 10},
                                std::array{3, 5, 9, 13}, std::array{20, 36, 7, 5},
                                std::array{37, 144, 19, 10}, std::array{3, 576, 9, 13}})
  for (Storage storage : storages(*context)) {
    SCOPED_TRACE(::testing::Message() << ci << " -> " << co << " channels, " << iw << "x" << ih);
    const auto src = rounded(random_values(std::size_t(ci) * iw * ih, -1.0f, 1.0f, 11), storage);
    const auto weight = random_values(std::size_t(ci) * co * 16, -0.2f, 0.2f, 12);
    const auto bias = random_values(co, -0.1f, 0.1f, 13);
    Planes want(co, ih * 2, iw * 2);
    cpu::deconv4x4s2(planes(ci, ih, iw, src), weight.data(), bias.data(), want);
    Buffer bsrc = r.upload(src, storage), bw = r.upload(weight), bb = r.upload(bias);
    Buffer dst = r.output(want.values.size() * 4);
    auto p = make_deconv(r.shared(), storage, ci, co, iw, ih);
    r.run(*p, {&bsrc, &bw, &bb, &dst}, [&](CommandBuffer& cmd, VkDescriptorSet set) {
      cmd.dispatch(*p, set, deconv_elements(co, iw, ih));
    });
    // The output is f32 in both precisions: only the input was rounded.
    expect_matches(r.download(dst, want.values.size()), want.values, Storage::f32, "deconv");
  }
}

// [C, 2 H, 2 W] as the parity conv lays it out: [4 C, H, W], channel 4 c + 2 r + s holding
// channel c's pixels (2 Y + r, 2 X + s).
std::vector<float> by_parity(const std::vector<float>& v, int c, int w, int h) {
  std::vector<float> out(v.size());
  for (int ch = 0; ch < c; ++ch)
    for (int y = 0; y < 2 * h; ++y)
      for (int x = 0; x < 2 * w; ++x) {
        const int o = 4 * ch + 2 * (y & 1) + (x & 1);
        out[(std::size_t(o) * h + y / 2) * w + x / 2] = v[(std::size_t(ch) * 2 * h + y) * 2 * w + x];
      }
  return out;
}

// A deconv as the parity conv that convex upmasks run as: the deconv's outputs, on the conv
// kernels the runtime picks for it (tensor cores where the device has them) and on a SIMT one,
// at channel counts of upmasks (9 f^2 for f = 2, 4) and odd planes.
TEST(Kernels, ParityConvIsTheDeconv) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  KernelRunner r(context);
  for (auto [ci, co, iw, ih] : {std::array{20, 36, 7, 5}, std::array{48, 144, 15, 9}})
  for (Storage storage : storages(*context)) {
    const ConvShape shape{ci, 4 * co, iw, ih, 1, false};
    const ConvChoice simt{ConvKind::rb, 8, 8, 24};
    for (const ConvChoice& wanted : {coop_conv_or(context->caps(), storage, shape, simt), simt}) {
      const ConvChoice choice = fit_conv(context->caps(), shape, wanted, storage);
      SCOPED_TRACE(::testing::Message() << ci << " -> " << co << " channels, " << iw << "x" << ih
                                        << ", " << choice.text());
      const auto src = rounded(random_values(std::size_t(ci) * iw * ih, -1.0f, 1.0f, 31), storage);
      // rounded as the conv stores its weights, so that both sides multiply the same values
      const auto deconv_weight =
          rounded(random_values(std::size_t(ci) * co * 16, -0.2f, 0.2f, 32), storage);
      const auto weight = deconv_as_parity_conv(deconv_weight, ci, co);
      const auto bias = random_values(co, -0.1f, 0.1f, 33);
      Planes deconv(co, ih * 2, iw * 2);
      cpu::deconv4x4s2(planes(ci, ih, iw, src), deconv_weight.data(), bias.data(), deconv);
      const auto want = by_parity(deconv.values, co, iw, ih);
      const auto conv_bias = parity_conv_bias(bias);
      Buffer bsrc = r.upload(src, storage);
      Buffer bw = r.upload(pack_conv_weights(weight, shape, choice), storage);
      Buffer bb = r.upload(conv_bias), ba = r.upload(conv_bias);
      Buffer bdst = r.output(want.size() * storage_bytes(storage));
      auto p = make_conv(r.shared(), storage, shape, choice);
      r.run(*p, {&bsrc, &bw, &bb, &ba, &bdst, &bdst}, [&](CommandBuffer& cmd, VkDescriptorSet set) {
        cmd.dispatch(*p, set, conv_elements(shape));
      });
      expect_matches(r.download(bdst, want.size(), storage), want, storage, "parity conv");
    }
  }
}

TEST(Kernels, FilmMatchesReference) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  KernelRunner r(context);
  const int c = 12, n = 35;
  for (Storage storage : storages(*context)) {
    const auto src = rounded(random_values(std::size_t(c) * n, -2.0f, 2.0f, 21), storage);
    // two slots: the kernel must read the one it is given
    const auto params = random_values(std::size_t(4) * c, -0.5f, 0.5f, 22);
    Planes want = planes(c, 1, n, src);
    cpu::apply_film(want, std::span<const float>(params).subspan(std::size_t(2) * c));
    Buffer bsrc = r.upload(src, storage), bp = r.upload(params);
    Buffer dst = r.output(src.size() * storage_bytes(storage));
    auto p = make_film(r.shared(), storage, c, n);
    r.run(*p, {&bsrc, &bp, &dst}, [&](CommandBuffer& cmd, VkDescriptorSet set) {
      cmd.dispatch_linear(*p, set, FilmPush{1}, std::uint64_t(c) * n);
    });
    expect_matches(r.download(dst, src.size(), storage), want.values, storage, "film");
  }
}

// A plausible flow field: flows of a few pixels, mask logits around 0.
std::vector<float> flow_field(int tw, int th, unsigned seed) {
  auto v = random_values(std::size_t(5) * tw * th, -0.6f, 0.6f, seed);
  for (std::size_t i = std::size_t(4) * tw * th; i < v.size(); ++i) v[i] *= 4.0f;
  return v;
}

// The field of models with refinement blocks: full resolution, flows of a few pixels.
std::vector<float> full_field(int pw, int ph, unsigned seed) {
  auto v = flow_field(pw, ph, seed);
  for (std::size_t i = 0; i < std::size_t(4) * pw * ph; ++i) v[i] *= 8.0f;
  return v;
}

// Both fields refine_prep and flow_out read: block0's coarse output (x8) and a full one.
struct FieldCase {
  int factor;
  std::vector<float> values;
};
std::vector<FieldCase> field_cases(int pw, int ph, unsigned seed) {
  return {{8, flow_field(pw / 8, ph / 8, seed)}, {1, full_field(pw, ph, seed + 1)}};
}

TEST(Kernels, RefinePrepMatchesReference) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  KernelRunner r(context);
  const int w = 37, h = 21, pw = 48, ph = 32;
  const Frames f = make_frames(w, h, SampleDepth::u8);
  auto [i0, i1] = upload_planes(r, f.imgs);
  for (const auto& field : field_cases(pw, ph, 31)) {
    const int fw = pw / field.factor, fh = ph / field.factor;
    const Planes field_planes = planes(5, fh, fw, field.values);
    Planes want;
    cpu::refine_prep(cpu::FlowField(field_planes, field.factor), f.imgs, want);
    Buffer bt = r.upload(field.values);
    for (Storage storage : storages(*context)) {
      Buffer rin = r.output(want.values.size() * 4);
      auto p = make_refine_prep(r.shared(), storage, w, h, fw, fh, field.factor);
      r.run(*p, {&bt, &i0, &i1, &rin}, [&](CommandBuffer& cmd, VkDescriptorSet set) {
        cmd.dispatch(*p, set, {std::uint32_t(pw / 4), std::uint32_t(ph / 4), 1});
      });
      expect_matches(r.download(rin, want.values.size(), storage), want.values, storage,
                     "refine_prep x" + std::to_string(field.factor));
    }
  }
}

TEST(Kernels, RefineOutMatchesReference) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  KernelRunner r(context);
  const Model model = Model::load(framecast::testing::golden_dir() / "tfact2_37x21" / "model.json");
  const int c = model.shape().refine_width, qw = 12, qh = 7;
  for (Storage storage : storages(*context)) {
    const auto src = rounded(random_values(std::size_t(c) * qw * qh, -1.0f, 1.0f, 41), storage);
    Planes want;
    cpu::refine_out(planes(c, qh, qw, src), model, want);
    Buffer bsrc = r.upload(src, storage);
    Buffer bw = r.upload(model.tensor("refine.c3.weight").values);
    Buffer bb = r.upload(model.tensor("refine.c3.bias").values);
    Buffer dst = r.output(want.values.size() * 4);
    auto p = make_refine_out(r.shared(), storage, c, qw, qh);
    r.run(*p, {&bsrc, &bw, &bb, &dst}, [&](CommandBuffer& cmd, VkDescriptorSet set) {
      cmd.dispatch(*p, set, {std::uint32_t(qw), std::uint32_t(qh), 1});
    });
    expect_matches(r.download(dst, want.values.size()), want.values, Storage::f32, "refine_out");
  }
}

class FlowOut : public ::testing::TestWithParam<std::tuple<SampleDepth, bool, bool>> {};

TEST_P(FlowOut, MatchesReference) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  KernelRunner r(context);
  const auto [depth, with_residual, guard] = GetParam();
  const int w = 37, h = 21, pw = 48, ph = 32;
  const bool deep = depth == SampleDepth::u16;
  Frames f = make_frames(w, h, depth);
  // a static block, so that the guard has something to keep
  for (int y = 2; y < 9; ++y)
    for (int x = 3; x < 12; ++x)
      for (int c = 0; c < 3; ++c) {
        const std::size_t i = (std::size_t(y) * w + x) * 3 + c;
        if (deep) {
          f.b.rgb16()[i] = f.a.rgb16()[i];
        } else {
          f.b.rgb8()[i] = f.a.rgb8()[i];
        }
      }
  cpu::frames_to_planes(f.a, f.b, f.imgs);
  const auto residual = random_values(std::size_t(3) * (pw / 4) * (ph / 4), -0.1f, 0.1f, 52);
  const Planes residual_planes = planes(3, ph / 4, pw / 4, residual);
  auto [i0, i1] = upload_planes(r, f.imgs);
  Buffer bres = r.upload(residual);
  for (const auto& field : field_cases(pw, ph, 51)) {
    const int fw = pw / field.factor, fh = ph / field.factor;
    const Planes field_planes = planes(5, fh, fw, field.values);
    Frame want(w, h, depth);
    cpu::flow_out(cpu::FlowField(field_planes, field.factor), f.imgs,
                  with_residual ? &residual_planes : nullptr, guard, want);
    Buffer bt = r.upload(field.values);
    Buffer out = r.output(packed_frame_bytes(w, h, deep));
    auto p = make_flow_out(r.shared(), w, h, fw, fh, field.factor, with_residual, guard, deep);
    r.run(*p, {&bt, &i0, &i1, with_residual ? &bres : &bt, &out},
          [&](CommandBuffer& cmd, VkDescriptorSet set) {
            cmd.dispatch_linear(*p, set, flow_out_threads(w, h, deep));
          });
    const auto bytes = r.download_bytes(out);
    Frame got(w, h, depth);
    std::memcpy(deep ? (void*)got.rgb16().data() : (void*)got.rgb8().data(), bytes.data(),
                got.sample_count() * (deep ? 2 : 1));
    const auto d = framecast::testing::compare(got, want);
    EXPECT_LE(d.max_error, 1) << "x" << field.factor << " worst at "
                              << framecast::testing::where(want, d.worst);
    EXPECT_LT(d.mean_error, 0.01) << "x" << field.factor;
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, FlowOut,
                         ::testing::Combine(::testing::Values(SampleDepth::u8, SampleDepth::u16),
                                            ::testing::Bool(), ::testing::Bool()),
                         [](const auto& p) {
                           return std::string(std::get<0>(p.param) == SampleDepth::u8 ? "8bit" : "16bit") +
                                  (std::get<1>(p.param) ? "_residual" : "") +
                                  (std::get<2>(p.param) ? "_guard" : "");
                         });

// A refinement block's input: warp + concat + resize to 1 / scale, with and without t.
class BlockInput : public ::testing::TestWithParam<std::tuple<int, bool>> {};

TEST_P(BlockInput, MatchesReference) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  KernelRunner r(context);
  const auto [scale, with_t] = GetParam();
  const int w = 37, h = 21, pw = 48, ph = 32;
  const float t = 0.375f;
  const Frames f = make_frames(w, h, SampleDepth::u8);
  const auto field = full_field(pw, ph, 61);
  Planes want;
  cpu::refinement_input(f.imgs, planes(5, ph, pw, field), with_t, t, scale, want);
  ASSERT_EQ(want.channels, with_t ? 18 : 17);
  auto [i0, i1] = upload_planes(r, f.imgs);
  Buffer bf = r.upload(field);
  for (Storage storage : storages(*context)) {
    Buffer dst = r.output(want.values.size() * storage_bytes(storage));
    auto p = make_block_input(r.shared(), storage, w, h, pw, ph, scale, with_t);
    r.run(*p, {&bf, &i0, &i1, &dst}, [&](CommandBuffer& cmd, VkDescriptorSet set) {
      cmd.dispatch(*p, set, BlockInputPush{t},
                   {std::uint32_t(pw / scale), std::uint32_t(ph / scale), 1});
    });
    expect_matches(r.download(dst, want.values.size(), storage), want.values, storage,
                   "block_input /" + std::to_string(scale));
  }
}

INSTANTIATE_TEST_SUITE_P(Scales, BlockInput,
                         ::testing::Combine(::testing::Values(4, 2, 1), ::testing::Bool()),
                         [](const auto& p) {
                           return "scale" + std::to_string(std::get<0>(p.param)) +
                                  (std::get<1>(p.param) ? "_with_t" : "");
                         });

// Block0's output written into the full-resolution field (x8), a block's output added (x4, x2).
TEST(Kernels, FlowAccumulateMatchesReference) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  KernelRunner r(context);
  const int pw = 48, ph = 32;
  for (const auto& [factor, accumulate] :
       {std::pair{8, false}, std::pair{4, true}, std::pair{2, true}}) {
    const auto coarse = flow_field(pw / factor, ph / factor, 71 + unsigned(factor));
    const auto before = full_field(pw, ph, 81);
    const Planes coarse_planes = planes(5, ph / factor, pw / factor, coarse);
    Planes want = planes(5, ph, pw, before);
    if (accumulate) {
      cpu::add_flow_residual(coarse_planes, float(factor), want);
    } else {
      cpu::upsample_flow(coarse_planes, pw, ph, float(factor), want);
    }
    Buffer bc = r.upload(coarse), field = r.upload(before);
    auto p = make_flow_accumulate(r.shared(), Storage::f32, pw, ph, factor, accumulate);
    r.run(*p, {&bc, &field, &bc}, [&](CommandBuffer& cmd, VkDescriptorSet set) {
      cmd.dispatch(*p, set, {std::uint32_t(pw), std::uint32_t(ph), 1});
    });
    expect_matches(r.download(field, want.values.size()), want.values, Storage::f32,
                   "flow_accumulate x" + std::to_string(factor));
  }
}

// A convex block's output added by convex upsampling (x8, x4, x2: scales 4, 2, 1), against
// add_convex_residual: logits over +-6 (softmax weights from near one-hot to near uniform),
// and all of them 120 higher, where exp() alone overflows float; coarse planes of 6x4 to
// 24x16, so that many outputs read a replicated edge. The kernel reads the logits as the
// upmask's parity conv writes them, in both storage precisions.
TEST(Kernels, ConvexAccumulateMatchesReference) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  KernelRunner r(context);
  const int pw = 48, ph = 32;
  for (int factor : {8, 4, 2})
  for (float shift : {0.0f, 120.0f}) {
    SCOPED_TRACE("x" + std::to_string(factor) + ", logits + " + std::to_string(shift));
    const int cw = pw / factor, ch = ph / factor, taps = 9 * factor * factor;
    const auto coarse = flow_field(cw, ch, 91 + unsigned(factor));
    for (Storage storage : storages(*context)) {
      auto logits = random_values(std::size_t(taps) * cw * ch, -6.0f, 6.0f, 101 + unsigned(factor));
      for (float& v : logits) v += shift;
      logits = rounded(logits, storage);
      const auto before = full_field(pw, ph, 111);
      Planes want = planes(5, ph, pw, before);
      cpu::add_convex_residual(planes(5, ch, cw, coarse), planes(taps, ch, cw, logits), factor,
                               want);
      Buffer bc = r.upload(coarse), field = r.upload(before);
      Buffer bl = r.upload(by_parity(logits, taps, cw / 2, ch / 2), storage);
      auto p = make_flow_accumulate(r.shared(), storage, pw, ph, factor, true, true);
      r.run(*p, {&bc, &field, &bl}, [&](CommandBuffer& cmd, VkDescriptorSet set) {
        cmd.dispatch(*p, set, {std::uint32_t(pw), std::uint32_t(ph), 1});
      });
      // f32 sums either way: only the logits were rounded
      expect_matches(r.download(field, want.values.size()), want.values, Storage::f32,
                     "convex accumulate x" + std::to_string(factor));
    }
  }
}

TEST(Kernels, ConvWeightPacking) {
  // [co, ci, 9] -> [co / coc][ci][9][coc]
  std::vector<float> w(4 * 2 * 9);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = float(i);
  const auto packed = pack_conv_weights(w, 4, 2, 2);
  // block 1 (co 2, 3), ci 1, tap 5, lane 1 -> co 3
  EXPECT_EQ(packed[((1 * 2 + 1) * 9 + 5) * 2 + 1], w[(3 * 2 + 1) * 9 + 5]);
  EXPECT_EQ(packed[0], w[0]);
  EXPECT_EQ(packed[1], w[(1 * 2 + 0) * 9 + 0]);
}

TEST(Kernels, ConvChoicesAreFittedToShapeAndDevice) {
  FRAMECAST_VK_CONTEXT_OR_SKIP(context);
  const DeviceCaps& caps = context->caps();
  // stride 2 runs direct unless coop fits; a width that is not a multiple of 4 leaves rb for tiled
  const Storage f32 = Storage::f32;
  EXPECT_EQ(fit_conv(caps, {7, 12, 9, 9, 2}, {ConvKind::rb, 8, 8, 24}, f32).kind, ConvKind::direct);
  const auto odd = fit_conv(caps, {6, 6, 9, 9, 1}, {ConvKind::rb, 8, 8, 24}, f32);
  EXPECT_EQ(odd.kind, ConvKind::tiled);
  EXPECT_EQ(6 % odd.coc, 0);
  // 12 channels: COC 8 does not divide, 4 does
  EXPECT_EQ(fit_conv(caps, {12, 12, 9, 9, 1}, {ConvKind::rb, 8, 8, 24}, f32).coc, 4);
  // a slab too large for shared memory is shrunk until it fits
  const auto big = fit_conv(caps, {512, 16, 9, 9, 1}, {ConvKind::rb, 8, 512, 24}, f32);
  EXPECT_LE(conv_shared_bytes(big), caps.max_shared_memory);
  EXPECT_FALSE(conv_unfit(caps, {16, 16, 9, 9, 1}, {ConvKind::rb, 3, 8, 24}, f32).empty());
  // the tensor-core kernel: f16 only, and it falls back to rb where it cannot run
  EXPECT_FALSE(conv_unfit(caps, {32, 32, 9, 9, 1}, {ConvKind::coop, 16, 1, 16}, f32).empty());
  EXPECT_EQ(fit_conv(caps, {32, 32, 9, 9, 1}, {ConvKind::coop, 16, 1, 16}, f32).kind, ConvKind::rb);
  // output channels that no block of 16 x COC divides, and a stride of 3
  EXPECT_FALSE(conv_unfit(caps, {32, 24, 9, 9, 1}, {ConvKind::coop, 16, 1, 16}, Storage::f16).empty());
  EXPECT_FALSE(conv_unfit(caps, {32, 32, 9, 9, 3}, {ConvKind::coop, 16, 1, 16}, Storage::f16).empty());
  // untuned convs take tensor cores at the widest block of 16 that divides their channels
  const ConvChoice simt{ConvKind::rb, 4, 8, 24};
  const ConvChoice head = coop_conv_or(caps, Storage::f16, {32, 32, 120, 68, 1}, simt);
  const ConvChoice coop32{ConvKind::coop_global, 32, 1, 16};
  EXPECT_EQ(head, caps.coop() ? coop32 : simt);
  EXPECT_EQ(coop_conv_or(caps, Storage::f16, {11, 240, 60, 34, 2}, simt).coc,
            caps.coop() ? 80 : simt.coc);
  EXPECT_EQ(coop_conv_or(caps, Storage::f32, {32, 32, 120, 68, 1}, simt), simt);
  EXPECT_EQ(coop_conv_or(caps, Storage::f16, {32, 24, 120, 68, 1}, simt), simt);
}

TEST(Kernels, ConvWeightPackingByTap) {
  const int co = 32, ci = 18;  // two blocks of output channels, input padded to 32
  std::vector<float> w(std::size_t(co) * ci * 9);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = float(i + 1);
  const auto packed = pack_conv_weights_by_tap(w, co, ci);  // [tap][2][2][16][16]
  ASSERT_EQ(packed.size(), std::size_t(9 * co * 32));
  const auto at = [&](int tap, int o, int i) {
    return packed[((std::size_t(tap) * 2 + o / 16) * 2 + i / 16) * 256 + (o % 16) * 16 + i % 16];
  };
  for (int tap : {0, 4, 8})
    for (int o : {0, 5, 17, 31})
      for (int i : {0, 15, 16, 17}) EXPECT_EQ(at(tap, o, i), w[(std::size_t(o) * ci + i) * 9 + tap]);
  for (int i = 18; i < 32; ++i) EXPECT_EQ(at(4, 21, i), 0.0f);
  EXPECT_THROW(pack_conv_weights_by_tap(std::vector<float>(3 * 18 * 9, 1.0f), 3, 18),
               std::invalid_argument);
}

}  // namespace
}  // namespace framecast::vulkan
