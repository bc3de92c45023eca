#include "backends/vulkan/runtime.hpp"

#include <algorithm>
#include <limits>

#include "backends/vulkan/tuner.hpp"
#include "engine/round_up.hpp"
#include "framecast/error.hpp"

namespace framecast::vulkan {
namespace {

// t per batch: the FiLM parameter slots and the readback buffers of one submission.
constexpr int kMaxBatch = 8;

}  // namespace

GraphRuntime::GraphRuntime(std::shared_ptr<const Context> context, const Model& model, int width,
                           int height, const RuntimeOptions& options)
    : VulkanRuntime(width, height),
      context_(std::move(context)),
      model_(model),
      options_(options),
      pool_(context_),
      copy_pool_(context_, QueueKind::copy),
      timeline_(context_),
      copies_(context_) {
  if (width <= 0 || height <= 0) throw Error(ErrorKind::invalid_argument, "invalid frame size");
  const DeviceCaps& caps = context_->caps();
  if (options.precision == Precision::bf16)
    throw Error(ErrorKind::unsupported, "the Vulkan backend stores f32 or f16 (--precision bf16)");
  if (options.precision == Precision::f16 && !caps.f16)
    throw Error(ErrorKind::unsupported, caps.name + " has no f16 arithmetic with 16-bit storage "
                                                    "(--precision f16); use f32 or auto");
  storage_ = options.precision == Precision::f32 ? Storage::f32
             : caps.f16                         ? Storage::f16
                                                : Storage::f32;
  const ModelShape& shape = model.shape();
  variant_ = shape.variant;
  ci0_ = shape.input_channels;
  refine_width_ = shape.refine_width;
  film_ = variant_ != Variant::classic;
  refine_ = variant_ == Variant::tfact2;
  padded_w_ = round_up(width, 16);
  padded_h_ = round_up(height, 16);

  const TuneCache cache = TuneCache::load(TuneCache::default_path());
  if (!cache.warning().empty()) warn(cache.warning());
  const auto trunk_choice = [&](int c2, int plane_w, int plane_h) {
    return choose_trunk_conv(cache, c2, plane_w, plane_h);
  };
  const int qw = padded_w_ / 4, qh = padded_h_ / 4;
  const int convex0 = ModelShape::block0_convex_factor;
  FlowBlock::Layout block0{.name = "block0",
                           .label = "",  // block0's stages keep the seed's names
                           .ci = ci0_,
                           .c1 = shape.c1,
                           .c2 = shape.c2,
                           .in_w = qw,
                           .in_h = qh,
                           .film = film_ ? "film" : "",
                           .upmask = shape.convex_block0 ? 9 * convex0 * convex0 : 0,
                           .convex_output = shape.convex_block0};
  block0_ = std::make_unique<FlowBlock>(model, std::move(block0), caps, storage_,
                                        trunk_choice(shape.c2, qw / 4, qh / 4), weights_);
  if (!shape.blocks.empty()) {
    refinement_ = std::make_unique<RefinementChain>(model, caps, storage_, padded_w_, padded_h_,
                                                    trunk_choice, weights_);
    marks_ += 16 * std::uint32_t(shape.blocks.size());
  }
  if (options.large_motion) {  // after the refinement blocks: trunk_sources_'s order
    large_motion_ = std::make_unique<LargeMotionPass>(model, block0_->layout(), width, height, caps,
                                                      storage_, trunk_choice, weights_);
    marks_ += 32;
  }
  if (refine_) {
    const int r = refine_width_;
    auto conv = [&](int i, int ci) {
      const std::string n = std::to_string(i);
      const ConvShape conv_shape{ci, r, qw, qh, 1};
      return add_conv_layer(model, weights_, caps, storage_, "refine.c" + n,
                            "refine.a" + n + ".weight", conv_shape,
                            coop_conv_or(caps, storage_, conv_shape, {ConvKind::rb, 4, 8, 24}));
    };
    refine_convs_ = {conv(0, 11), conv(1, r), conv(2, r)};
    refine_out_weight_ = weights_.add(model.tensor("refine.c3.weight").values, Storage::f32);
    refine_out_bias_ = weights_.add(model.tensor("refine.c3.bias").values, Storage::f32);
  }
  weights_.upload(context_, pool_, timeline_);
  allocate_buffers();
  descriptors_ = std::make_unique<DescriptorPool>(
      context_, 25 + 2 * kMaxBatch + FlowBlock::kDescriptorSets +
                    (large_motion_ ? LargeMotionPass::kDescriptorSets : 0) +
                    (refinement_ ? refinement_->descriptor_sets() : 0));
  block0_->build(context_, weights_, *descriptors_, kMaxBatch);
  if (large_motion_)
    large_motion_->build(context_, weights_, *descriptors_, kMaxBatch, padded_w_, padded_h_,
                         block0_->flow(), img0_, img1_, field_);
  if (refinement_)
    refinement_->build(context_, weights_, *descriptors_, kMaxBatch, width, height, field_, img0_,
                       img1_);
  build_pipelines();
  build_descriptor_sets();
}

GraphRuntime::~GraphRuntime() {
  try {
    timeline_.wait(timeline_.last());  // nothing may still use what is destroyed below
    copies_.wait(copies_.last());
  } catch (...) {
  }
}

void GraphRuntime::warn(const std::string& warning) {
  if (std::find(warnings_.begin(), warnings_.end(), warning) == warnings_.end())
    warnings_.push_back(warning);
}

ConvChoice GraphRuntime::choose_trunk_conv(const TuneCache& cache, int width, int plane_w,
                                           int plane_h) {
  const DeviceCaps& caps = context_->caps();
  const ConvShape shape{width, width, plane_w, plane_h, 1};
  const std::string path = TuneCache::default_path().string();
  ConvChoice choice = default_trunk_choice(caps, shape, storage_);
  std::string source = "default", stale;
  if (auto entry = cache.find(TuneKey::make(caps, width, plane_w, plane_h, storage_), &stale)) {
    if (auto why = conv_unfit(caps, shape, entry->choice, storage_); why.empty()) {
      choice = entry->choice;
      source = "tuned";
    } else {
      warn("ignoring the tuned conv " + entry->choice.text() + " from " + path + ": " + why);
    }
  } else if (!stale.empty()) {
    warn(stale + " (" + path + ")");
  }
  trunk_sources_.push_back(source);
  return fit_conv(caps, shape, choice, storage_);
}

std::vector<const FlowBlock*> GraphRuntime::flow_blocks() const {
  std::vector<const FlowBlock*> blocks = {block0_.get()};
  if (refinement_)
    for (const auto& block : refinement_->blocks()) blocks.push_back(block.get());
  if (large_motion_) blocks.push_back(&large_motion_->block());
  return blocks;
}

std::vector<ConvChoice> GraphRuntime::trunk_choices() const {
  std::vector<ConvChoice> choices;
  for (const FlowBlock* block : flow_blocks()) choices.push_back(block->trunk_choice());
  return choices;
}

void GraphRuntime::allocate_buffers() {
  const auto& ctx = context_;
  const std::size_t sb = storage_bytes(storage_);
  const std::size_t qn = std::size_t(padded_w_ / 4) * (padded_h_ / 4);
  const std::size_t frame = packed_frame_bytes(width(), height(), true);  // room for 16 bits
  const std::size_t image = std::size_t(width()) * height() * 4 * 4;  // a vec4 a pixel
  in0_ = Buffer(ctx, frame, MemoryUse::device);
  in1_ = Buffer(ctx, frame, MemoryUse::device);
  for (std::size_t slot = 0; slot < upload_.size(); ++slot) {
    upload_[slot] = Buffer(ctx, packed_pair_offset(width(), height()) * 2, MemoryUse::upload);
    landing_[slot] = Buffer(ctx, upload_[slot].size(), MemoryUse::device);
  }
  img0_ = Buffer(ctx, image, MemoryUse::device);
  img1_ = Buffer(ctx, image, MemoryUse::device);
  if (has_field())
    field_ = Buffer(ctx, std::size_t(5) * padded_w_ * padded_h_ * 4, MemoryUse::device);
  if (refine_) {
    rin_ = Buffer(ctx, 11 * qn * sb, MemoryUse::device);
    refine_a_ = Buffer(ctx, refine_width_ * qn * sb, MemoryUse::device);
    refine_b_ = Buffer(ctx, refine_width_ * qn * sb, MemoryUse::device);
    residual_ = Buffer(ctx, 3 * qn * 4, MemoryUse::device);
  }
}

void GraphRuntime::build_pipelines() {
  const auto& ctx = context_;
  const int qw = padded_w_ / 4, qh = padded_h_ / 4;
  prep_quarter_ = make_prep_quarter(ctx, storage_, width(), height(), qw, qh, ci0_);
  if (refinement_ && !large_motion_)  // block0 at 1/4: its output x8 (x4 when convex)
    field_init_ =
        make_flow_accumulate(ctx, storage_, padded_w_, padded_h_, block0_->flow_factor(4), false);
  if (refine_) {
    refine_c0_pipeline_ = make_conv(ctx, storage_, refine_convs_[0].shape, refine_convs_[0].choice);
    refine_c_pipeline_ = make_conv(ctx, storage_, refine_convs_[1].shape, refine_convs_[1].choice);
    refine_prep_ = make_refine_prep(ctx, storage_, width(), height(), padded_w_ / flow_factor(),
                                    padded_h_ / flow_factor(), flow_factor());
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
    p = make_flow_out(context_, width(), height(), padded_w_ / flow_factor(),
                      padded_h_ / flow_factor(), flow_factor(), refine_, options_.static_guard,
                      deep);
  return *p;
}

const Buffer& GraphRuntime::flow_field() const {
  return has_field() ? field_ : block0_->flow();
}

std::array<BufferRange, 5> GraphRuntime::flow_out_ranges(BufferRange output) const {
  const BufferRange field = flow_field().range();
  return {field, img0_.range(), img1_.range(), refine_ ? residual_.range() : field, output};
}

void GraphRuntime::build_descriptor_sets() {
  auto& d = *descriptors_;
  {
    const BufferRange r[] = {in0_.range(), in1_.range(), img0_.range(), img1_.range()};
    prep_full_set_ = d.allocate(prep_full(false), r);
    prep_full_gpu_set_ = d.allocate(prep_full(false), r);
  }
  {
    const BufferRange r[] = {img0_.range(), img1_.range(), block0_->input().range()};
    prep_quarter_set_ = d.allocate(*prep_quarter_, r);
  }
  if (field_init_) {
    const BufferRange coarse = block0_->flow().range();
    const BufferRange r[] = {coarse, field_.range(), coarse};  // bilinear: no logits
    field_init_set_ = d.allocate(*field_init_, r);
  }
  if (refine_) {
    {
      const BufferRange r[] = {flow_field().range(), img0_.range(), img1_.range(), rin_.range()};
      refine_prep_set_ = d.allocate(*refine_prep_, r);
    }
    refine_calls_.push_back(conv_call(d, weights_, refine_convs_[0], *refine_c0_pipeline_, rin_,
                                      refine_a_, nullptr, "refine_c0"));
    refine_calls_.push_back(conv_call(d, weights_, refine_convs_[1], *refine_c_pipeline_,
                                      refine_a_, refine_b_, nullptr, "refine_c1"));
    refine_calls_.push_back(conv_call(d, weights_, refine_convs_[2], *refine_c_pipeline_,
                                      refine_b_, refine_a_, nullptr, "refine_c2"));
    const BufferRange r[] = {refine_a_.range(), weights_.range(refine_out_weight_),
                             weights_.range(refine_out_bias_), residual_.range()};
    refine_out_set_ = d.allocate(*refine_out_, r);
  }
  // Bound to their outputs when those exist: outs_[i] on first use, the caller's per call.
  for (int i = 0; i < kMaxBatch; ++i) {
    flow_sets_.push_back(d.allocate(flow_out(false)));
    flow_gpu_sets_.push_back(d.allocate(flow_out(false)));
  }
  flow_gpu_busy_.assign(kMaxBatch, 0);
}

CommandBuffer& GraphRuntime::acquire(QueueKind kind) {
  const bool copy = kind == QueueKind::copy;
  auto& commands = copy ? copy_commands_ : commands_;
  const std::uint64_t done = (copy ? copies_ : timeline_).completed();
  for (auto& c : commands) {
    const bool pending = std::any_of(pending_.begin(), pending_.end(),
                                     [&](const Pending& p) { return p.cmd == c.get(); });
    if (c->signal_value() <= done && !pending) {
      c->signal_value() = std::numeric_limits<std::uint64_t>::max();  // taken until submitted
      return *c;
    }
  }
  commands.push_back(
      std::make_unique<CommandBuffer>(context_, copy ? copy_pool_ : pool_, copy ? 1 : marks_));
  commands.back()->signal_value() = std::numeric_limits<std::uint64_t>::max();
  return *commands.back();
}

void GraphRuntime::record_pair(CommandBuffer& cmd, bool deep, PairSource source, int slot) {
  const std::size_t bytes = packed_frame_bytes(width(), height(), deep);
  const std::size_t second = packed_pair_offset(width(), height());
  // Device memory to device memory: ~100x the bus's rate.
  const VkBuffer landing = landing_[std::size_t(slot)].handle();
  if (source == PairSource::upload)
    cmd.copy(landing, in0_.handle(), bytes, 0, 0);
  else if (source == PairSource::upload_next)
    cmd.copy(in1_.handle(), in0_.handle(), bytes);
  if (source != PairSource::gpu) cmd.copy(landing, in1_.handle(), bytes, second, 0);
  cmd.dispatch_linear(prep_full(deep),
                      source == PairSource::gpu ? prep_full_gpu_set_ : prep_full_set_,
                      std::uint64_t(width()) * height(), 2);
  cmd.mark("prep");
  if (film_) record_block0_head(cmd, 0.0f);  // block0's whole t-free trunk, once per pair
}

const FlowBlock* GraphRuntime::block0_beside() const {
  return large_motion_ ? &large_motion_->block() : nullptr;
}

void GraphRuntime::record_block0_head(CommandBuffer& cmd, float t) {
  cmd.together([&] {
    cmd.dispatch(*prep_quarter_, prep_quarter_set_, PrepQuarterPush{t},
                 {std::uint32_t(padded_w_ / 4), std::uint32_t(padded_h_ / 4), 1});
    cmd.mark("prep_quarter");
    if (large_motion_) large_motion_->record_prep(cmd, t);
  });
  block0_->record_head(cmd, block0_beside());
}

void GraphRuntime::record_mid(CommandBuffer& cmd, int slot, float t, bool deep,
                              VkDescriptorSet flow_set) {
  const std::uint32_t qw = std::uint32_t(padded_w_ / 4), qh = std::uint32_t(padded_h_ / 4);
  if (!film_) record_block0_head(cmd, t);
  block0_->record_tail(cmd, slot, block0_beside());
  if (large_motion_) {
    large_motion_->record_choice(cmd);
  } else if (field_init_) {
    cmd.dispatch(*field_init_, field_init_set_,
                 {std::uint32_t(padded_w_), std::uint32_t(padded_h_), 1});
    cmd.mark("flow_field");
  }
  if (refinement_) refinement_->record(cmd, slot, t);
  if (refine_) {
    cmd.dispatch(*refine_prep_, refine_prep_set_, {qw, qh, 1});
    cmd.mark("refine_prep");
    for (const auto& call : refine_calls_) record(cmd, call);
    cmd.dispatch(*refine_out_, refine_out_set_, {qw, qh, 1});
    cmd.mark("refine_out");
  }
  cmd.dispatch_linear(flow_out(deep), flow_set, flow_out_threads(width(), height(), deep));
  cmd.mark("flow_out");
}

void GraphRuntime::write_film_params(int slot, float t) {
  block0_->write_film(model_, slot, t);
  if (large_motion_) large_motion_->write_film(model_, slot, t);
  if (refinement_) refinement_->write_film(model_, slot, t);
}

void GraphRuntime::check_ts(std::span<const float> ts) const {
  if (!prepared_) throw Error(ErrorKind::internal, "mid() before prepare_pair()");
  for (float t : ts)
    if (!(t >= 0.0f && t <= 1.0f))
      throw Error(ErrorKind::invalid_argument, "t = " + std::to_string(t) + " is outside [0, 1]");
}

GraphRuntime::PairTimes& GraphRuntime::times_of(std::uint64_t pair) {
  for (auto& t : times_)
    if (t.pair == pair) return t;
  // Pairs before the last three are done with: their submissions completed before these
  // were made (one pair's mids are read, or waited for, before the pair after next).
  std::erase_if(times_, [&](const PairTimes& t) { return t.pair + 3 <= pairs_submitted_; });
  times_.push_back({pair, context_->caps().timestamps ? 0.0 : -1.0, {}, {}, {}});
  return times_.back();
}

void GraphRuntime::collect() {
  const std::uint64_t done = timeline_.completed(), copied = copies_.completed();
  for (auto it = pending_.begin(); it != pending_.end();) {
    const bool copy = it->work == Work::upload || it->work == Work::readback;
    if (it->cmd->signal_value() > (copy ? copied : done)) {
      ++it;
      continue;
    }
    PairTimes& times = times_of(it->pair_number);
    const double ms = it->cmd->device_ms();
    if (!copy || !context_->separate_copy_queue()) {  // in turn with the kernels
      if (ms < 0.0)
        times.device_ms = -1.0;  // not timed, so the pair's time is not known
      else if (times.device_ms >= 0.0)
        times.device_ms += ms;
    }
    if (options_.profile) {
      auto stages = it->cmd->stage_times();
      switch (it->work) {
        case Work::upload:
        case Work::pair:
          times.pair_stages.insert(times.pair_stages.end(), stages.begin(), stages.end());
          break;
        case Work::mid: times.mid_stages = std::move(stages); break;
        case Work::readback: times.readback_stages = std::move(stages); break;
      }
    }
    it = pending_.erase(it);
  }
}

double GraphRuntime::last_device_ms() const {
  for (const auto& t : times_)
    if (t.pair == reported_pair_) return t.device_ms;
  return context_->caps().timestamps ? 0.0 : -1.0;
}

std::vector<StageTime> GraphRuntime::last_profile() const {
  for (const auto& t : times_) {
    if (t.pair != reported_pair_) continue;
    std::vector<StageTime> stages = t.pair_stages;
    for (const auto* part : {&t.mid_stages, &t.readback_stages})
      stages.insert(stages.end(), part->begin(), part->end());
    return stages;
  }
  return {};
}

std::size_t GraphRuntime::next_upload_slot() {
  upload_slot_ ^= 1;
  const auto slot = std::size_t(upload_slot_);
  timeline_.wait(upload_busy_[slot]);  // the pair before last may still read this slot
  return slot;
}

void GraphRuntime::prepare_pair(const Frame& frame0, const Frame& frame1) {
  check_pair(frame0, frame1);
  second_in_device_ = false;  // until this pair is submitted whole
  const std::size_t slot = next_upload_slot();
  write_packed_pair(upload_[slot], frame0, frame1);
  upload_busy_[slot] =
      submit_pair(frame0.depth() == SampleDepth::u16, PairSource::upload, int(slot));
  second_in_device_ = true;
}

void GraphRuntime::prepare_next(const Frame& next) {
  check_next(next, second_in_device_, deep_ ? SampleDepth::u16 : SampleDepth::u8);
  const bool deep = next.depth() == SampleDepth::u16;
  second_in_device_ = false;
  const std::size_t slot = next_upload_slot();
  write_packed_frame(upload_[slot], next, packed_pair_offset(width(), height()));
  upload_busy_[slot] = submit_pair(deep, PairSource::upload_next, int(slot));
  second_in_device_ = true;
}

std::uint64_t GraphRuntime::submit_pair(bool deep, PairSource source, int slot) {
  collect();  // what completed unread (mids_gpu without a wait) frees its command buffers
  CommandBuffer* upload = nullptr;
  if (source != PairSource::gpu) {
    // The upload slot into its landing in device memory, which the pair before last read.
    const std::size_t s = std::size_t(slot);
    const std::size_t second = packed_pair_offset(width(), height());
    const std::size_t bytes = packed_frame_bytes(width(), height(), deep);
    const std::size_t from = source == PairSource::upload ? 0 : second;
    upload = &acquire(QueueKind::copy);
    upload->begin(options_.profile);
    if (upload_busy_[s]) upload->wait_for(timeline_, upload_busy_[s]);
    upload->copy(upload_[s].handle(), landing_[s].handle(), second + bytes - from, from, from);
    upload->mark("upload");
    upload->end();
    CommandBuffer* const uploads[] = {upload};
    submit(*context_, copies_, uploads);
  }
  submit_readbacks();  // behind the upload on the copy queue, so that they do not hold it up
  CommandBuffer& cmd = acquire(QueueKind::compute);
  cmd.begin(options_.profile);
  if (upload) cmd.wait_for(copies_, upload->signal_value());
  record_pair(cmd, deep, source, slot);
  cmd.end();
  CommandBuffer* const buffers[] = {&cmd};
  submit(*context_, timeline_, buffers);
  reported_pair_ = ++pairs_submitted_;
  times_of(reported_pair_);
  if (upload) pending_.push_back({upload, Work::upload, reported_pair_});
  pending_.push_back({&cmd, Work::pair, reported_pair_});
  deep_ = deep;
  prepared_ = true;
  return cmd.signal_value();
}

Frame GraphRuntime::mid(float t) { return std::move(mids(std::span<const float>(&t, 1)).front()); }

std::vector<Frame> GraphRuntime::mids(std::span<const float> ts) {
  check_ts(ts);
  if (started_) throw Error(ErrorKind::internal, "mids() before the started ones were taken");
  std::vector<Frame> frames;
  for (std::size_t start = 0; start < ts.size(); start += kMaxBatch) {
    const std::size_t n = std::min<std::size_t>(kMaxBatch, ts.size() - start);
    for (Frame& f : read_mids(submit_mids(ts.subspan(start, n)))) frames.push_back(std::move(f));
  }
  return frames;
}

void GraphRuntime::start_mids(std::span<const float> ts) {
  check_ts(ts);
  if (started_) throw Error(ErrorKind::internal, "start_mids() before the last ones were taken");
  if (ts.size() > std::size_t(kMaxBatch)) return Runtime::start_mids(ts);  // computed at once
  started_ = submit_mids(ts);
}

std::vector<Frame> GraphRuntime::take_mids() {
  if (!started_) return Runtime::take_mids();
  const Batch batch = std::move(*started_);
  started_.reset();
  return read_mids(batch);
}

std::vector<CommandBuffer*> GraphRuntime::submit_mid_buffers(std::span<const float> ts,
                                                           std::span<const VkDescriptorSet> sets,
                                                           std::uint64_t after_copies) {
  if (film_) {
    timeline_.wait(film_busy_);
    for (std::size_t i = 0; i < ts.size(); ++i) write_film_params(int(i), ts[i]);
  }
  std::vector<CommandBuffer*> buffers;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    CommandBuffer& cmd = acquire(QueueKind::compute);
    cmd.begin(options_.profile);
    if (after_copies) cmd.wait_for(copies_, after_copies);
    record_mid(cmd, int(i), ts[i], deep_, sets[i]);
    cmd.end();
    buffers.push_back(&cmd);
  }
  submit(*context_, timeline_, buffers);
  for (auto* b : buffers) pending_.push_back({b, Work::mid, pairs_submitted_});
  film_busy_ = buffers.back()->signal_value();
  return buffers;
}

GraphRuntime::Batch GraphRuntime::submit_mids(std::span<const float> ts) {
  const std::size_t n = ts.size();
  const std::size_t room = packed_frame_bytes(width(), height(), true);
  while (outs_.size() < n) {
    outs_.emplace_back(context_, room, MemoryUse::device);
    readback_.emplace_back(context_, room, MemoryUse::readback);
    bind_buffers(*context_, flow_sets_[outs_.size() - 1], flow_out_ranges(outs_.back().range()));
  }
  // The last batch's readbacks must have read outs_ before these mids overwrite them: they
  // are the copy queue's last work but this pair's upload, which the pair waited for already.
  Batch batch{submit_mid_buffers(ts, flow_sets_, copies_.last()), {}, deep_, pairs_submitted_};
  const std::size_t bytes = packed_frame_bytes(width(), height(), deep_);
  for (std::size_t i = 0; i < n; ++i) {
    CommandBuffer& copy = acquire(QueueKind::copy);
    copy.begin(options_.profile);
    copy.wait_for(timeline_, batch.buffers[i]->signal_value());
    copy.copy(outs_[i].handle(), readback_[i].handle(), bytes);
    copy.mark("readback");
    copy.end();
    batch.readbacks.push_back(&copy);
  }
  held_readbacks_ = batch;
  return batch;
}

void GraphRuntime::submit_readbacks() {
  if (!held_readbacks_) return;
  const Batch batch = std::move(*held_readbacks_);
  held_readbacks_.reset();
  submit(*context_, copies_, batch.readbacks);
  for (auto* b : batch.readbacks) pending_.push_back({b, Work::readback, batch.pair});
}

std::vector<Frame> GraphRuntime::read_mids(const Batch& batch) {
  submit_readbacks();
  std::vector<Frame> frames;
  for (std::size_t i = 0; i < batch.readbacks.size(); ++i) {
    copies_.wait(batch.readbacks[i]->signal_value());
    frames.push_back(read_packed_frame(readback_[i], width(), height(), batch.deep));
  }
  collect();
  reported_pair_ = batch.pair;
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

  prep_full_gpu_busy_ = submit_pair(deep, PairSource::gpu, 0);
  second_in_device_ = false;
  return prep_full_gpu_busy_;
}

std::uint64_t GraphRuntime::mids_gpu(std::span<const float> ts, std::span<const VkBuffer> outputs) {
  check_ts(ts);
  if (outputs.size() != ts.size())
    throw Error(ErrorKind::invalid_argument, "mids_gpu: one output buffer per t");
  const VkDeviceSize bytes = packed_frame_bytes(width(), height(), deep_);
  std::uint64_t ticket = timeline_.last();
  for (std::size_t start = 0; start < ts.size(); start += kMaxBatch) {
    const std::size_t n = std::min<std::size_t>(kMaxBatch, ts.size() - start);
    for (std::size_t i = 0; i < n; ++i) {
      const VkBuffer output = outputs[start + i];
      if (!output) throw Error(ErrorKind::invalid_argument, "null output buffer");
      timeline_.wait(flow_gpu_busy_[i]);
      bind_buffers(*context_, flow_gpu_sets_[i], flow_out_ranges({output, 0, bytes}));
    }
    const auto buffers =
        submit_mid_buffers(ts.subspan(start, n), std::span(flow_gpu_sets_).first(n), 0);
    for (std::size_t i = 0; i < n; ++i) flow_gpu_busy_[i] = buffers[i]->signal_value();
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
  const auto blocks = flow_blocks();
  std::string text = "vulkan (" + caps.name + ", " + caps.driver + ", " + storage_name(storage_) +
                     " storage / f32 arithmetic, trunk conv " + blocks[0]->trunk_choice().text() +
                     " [" + trunk_sources_[0] + "]";
  for (std::size_t k = 1; k < blocks.size(); ++k) {
    const bool half = large_motion_ && blocks[k] == &large_motion_->block();
    const std::string name = half ? "large-motion pass (block0 at 1/8)" : blocks[k]->layout().name;
    text += ", " + name + " trunk conv " + blocks[k]->trunk_choice().text() + " [" +
            trunk_sources_[k] + "]";
  }
  return text + ")";
}

}  // namespace framecast::vulkan
