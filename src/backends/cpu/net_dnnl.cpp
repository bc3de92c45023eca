// The fast CPU path: oneDNN convolutions, multi-threaded. Activations are f32 with channels in
// blocks of one vector register (8 or 16), the layout of oneDNN's direct JIT kernels (left to
// oneDNN, a refinement block's 17-channel input drew im2col and a matrix product onto the
// whole block, and on AVX2 a channels-last deconvolution drew the reference one), or, on CPUs
// with bfloat16 instructions (AVX512-BF16, AMX), bf16 channels-last with f32 accumulation: in
// oneDNN 2.6 only that layout reaches the AMX kernels (blocked bf16 ran slower than f32).
// PReLU runs as oneDNN's own primitive in place after each convolution: as a post-op (oneDNN
// 2.6) it drops the convolution to the reference implementation, ~30x slower.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "backends/cpu/conv_net.hpp"
#include "framecast/error.hpp"

namespace framecast::cpu {
namespace {

float bf16_to_float(std::uint16_t v) { return std::bit_cast<float>(std::uint32_t(v) << 16); }

// Rounded to nearest, ties to even, as oneDNN stores bfloat16.
std::uint16_t float_to_bf16(float f) {
  const auto bits = std::bit_cast<std::uint32_t>(f);
  return std::uint16_t((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

class DnnlNet final : public ConvNet {
 public:
  DnnlNet(const Model& model, const BlockSpec& block)
      : model_(model), act_dt_(block.bf16 ? dt::bf16 : dt::f32) {
    const std::string& b = block.name;
    const auto& in_shape = model.tensor(b + ".conv0.0.0.weight").shape;
    const memory::dim c1 = in_shape[0], c2 = model.tensor(b + ".conv0.1.0.weight").shape[0];
    const memory::dim w = block.input_width, h = block.input_height;
    xq_md_ = plain({1, in_shape[1], h, w});
    conv0a_ = make_conv(b + ".conv0.0.0", b + ".conv0.0.1.weight", input_md(xq_md_.dims()), 2,
                        activations({1, c1, h / 2, w / 2}));
    xq_ = staging(conv0a_.src_md);
    conv0b_ = make_conv(b + ".conv0.1.0", b + ".conv0.1.1.weight", conv0a_.dst_md, 2,
                        activations({1, c2, h / 4, w / 4}));
    const memory::desc act_md = conv0b_.dst_md;  // the whole trunk shares one layout
    for (int i = 0; i < 8; ++i) {
      const std::string p = b + ".convblock." + std::to_string(i);
      blocks_.push_back(make_conv(p + ".0", p + ".1.weight", act_md, 1, act_md, i == 7));
    }
    f8_ = memory(conv0a_.dst_md, engine_);
    act_ = memory(act_md, engine_);
    tmp_ = memory(act_md, engine_);
    feat0_ = memory(act_md, engine_);
    residual_ = dnnl::binary({{dnnl::algorithm::binary_add, act_md, act_md, act_md}, engine_});
    lastconv_ = make_deconv(b + ".lastconv", act_md, h / 2, w / 2);
    if (model.has(b + ".upmask.weight")) upmask_ = make_deconv(b + ".upmask", act_md, h / 2, w / 2);
    if (block.refine_head) make_refine(h, w);
  }

  void encode(const Planes& xq) override {
    run(conv0a_, input(xq, xq_md_, xq_), f8_);
    run(conv0b_, f8_, act_);
    copy(act_, feat0_);
  }

  void convblocks(int first, int last) override {
    for (int i = first; i < last; ++i) {
      run(blocks_[i], act_, tmp_);
      std::swap(act_, tmp_);
    }
  }

  void save_trunk() override {
    if (!trunk_) trunk_ = memory(act_.get_desc(), engine_);
    copy(act_, trunk_);
  }
  void restore_trunk() override { copy(trunk_, act_); }

  // FiLM: act = act * (1 + scale) + shift per channel, in place in the trunk's blocked layout.
  // A loop of our own: oneDNN 2.6's AVX2 batch normalisation, which ran this affine before,
  // returns wrong activations (the t-factored goldens failed on an AVX2-only EPYC).
  void film(std::span<const float> scale_shift) override {
    const dnnl_memory_desc_t& d = act_.get_desc().data;
    const auto& blocking = d.format_desc.blocking;
    const bool channel_blocks = blocking.inner_nblks == 1 && blocking.inner_idxs[0] == 1;
    if (d.format_kind != dnnl_blocked || (blocking.inner_nblks != 0 && !channel_blocks))
      throw Error(ErrorKind::internal, "FiLM: unexpected activation layout");
    const dnnl_dim_t block = channel_blocks ? blocking.inner_blks[0] : 1;
    const dnnl_dim_t channels = d.dims[1], height = d.dims[2], width = d.dims[3];
    const float* shift = scale_shift.data() + channels;
    std::vector<float> gain(static_cast<std::size_t>(channels));
    for (std::size_t c = 0; c < gain.size(); ++c) gain[c] = 1.0f + scale_shift[c];
    auto affine = [&](auto* data, auto load, auto store) {
      auto apply = [&](auto& v, dnnl_dim_t c) { v = store(load(v) * gain[std::size_t(c)] + shift[c]); };
      if (blocking.strides[1] == 1) {  // channels-last (bf16): each pixel's channels in a row
#pragma omp parallel for collapse(2)
        for (dnnl_dim_t y = 0; y < height; ++y)
          for (dnnl_dim_t x = 0; x < width; ++x) {
            auto* pixel = data + y * blocking.strides[2] + x * blocking.strides[3];
            for (dnnl_dim_t c = 0; c < channels; ++c) apply(pixel[c], c);
          }
        return;
      }
#pragma omp parallel for collapse(2)
      for (dnnl_dim_t c = 0; c < channels; ++c)
        for (dnnl_dim_t y = 0; y < height; ++y) {
          auto* row = data + (c / block) * blocking.strides[1] + y * blocking.strides[2] + c % block;
          for (dnnl_dim_t x = 0; x < width; ++x) apply(row[x * blocking.strides[3]], c);
        }
    };
    if (act_dt_ == dt::f32) {
      auto same = [](float v) { return v; };
      affine(static_cast<float*>(act_.get_data_handle()), same, same);
    } else {
      affine(static_cast<std::uint16_t*>(act_.get_data_handle()), bf16_to_float, float_to_bf16);
    }
  }

  void decode(Planes& tmp8) override { run(lastconv_, tmp8); }

  void upmask(Planes& logits) override {
    if (!upmask_) throw Error(ErrorKind::internal, "upmask() of a block without one");
    run(*upmask_, logits);
  }

  void refine(const Planes& rin, Planes& features) override {
    const int r = model_.shape().refine_width;
    const memory src = input(rin, plain({1, 11, rin.height, rin.width}), refine_in_);
    features.reshape(r, rin.height, rin.width);  // the reorder below writes every value
    memory out(plain({1, r, rin.height, rin.width}), engine_, features.values.data());
    run(refine_[0], src, refine_a_);
    run(refine_[1], refine_a_, refine_b_);
    run(refine_[2], refine_b_, refine_a_);
    dnnl::reorder(refine_a_, out).execute(stream_, refine_a_, out);
    stream_.wait();
  }

 private:
  struct Conv {
    dnnl::convolution_forward primitive;
    dnnl::prelu_forward prelu;
    memory weights, bias, slopes;
    memory::desc src_md, dst_md;
    bool residual = false;
  };

  // A deconvolution of the trunk (lastconv, upmask) and the plain planes it writes.
  struct Deconv {
    dnnl::deconvolution_forward primitive;
    memory in;  // the trunk's output as plain planes, where the deconvolution needs them
    memory weights, bias, out;
    memory::desc dst_md;  // plain planes
  };

  static memory::desc plain(const memory::dims& dims) { return {dims, dt::f32, tag::nchw}; }
  // Activations and weights: oneDNN picks the layout.
  memory::desc any(const memory::dims& dims) const { return {dims, act_dt_, tag::any}; }
  // Activations between convs (see the top of the file), and the input of a first conv with
  // at least a block of channels (input_md).
  memory::desc activations(const memory::dims& dims) const {
    return {dims, act_dt_, act_dt_ == dt::bf16 ? tag::nhwc : f32_blocked()};
  }
  // A first conv's input in f32: the planes themselves where they have fewer channels than a
  // block (the JIT kernels read those planes directly, and a blocked copy would drop them to
  // the reference implementation), else converted to the blocked layout (read as planes, a
  // refinement block's 17 channels ran on im2col and a matrix product, and so did the whole
  // block after it: `fast`'s took 123 ms at 1080p on AVX-512, 70 with the copy).
  memory::desc input_md(const memory::dims& dims) const {
    if (act_dt_ == dt::f32 && dims[1] < f32_block()) return plain(dims);
    return activations(dims);
  }
  // Channels in blocks of one vector register: the layout of oneDNN's direct JIT convolutions
  // and deconvolutions in f32.
  static memory::dim f32_block() {
    switch (dnnl::get_effective_cpu_isa()) {
      case dnnl::cpu_isa::avx512_core:
      case dnnl::cpu_isa::avx512_core_vnni:
      case dnnl::cpu_isa::avx512_core_bf16:
      case dnnl::cpu_isa::avx512_core_amx: return 16;
      default: return 8;
    }
  }
  static tag f32_blocked() { return f32_block() == 16 ? tag::nChw16c : tag::nChw8c; }

  // Where the input planes are converted for a first conv that reads another type or layout;
  // an empty memory when the conv reads the planes themselves.
  memory staging(const memory::desc& conv_src) {
    return conv_src == plain(conv_src.dims()) ? memory() : memory(conv_src, engine_);
  }
  // The planes as a first conv reads them: in place, or converted into staged.
  memory input(const Planes& planes, const memory::desc& plain_md, memory& staged) {
    memory user(plain_md, engine_, const_cast<float*>(planes.values.data()));
    if (!staged) return user;
    dnnl::reorder(user, staged).execute(stream_, user, staged);
    return staged;
  }

  memory user_memory(const memory::desc& md, const std::string& name) {
    const auto& t = model_.tensor(name);
    memory m(md, engine_);
    std::memcpy(m.get_data_handle(), t.values.data(), t.numel() * sizeof(float));
    return m;
  }

  // A user tensor reordered into the layout a primitive asks for.
  memory packed(const memory::desc& user_md, const memory::desc& wanted, const std::string& name) {
    memory user = user_memory(user_md, name);
    memory m(wanted, engine_);
    dnnl::reorder(user, m).execute(stream_, user, m);
    stream_.wait();
    return m;
  }

  Conv make_conv(const std::string& prefix, const std::string& prelu, const memory::desc& src_md,
                 int stride, const memory::desc& dst_md, bool residual = false) {
    const auto& w = model_.tensor(prefix + ".weight");
    const memory::dims wdims = {w.shape[0], w.shape[1], 3, 3};
    const memory::desc bias_md({w.shape[0]}, dt::f32, tag::x);  // f32 with bf16 data too
    const dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_md,
        any(wdims), bias_md, dst_md, {stride, stride}, {1, 1}, {1, 1});
    const dnnl::convolution_forward::primitive_desc pd(desc, engine_);
    Conv c;
    c.primitive = dnnl::convolution_forward(pd);
    c.weights = packed({wdims, dt::f32, tag::oihw}, pd.weights_desc(), prefix + ".weight");
    c.bias = user_memory(bias_md, prefix + ".bias");
    c.src_md = pd.src_desc();
    c.dst_md = pd.dst_desc();
    const memory::dims slopes_dims = {1, w.shape[0], 1, 1};
    const dnnl::prelu_forward::primitive_desc prelu_pd(
        {dnnl::prop_kind::forward_inference, c.dst_md, {slopes_dims, dt::f32, tag::any}}, engine_);
    c.prelu = dnnl::prelu_forward(prelu_pd);
    c.slopes = packed({slopes_dims, dt::f32, tag::nchw}, prelu_pd.weights_desc(), prelu);
    c.residual = residual;
    return c;
  }

  void run(const Conv& c, const memory& src, const memory& dst) {
    c.primitive.execute(stream_, {{DNNL_ARG_SRC, src},
                                  {DNNL_ARG_WEIGHTS, c.weights},
                                  {DNNL_ARG_BIAS, c.bias},
                                  {DNNL_ARG_DST, dst}});
    c.prelu.execute(stream_, {{DNNL_ARG_SRC, dst}, {DNNL_ARG_WEIGHTS, c.slopes}, {DNNL_ARG_DST, dst}});
    if (c.residual)
      residual_.execute(stream_, {{DNNL_ARG_SRC_0, dst}, {DNNL_ARG_SRC_1, feat0_}, {DNNL_ARG_DST, dst}});
    stream_.wait();
  }

  void run(Deconv& d, Planes& out) {
    const auto dims = d.dst_md.dims();
    out.reshape(int(dims[1]), int(dims[2]), int(dims[3]));  // the reorder below writes every value
    memory dst(d.dst_md, engine_, out.values.data());
    if (d.in) dnnl::reorder(act_, d.in).execute(stream_, act_, d.in);
    d.primitive.execute(stream_, {{DNNL_ARG_SRC, d.in ? d.in : act_},
                                  {DNNL_ARG_WEIGHTS, d.weights},
                                  {DNNL_ARG_BIAS, d.bias},
                                  {DNNL_ARG_DST, d.out}});
    dnnl::reorder(d.out, dst).execute(stream_, d.out, dst);
    stream_.wait();
  }

  void copy(const memory& from, const memory& to) {
    std::memcpy(to.get_data_handle(), from.get_data_handle(), from.get_desc().get_size());
  }

  // The deconvolution `prefix` (blockK.lastconv, blockK.upmask) of the trunk into h8 x w8.
  Deconv make_deconv(const std::string& prefix, const memory::desc& act_md, memory::dim h8,
                     memory::dim w8) {
    const auto c2 = act_md.dims()[1];
    const memory::dim co = model_.tensor(prefix + ".bias").shape[0];
    const memory::dims wdims = {co, c2, 4, 4};
    const memory::desc bias_md({co}, dt::f32, tag::x);
    Deconv d;
    d.dst_md = plain({1, co, h8, w8});
    // A blocked destination keeps the deconvolution on a JIT kernel where oneDNN has one for
    // these shapes (a plain destination falls back to the reference implementation); one
    // reorder then makes the planes. In bf16 that destination is f32 nhwc: for `any` oneDNN 2.6
    // picks the reference kernel, and the fallback below ran a convex upmask (48 -> 144
    // channels, 136x240 -> 272x480, AVX512-BF16, 2 threads) in 57 ms where the JIT kernel takes
    // 43 and the reorder to planes 8 (a bf16 destination takes 131). Where it has none (f32 on
    // AVX2: 5 output channels), im2col and a matrix product on plain activations, staged by a
    // reorder: block0's at 640x360 took 507 ms in the reference implementation and takes 0.3 so.
    auto make = [&](const memory::desc& src, tag dst) {
      const dnnl::deconvolution_forward::desc desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct, src,
          any(wdims), bias_md, {{1, co, h8, w8}, dt::f32, dst}, {2, 2}, {1, 1}, {1, 1});
      return dnnl::deconvolution_forward::primitive_desc(desc, engine_);
    };
    auto pd = make(act_md, act_dt_ == dt::f32 ? f32_blocked() : tag::nhwc);
    if (std::string(pd.impl_info_str()).starts_with("ref")) {
      const memory::desc plain_act = {act_md.dims(), act_dt_, tag::nchw};
      pd = make(plain_act, tag::nchw);
      d.in = memory(plain_act, engine_);
    }
    d.primitive = dnnl::deconvolution_forward(pd);
    d.out = memory(pd.dst_desc(), engine_);
    // PyTorch's ConvTranspose2d keeps [in, out, kh, kw]: oneDNN's iohw.
    d.weights = packed({wdims, dt::f32, tag::iohw}, pd.weights_desc(), prefix + ".weight");
    d.bias = user_memory(bias_md, prefix + ".bias");
    return d;
  }

  void make_refine(memory::dim h4, memory::dim w4) {
    const memory::dim r = model_.shape().refine_width;
    // Every conv stays in the blocked layout and one reorder makes the planes: a blocked-in,
    // plain-out conv has no JIT kernel in oneDNN 2.6 (its reference one took 4.9 s at 960x540).
    const memory::desc in_md = input_md({1, 11, h4, w4});
    refine_.push_back(make_conv("refine.c0", "refine.a0.weight", in_md, 1, activations({1, r, h4, w4})));
    refine_in_ = staging(refine_[0].src_md);
    for (const char* c : {"1", "2"})
      refine_.push_back(make_conv(std::string("refine.c") + c, std::string("refine.a") + c + ".weight",
                                  refine_[0].dst_md, 1, refine_[0].dst_md));
    refine_a_ = memory(refine_[0].dst_md, engine_);
    refine_b_ = memory(refine_[0].dst_md, engine_);
  }

  const Model& model_;
  const dt act_dt_;
  dnnl::engine engine_{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream_{engine_};
  memory::desc xq_md_;
  Conv conv0a_, conv0b_;
  std::vector<Conv> blocks_, refine_;
  memory xq_, f8_, act_, tmp_, feat0_, trunk_, refine_in_, refine_a_, refine_b_;
  dnnl::binary residual_;  // the trunk's residual: dst += feat0
  Deconv lastconv_;
  std::optional<Deconv> upmask_;  // convex models' refinement blocks
};

}  // namespace

CpuBf16 cpu_bf16() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::avx512_core_amx: return CpuBf16::amx;
    case dnnl::cpu_isa::avx512_core_bf16: return CpuBf16::instructions;
    default: return CpuBf16::none;
  }
}

std::unique_ptr<ConvNet> make_dnnl_net(const Model& model, const BlockSpec& block) {
  try {
    return std::make_unique<DnnlNet>(model, block);
  } catch (const dnnl::error& e) {
    throw Error(ErrorKind::internal, std::string("oneDNN could not build the network: ") + e.what());
  }
}

}  // namespace framecast::cpu
