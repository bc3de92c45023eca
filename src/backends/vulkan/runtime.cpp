#include "backends/vulkan/runtime.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "backends/cpu/ops_reference.hpp"
#include "backends/vulkan/tune_cache.hpp"
#include "backends/vulkan/tuner.hpp"
#include "framecast/error.hpp"

namespace framecast::vulkan {
namespace {

// t per batch: the FiLM parameter slots and the readback buffers of one submission.
constexpr int kMaxBatch = 8;

int round_up16(int v) { return (v + 15) / 16 * 16; }

std::size_t round_up(std::size_t v, std::size_t to) { return (v + to - 1) / to * to; }

}  // namespace

GraphRuntime::GraphRuntime(std::shared_ptr<const Context> context, const Model& model, int width,
                           int height, const RuntimeOptions& options)
    : VulkanRuntime(width, height),
      context_(std::move(context)),
      model_(model),
      options_(options),
      pool_(context_),
      timeline_(context_) {
  if (width <= 0 || height <= 0) throw Error(ErrorKind::invalid_argument, "invalid frame size");
  if (auto why = unsupported_reason(model); !why.empty())
    throw Error(ErrorKind::unsupported, "the Vulkan backend cannot run " + model.source() + ": " + why);
  const DeviceCaps& caps = context_->caps();
  if (options.precision == Precision::f16 && !caps.f16)
    throw Error(ErrorKind::unsupported, caps.name + " has no f16 arithmetic with 16-bit storage "
                                                    "(--precision f16); use f32 or auto");
  storage_ = options.precision == Precision::f32 ? Storage::f32
             : caps.f16                         ? Storage::f16
                                                : Storage::f32;
  const ModelShape& shape = model.shape();
  variant_ = shape.variant;
  c1_ = shape.c1;
  c2_ = shape.c2;
  ci0_ = shape.input_channels;
  refine_width_ = shape.refine_width;
  film_ = variant_ != Variant::classic;
  refine_ = variant_ == Variant::tfact2;
  padded_w_ = round_up16(width);
  padded_h_ = round_up16(height);
  device_ms_ = caps.timestamps ? 0.0 : -1.0;
  choose_trunk_conv();

  const int qw = padded_w_ / 4, qh = padded_h_ / 4, ew = padded_w_ / 8, eh = padded_h_ / 8;
  const int sw = padded_w_ / 16, sh = padded_h_ / 16;
  conv0a_ = make_conv_layer("block0.conv0.0.0", "block0.conv0.0.1.weight", {ci0_, c1_, qw, qh, 2},
                            {ConvKind::direct, 4, 8});
  conv0b_ = make_conv_layer("block0.conv0.1.0", "block0.conv0.1.1.weight", {c1_, c2_, ew, eh, 2},
                            {ConvKind::direct, 8, 8});
  for (int i = 0; i < 8; ++i) {
    const std::string p = "block0.convblock." + std::to_string(i);
    trunk_.push_back(make_conv_layer(p + ".0", p + ".1.weight", {c2_, c2_, sw, sh, 1, true, i == 7},
                                     trunk_choice_));
  }
  deconv_weight_ = weights_.add(model.tensor("block0.lastconv.weight").values, Storage::f32);
  deconv_bias_ = weights_.add(model.tensor("block0.lastconv.bias").values, Storage::f32);
  if (refine_) {
    const int r = refine_width_;
    const ConvChoice refine_choice{ConvKind::rb, 4, 8, 24};
    refine_convs_.push_back(
        make_conv_layer("refine.c0", "refine.a0.weight", {11, r, qw, qh, 1}, refine_choice));
    refine_convs_.push_back(
        make_conv_layer("refine.c1", "refine.a1.weight", {r, r, qw, qh, 1}, refine_choice));
    refine_convs_.push_back(
        make_conv_layer("refine.c2", "refine.a2.weight", {r, r, qw, qh, 1}, refine_choice));
    refine_out_weight_ = weights_.add(model.tensor("refine.c3.weight").values, Storage::f32);
    refine_out_bias_ = weights_.add(model.tensor("refine.c3.bias").values, Storage::f32);
  }
  weights_.upload(context_, pool_, timeline_);
  allocate_buffers();
  build_pipelines();
  build_descriptor_sets();
}

std::string GraphRuntime::unsupported_reason(const Model& model) {
  if (!model.shape().blocks.empty())
    return "it has " + std::to_string(model.shape().blocks.size()) +
           " refinement block(s), which only the CPU backends run so far";
  return {};
}

GraphRuntime::~GraphRuntime() {
  try {
    timeline_.wait(timeline_.last());  // nothing may still use what is destroyed below
  } catch (...) {
  }
}

void GraphRuntime::choose_trunk_conv() {
  const DeviceCaps& caps = context_->caps();
  const ConvShape shape{c2_, c2_, padded_w_ / 16, padded_h_ / 16, 1};
  trunk_choice_ = default_trunk_choice();
  const auto path = TuneCache::default_path();
  const TuneCache cache = TuneCache::load(path);
  if (!cache.warning().empty()) warnings_.push_back(cache.warning());
  std::string stale;
  const auto key = TuneKey::make(caps, c2_, shape.in_w, shape.in_h, storage_);
  if (auto entry = cache.find(key, &stale)) {
    if (auto why = conv_unfit(caps, shape, entry->choice, storage_); why.empty()) {
      trunk_choice_ = entry->choice;
      trunk_choice_source_ = "tuned";
    } else {
      warnings_.push_back("ignoring the tuned conv " + entry->choice.text() + " from " +
                          path.string() + ": " + why);
    }
  } else if (!stale.empty()) {
    warnings_.push_back(stale + " (" + path.string() + ")");
  }
  trunk_choice_ = fit_conv(caps, shape, trunk_choice_, storage_);
}

GraphRuntime::Conv GraphRuntime::make_conv_layer(const std::string& prefix,
                                                 const std::string& prelu, ConvShape shape,
                                                 ConvChoice choice) {
  Conv conv;
  conv.shape = shape;
  conv.choice = fit_conv(context_->caps(), shape, choice, storage_);
  const auto packed = pack_conv_weights(model_.tensor(prefix + ".weight").values, shape, conv.choice);
  conv.weight = weights_.add(packed, storage_);
  conv.bias = weights_.add(model_.tensor(prefix + ".bias").values, Storage::f32);
  conv.alpha = weights_.add(model_.tensor(prelu).values, Storage::f32);
  return conv;
}

void GraphRuntime::allocate_buffers() {
  const auto& ctx = context_;
  const std::size_t sb = storage_bytes(storage_);
  const std::size_t qn = std::size_t(padded_w_ / 4) * (padded_h_ / 4);
  const std::size_t en = std::size_t(padded_w_ / 8) * (padded_h_ / 8);
  const std::size_t sn = std::size_t(padded_w_ / 16) * (padded_h_ / 16);
  const std::size_t frame = packed_frame_bytes(width(), height(), true);  // room for 16 bits
  const std::size_t planes = std::size_t(width()) * height() * 3 * 4;
  in0_ = Buffer(ctx, frame, MemoryUse::device);
  in1_ = Buffer(ctx, frame, MemoryUse::device);
  for (auto& u : upload_) u = Buffer(ctx, round_up(frame, 256) * 2, MemoryUse::upload);
  img0_ = Buffer(ctx, planes, MemoryUse::device);
  img1_ = Buffer(ctx, planes, MemoryUse::device);
  xq_ = Buffer(ctx, ci0_ * qn * sb, MemoryUse::device);
  f8_ = Buffer(ctx, c1_ * en * sb, MemoryUse::device);
  feat0_ = Buffer(ctx, c2_ * sn * sb, MemoryUse::device);
  act_a_ = Buffer(ctx, c2_ * sn * sb, MemoryUse::device);
  act_b_ = Buffer(ctx, c2_ * sn * sb, MemoryUse::device);
  tmp8_ = Buffer(ctx, 5 * en * 4, MemoryUse::device);
  out_ = Buffer(ctx, frame, MemoryUse::device);
  if (film_) {
    trunk_out_ = Buffer(ctx, c2_ * sn * sb, MemoryUse::device);
    film_params_ = Buffer(ctx, std::size_t(kMaxBatch) * 2 * c2_ * 4, MemoryUse::upload);
  }
  if (refine_) {
    rin_ = Buffer(ctx, 11 * qn * sb, MemoryUse::device);
    refine_a_ = Buffer(ctx, refine_width_ * qn * sb, MemoryUse::device);
    refine_b_ = Buffer(ctx, refine_width_ * qn * sb, MemoryUse::device);
    residual_ = Buffer(ctx, 3 * qn * 4, MemoryUse::device);
  }
}

void GraphRuntime::build_pipelines() {
  const auto& ctx = context_;
  const int qw = padded_w_ / 4, qh = padded_h_ / 4, ew = padded_w_ / 8, eh = padded_h_ / 8;
  const int sw = padded_w_ / 16, sh = padded_h_ / 16;
  conv0a_pipeline_ = make_conv(ctx, storage_, conv0a_.shape, conv0a_.choice);
  conv0b_pipeline_ = make_conv(ctx, storage_, conv0b_.shape, conv0b_.choice);
  trunk_pipeline_ = make_conv(ctx, storage_, trunk_[0].shape, trunk_choice_);
  trunk_residual_pipeline_ = make_conv(ctx, storage_, trunk_[7].shape, trunk_choice_);
  prep_quarter_ = make_prep_quarter(ctx, storage_, width(), height(), qw, qh, ci0_);
  deconv_ = make_deconv(ctx, storage_, c2_, 5, sw, sh);
  if (film_) film_pipeline_ = make_film(ctx, storage_, c2_, sw * sh);
  if (refine_) {
    refine_c0_pipeline_ = make_conv(ctx, storage_, refine_convs_[0].shape, refine_convs_[0].choice);
    refine_c_pipeline_ = make_conv(ctx, storage_, refine_convs_[1].shape, refine_convs_[1].choice);
    refine_prep_ = make_refine_prep(ctx, storage_, width(), height(), ew, eh, 8);
    refine_out_ = make_refine_out(ctx, storage_, refine_width_, qw, qh);
  }
  prep_full(false);
  flow_out(false);
}

const Pipeline& GraphRuntime::prep_full(bool deep) {
  auto& p = prep_full_[deep ? 1 : 0];
  if (!p) p = make_prep_full(context_, width(), height(), deep);
  return *p;
}

const Pipeline& GraphRuntime::flow_out(bool deep) {
  auto& p = flow_out_[deep ? 1 : 0];
  if (!p)
    p = make_flow_out(context_, width(), height(), padded_w_ / 8, padded_h_ / 8, 8, refine_,
                      options_.static_guard, deep);
  return *p;
}

GraphRuntime::ConvCall GraphRuntime::conv_call(const Conv& conv, const Pipeline& pipeline,
                                               const Buffer& src, const Buffer& dst,
                                               const Buffer* residual, std::string stage) {
  const BufferRange ranges[] = {src.range(),
                                weights_.range(conv.weight),
                                weights_.range(conv.bias),
                                weights_.range(conv.alpha),
                                dst.range(),
                                residual ? residual->range() : dst.range()};
  return {&pipeline, descriptors_->allocate(pipeline, ranges), conv_elements(conv.shape),
          std::move(stage)};
}

void GraphRuntime::build_descriptor_sets() {
  descriptors_ = std::make_unique<DescriptorPool>(context_, 48 + kMaxBatch);
  auto& d = *descriptors_;
  {
    const BufferRange r[] = {in0_.range(), in1_.range(), img0_.range(), img1_.range()};
    prep_full_set_ = d.allocate(prep_full(false), r);
    prep_full_gpu_set_ = d.allocate(prep_full(false), r);
  }
  {
    const BufferRange r[] = {img0_.range(), img1_.range(), xq_.range()};
    prep_quarter_set_ = d.allocate(*prep_quarter_, r);
  }
  encoder_calls_.push_back(conv_call(conv0a_, *conv0a_pipeline_, xq_, f8_, nullptr, "conv0a"));
  encoder_calls_.push_back(conv_call(conv0b_, *conv0b_pipeline_, f8_, feat0_, nullptr, "conv0b"));
  // Ping-pong through A and B from feat0, which stays as the residual of the eighth conv.
  // tfact models end the t-free part (convblocks 0-5) in trunk_out_, which FiLM reads per t
  // into A.
  Buffer* const a = &act_a_;
  Buffer* const b = &act_b_;
  const std::array<const Buffer*, 8> classic_src = {&feat0_, a, b, a, b, a, b, a};
  const std::array<const Buffer*, 8> classic_dst = {a, b, a, b, a, b, a, b};
  const std::array<const Buffer*, 8> film_src = {&feat0_, a, b, a, b, a, a, b};
  const std::array<const Buffer*, 8> film_dst = {a, b, a, b, a, &trunk_out_, b, a};
  for (std::size_t i = 0; i < 8; ++i) {
    const Buffer& src = *(film_ ? film_src : classic_src)[i];
    const Buffer& dst = *(film_ ? film_dst : classic_dst)[i];
    const Pipeline& p = i == 7 ? *trunk_residual_pipeline_ : *trunk_pipeline_;
    auto call = conv_call(trunk_[i], p, src, dst, i == 7 ? &feat0_ : nullptr,
                          "trunk" + std::to_string(i));
    (film_ && i < 6 ? pair_trunk_calls_ : mid_trunk_calls_).push_back(std::move(call));
  }
  const Buffer* src = film_ ? a : b;
  deconv_input_ = src;
  {
    const BufferRange r[] = {deconv_input_->range(), weights_.range(deconv_weight_),
                             weights_.range(deconv_bias_), tmp8_.range()};
    deconv_set_ = d.allocate(*deconv_, r);
  }
  if (film_) {
    const BufferRange r[] = {trunk_out_.range(), film_params_.range(), act_a_.range()};
    film_set_ = d.allocate(*film_pipeline_, r);
  }
  if (refine_) {
    {
      const BufferRange r[] = {tmp8_.range(), img0_.range(), img1_.range(), rin_.range()};
      refine_prep_set_ = d.allocate(*refine_prep_, r);
    }
    refine_calls_.push_back(
        conv_call(refine_convs_[0], *refine_c0_pipeline_, rin_, refine_a_, nullptr, "refine_c0"));
    refine_calls_.push_back(
        conv_call(refine_convs_[1], *refine_c_pipeline_, refine_a_, refine_b_, nullptr, "refine_c1"));
    refine_calls_.push_back(
        conv_call(refine_convs_[2], *refine_c_pipeline_, refine_b_, refine_a_, nullptr, "refine_c2"));
    const BufferRange r[] = {refine_a_.range(), weights_.range(refine_out_weight_),
                             weights_.range(refine_out_bias_), residual_.range()};
    refine_out_set_ = d.allocate(*refine_out_, r);
  }
  const BufferRange flow[] = {tmp8_.range(), img0_.range(), img1_.range(),
                              refine_ ? residual_.range() : tmp8_.range(), out_.range()};
  flow_set_ = d.allocate(flow_out(false), flow);
  for (int i = 0; i < kMaxBatch; ++i) flow_gpu_sets_.push_back(d.allocate(flow_out(false), flow));
  flow_gpu_busy_.assign(kMaxBatch, 0);
}

CommandBuffer& GraphRuntime::acquire() {
  const std::uint64_t done = timeline_.completed();
  for (auto& c : commands_) {
    const bool pending = std::any_of(pending_.begin(), pending_.end(),
                                     [&](const Pending& p) { return p.cmd == c.get(); });
    if (c->signal_value() <= done && !pending) {
      c->signal_value() = std::numeric_limits<std::uint64_t>::max();  // taken until submitted
      return *c;
    }
  }
  commands_.push_back(std::make_unique<CommandBuffer>(context_, pool_));
  commands_.back()->signal_value() = std::numeric_limits<std::uint64_t>::max();
  return *commands_.back();
}

void GraphRuntime::record_conv(CommandBuffer& cmd, const ConvCall& call) {
  cmd.dispatch(*call.pipeline, call.set, call.elements);
  cmd.mark(call.stage);
}

void GraphRuntime::record_pair(CommandBuffer& cmd, bool deep, bool from_upload, int slot) {
  if (from_upload) {
    const std::size_t bytes = packed_frame_bytes(width(), height(), deep);
    const std::size_t second = round_up(packed_frame_bytes(width(), height(), true), 256);
    cmd.copy(upload_[std::size_t(slot)].handle(), in0_.handle(), bytes, 0, 0);
    cmd.copy(upload_[std::size_t(slot)].handle(), in1_.handle(), bytes, second, 0);
    cmd.mark("upload");
  }
  cmd.dispatch_linear(prep_full(deep), from_upload ? prep_full_set_ : prep_full_gpu_set_,
                      std::uint64_t(width()) * height(), 2);
  cmd.mark("prep");
  if (film_) {  // the whole t-free trunk, once per pair
    cmd.dispatch(*prep_quarter_, prep_quarter_set_, PrepQuarterPush{0.0f},
                 {std::uint32_t(padded_w_ / 4), std::uint32_t(padded_h_ / 4), 1});
    cmd.mark("prep_quarter");
    for (const auto& call : encoder_calls_) record_conv(cmd, call);
    for (const auto& call : pair_trunk_calls_) record_conv(cmd, call);
  }
}

void GraphRuntime::record_mid(CommandBuffer& cmd, int slot, float t, bool deep,
                              VkDescriptorSet flow_set, const Buffer* readback) {
  const std::uint32_t qw = std::uint32_t(padded_w_ / 4), qh = std::uint32_t(padded_h_ / 4);
  if (!film_) {
    cmd.dispatch(*prep_quarter_, prep_quarter_set_, PrepQuarterPush{t}, {qw, qh, 1});
    cmd.mark("prep_quarter");
    for (const auto& call : encoder_calls_) record_conv(cmd, call);
  } else {
    cmd.dispatch_linear(*film_pipeline_, film_set_, FilmPush{slot},
                        std::uint64_t(c2_) * (padded_w_ / 16) * (padded_h_ / 16));
    cmd.mark("film");
  }
  for (const auto& call : mid_trunk_calls_) record_conv(cmd, call);
  cmd.dispatch(*deconv_, deconv_set_,
               {std::uint32_t(padded_w_ / 8), std::uint32_t(padded_h_ / 8), 1});
  cmd.mark("deconv");
  if (refine_) {
    cmd.dispatch(*refine_prep_, refine_prep_set_, {qw, qh, 1});
    cmd.mark("refine_prep");
    for (const auto& call : refine_calls_) record_conv(cmd, call);
    cmd.dispatch(*refine_out_, refine_out_set_, {qw, qh, 1});
    cmd.mark("refine_out");
  }
  cmd.dispatch_linear(flow_out(deep), flow_set, flow_out_threads(width(), height(), deep));
  cmd.mark("flow_out");
  if (readback) {
    cmd.copy(out_.handle(), readback->handle(), packed_frame_bytes(width(), height(), deep));
    cmd.mark("readback");
  }
}

void GraphRuntime::write_film_params(int slot, float t) {
  const auto params = cpu::film_params(model_, t);
  film_params_.write(params.data(), params.size() * 4, std::size_t(slot) * 2 * c2_ * 4);
}

void GraphRuntime::check_ts(std::span<const float> ts) const {
  if (!prepared_) throw Error(ErrorKind::internal, "mid() before prepare_pair()");
  for (float t : ts)
    if (!(t >= 0.0f && t <= 1.0f))
      throw Error(ErrorKind::invalid_argument, "t = " + std::to_string(t) + " is outside [0, 1]");
}

void GraphRuntime::collect() {
  const std::uint64_t done = timeline_.completed();
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->cmd->signal_value() > done) {
      ++it;
      continue;
    }
    const double ms = it->cmd->device_ms();
    if (ms >= 0.0 && device_ms_ >= 0.0) device_ms_ += ms;
    if (options_.profile) {
      if (it->pair) {
        pair_profile_ = it->cmd->stage_times();
        profile_ = pair_profile_;
      } else {
        profile_ = pair_profile_;
        const auto stages = it->cmd->stage_times();
        profile_.insert(profile_.end(), stages.begin(), stages.end());
      }
    }
    it = pending_.erase(it);
  }
}

void GraphRuntime::prepare_pair(const Frame& frame0, const Frame& frame1) {
  check_pair(frame0, frame1);
  const bool deep = frame0.depth() == SampleDepth::u16;
  upload_slot_ ^= 1;
  const auto slot = std::size_t(upload_slot_);
  timeline_.wait(upload_busy_[slot]);  // the pair before last may still read this slot
  const std::size_t bytes = frame0.sample_count() * (deep ? 2 : 1);
  const std::size_t second = round_up(packed_frame_bytes(width(), height(), true), 256);
  auto* base = static_cast<unsigned char*>(upload_[slot].mapped());
  std::memcpy(base, deep ? (const void*)frame0.rgb16().data() : frame0.rgb8().data(), bytes);
  std::memcpy(base + second, deep ? (const void*)frame1.rgb16().data() : frame1.rgb8().data(),
              bytes);
  upload_[slot].flush(upload_[slot].size());

  upload_busy_[slot] = submit_pair(deep, true, upload_slot_);
}

std::uint64_t GraphRuntime::submit_pair(bool deep, bool from_upload, int slot) {
  pending_.clear();
  pair_profile_.clear();
  profile_.clear();
  device_ms_ = context_->caps().timestamps ? 0.0 : -1.0;
  CommandBuffer& cmd = acquire();
  cmd.begin(options_.profile);
  record_pair(cmd, deep, from_upload, slot);
  cmd.end();
  CommandBuffer* const buffers[] = {&cmd};
  submit(*context_, timeline_, buffers);
  pending_.push_back({&cmd, true});
  deep_ = deep;
  prepared_ = true;
  return cmd.signal_value();
}

Frame GraphRuntime::mid(float t) { return std::move(mids(std::span<const float>(&t, 1)).front()); }

std::vector<Frame> GraphRuntime::mids(std::span<const float> ts) {
  check_ts(ts);
  std::vector<Frame> frames;
  const std::size_t bytes = std::size_t(width()) * height() * 3 * (deep_ ? 2 : 1);
  for (std::size_t start = 0; start < ts.size(); start += kMaxBatch) {
    const int n = int(std::min<std::size_t>(kMaxBatch, ts.size() - start));
    while (int(readback_.size()) < n)
      readback_.emplace_back(context_, packed_frame_bytes(width(), height(), true),
                             MemoryUse::readback);
    if (film_) {
      timeline_.wait(film_busy_);
      for (int i = 0; i < n; ++i) write_film_params(i, ts[start + std::size_t(i)]);
    }
    std::vector<CommandBuffer*> buffers;
    for (int i = 0; i < n; ++i) {
      CommandBuffer& cmd = acquire();
      cmd.begin(options_.profile);
      record_mid(cmd, i, ts[start + std::size_t(i)], deep_, flow_set_, &readback_[std::size_t(i)]);
      cmd.end();
      buffers.push_back(&cmd);
    }
    submit(*context_, timeline_, buffers);
    for (auto* b : buffers) pending_.push_back({b, false});
    film_busy_ = buffers.back()->signal_value();
    for (int i = 0; i < n; ++i) {
      timeline_.wait(buffers[std::size_t(i)]->signal_value());
      Frame frame(width(), height(), deep_ ? SampleDepth::u16 : SampleDepth::u8);
      void* dst = deep_ ? (void*)frame.rgb16().data() : (void*)frame.rgb8().data();
      readback_[std::size_t(i)].read(dst, bytes);
      frames.push_back(std::move(frame));
    }
    collect();
  }
  return frames;
}

DeviceHandles GraphRuntime::handles() const {
  return {context_->instance(), context_->physical(), context_->device(), context_->queue(),
          context_->caps().queue_family};
}

std::uint64_t GraphRuntime::prepare_pair_gpu(VkBuffer frame0, VkBuffer frame1, SampleDepth depth) {
  if (!frame0 || !frame1) throw Error(ErrorKind::invalid_argument, "null frame buffer");
  const bool deep = depth == SampleDepth::u16;
  const VkDeviceSize bytes = packed_frame_bytes(width(), height(), deep);
  timeline_.wait(prep_full_gpu_busy_);
  const BufferRange r[] = {{frame0, 0, bytes}, {frame1, 0, bytes}, img0_.range(), img1_.range()};
  bind_buffers(*context_, prep_full_gpu_set_, r);

  prep_full_gpu_busy_ = submit_pair(deep, false, 0);
  return prep_full_gpu_busy_;
}

std::uint64_t GraphRuntime::mids_gpu(std::span<const float> ts, std::span<const VkBuffer> outputs) {
  check_ts(ts);
  if (outputs.size() != ts.size())
    throw Error(ErrorKind::invalid_argument, "mids_gpu: one output buffer per t");
  const VkDeviceSize bytes = packed_frame_bytes(width(), height(), deep_);
  std::uint64_t ticket = timeline_.last();
  for (std::size_t start = 0; start < ts.size(); start += kMaxBatch) {
    const int n = int(std::min<std::size_t>(kMaxBatch, ts.size() - start));
    if (film_) {
      timeline_.wait(film_busy_);
      for (int i = 0; i < n; ++i) write_film_params(i, ts[start + std::size_t(i)]);
    }
    std::vector<CommandBuffer*> buffers;
    for (int i = 0; i < n; ++i) {
      const VkBuffer output = outputs[start + std::size_t(i)];
      if (!output) throw Error(ErrorKind::invalid_argument, "null output buffer");
      timeline_.wait(flow_gpu_busy_[std::size_t(i)]);
      const BufferRange r[] = {tmp8_.range(), img0_.range(), img1_.range(),
                               refine_ ? residual_.range() : tmp8_.range(), {output, 0, bytes}};
      bind_buffers(*context_, flow_gpu_sets_[std::size_t(i)], r);
      CommandBuffer& cmd = acquire();
      cmd.begin(options_.profile);
      record_mid(cmd, i, ts[start + std::size_t(i)], deep_, flow_gpu_sets_[std::size_t(i)], nullptr);
      cmd.end();
      buffers.push_back(&cmd);
    }
    submit(*context_, timeline_, buffers);
    for (int i = 0; i < n; ++i) {
      flow_gpu_busy_[std::size_t(i)] = buffers[std::size_t(i)]->signal_value();
      pending_.push_back({buffers[std::size_t(i)], false});
    }
    film_busy_ = buffers.back()->signal_value();
    ticket = film_busy_;
  }
  return ticket;
}

void GraphRuntime::wait(std::uint64_t ticket) {
  timeline_.wait(ticket);
  collect();
}

std::string GraphRuntime::describe() const {
  const DeviceCaps& caps = context_->caps();
  return "vulkan (" + caps.name + ", " + caps.driver + ", " + storage_name(storage_) +
         " storage / f32 arithmetic, trunk conv " + trunk_choice_.text() + " [" +
         trunk_choice_source_ + "])";
}

}  // namespace framecast::vulkan
