#include "backends/vulkan/ensemble.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "backends/vulkan/buffers.hpp"
#include "backends/vulkan/commands.hpp"
#include "backends/vulkan/kernels.hpp"
#include "backends/vulkan/pipelines.hpp"
#include "engine/ensemble.hpp"
#include "framecast/error.hpp"

namespace framecast::vulkan {
namespace {

// Mids averaged per submission; more t run in chunks (each pass prepares the pair again).
constexpr int kMaxBatch = 8;

class GpuEnsemble final : public Runtime {
 public:
  GpuEnsemble(std::shared_ptr<const Context> context, std::unique_ptr<VulkanRuntime> inner,
              int passes, bool profile)
      : Runtime(inner->width(), inner->height()),
        context_(std::move(context)),
        inner_(std::move(inner)),
        passes_(ensemble_passes(passes)),
        profile_(profile),
        times_(profile),
        pool_(context_),
        timeline_(context_),
        descriptors_(context_, 4 + 2 * kMaxBatch) {
    frame_bytes_ = packed_frame_bytes(width(), height(), true);  // room for 16 bits
    upload_ = Buffer(context_, packed_pair_offset(width(), height()) * 2, MemoryUse::upload);
    for (auto& f : pair_) f = Buffer(context_, frame_bytes_, MemoryUse::device);
    for (auto& f : turned_) f = Buffer(context_, frame_bytes_, MemoryUse::device);
  }

  ~GpuEnsemble() override {
    try {
      timeline_.wait(timeline_.last());  // nothing may still use what is destroyed below
    } catch (...) {
    }
  }

  void prepare_pair(const Frame& frame0, const Frame& frame1) override {
    check_pair(frame0, frame1);
    deep_ = frame0.depth() == SampleDepth::u16;
    timeline_.wait(timeline_.last());  // the last pair's upload and turns have read `upload_`
    write_packed_pair(upload_, frame0, frame1);
    submit_upload(false);
  }

  void prepare_next(const Frame& next) override {
    check_next(next, prepared_, deep_ ? SampleDepth::u16 : SampleDepth::u8);
    timeline_.wait(timeline_.last());
    write_packed_frame(upload_, next, packed_pair_offset(width(), height()));
    submit_upload(true);
  }

  Frame mid(float t) override { return std::move(mids({&t, 1}).front()); }

  std::vector<Frame> mids(std::span<const float> ts) override {
    if (!prepared_) throw Error(ErrorKind::internal, "mid() before prepare_pair()");
    times_.restart();
    collect_pair();
    std::vector<Frame> frames;
    for (std::size_t start = 0; start < ts.size(); start += kMaxBatch) {
      const auto chunk = ts.subspan(start, std::min<std::size_t>(kMaxBatch, ts.size() - start));
      run_passes(chunk);
      average(chunk.size(), frames);
    }
    return frames;
  }

  std::vector<StageTime> last_profile() const override { return times_.stages(); }
  double last_device_ms() const override { return times_.device_ms(); }
  std::vector<std::string> warnings() const override { return inner_->warnings(); }
  std::string describe() const override {
    return inner_->describe() + ", ensemble of " + std::to_string(passes_.size()) +
           " passes on the GPU";
  }

 private:
  // The pair's own work (upload, turns), once it is done: its device time and stages.
  // The pair from `upload_` into pair_ and turned into turned_; with `keep_first`, the last
  // pair's second frame (and its turn) becomes the first on the device and only the second
  // is uploaded.
  void submit_upload(bool keep_first) {
    prepared_ = false;  // until this pair is submitted whole
    const std::size_t second = packed_pair_offset(width(), height());
    const std::size_t used = packed_frame_bytes(width(), height(), deep_);
    const Pipeline& turn = turn_pipeline();
    CommandBuffer& cmd = command(0);
    cmd.begin(profile_);
    if (keep_first) {
      cmd.copy(pair_[1].handle(), pair_[0].handle(), used);
      cmd.copy(turned_[1].handle(), turned_[0].handle(), used);
    } else {
      cmd.copy(upload_.handle(), pair_[0].handle(), used, 0, 0);
    }
    cmd.copy(upload_.handle(), pair_[1].handle(), used, second, 0);
    cmd.mark("upload");
    for (int i = keep_first ? 1 : 0; i < 2; ++i)
      cmd.dispatch_linear(turn, turn_sets_[deep_][i], used / 4);
    cmd.mark("turn");
    cmd.end();
    CommandBuffer* const buffers[] = {&cmd};
    submit(*context_, timeline_, buffers);
    pair_pending_ = true;
    prepared_ = true;
  }

  void collect_pair() {
    if (!pair_pending_) return;
    CommandBuffer& cmd = command(0);
    timeline_.wait(cmd.signal_value());
    times_.add(cmd.device_ms(), cmd.stage_times());
    pair_pending_ = false;
  }

  // Every pass over the chunk's t, each into its own frames on the device.
  void run_passes(std::span<const float> ts) {
    const std::size_t n = ts.size();
    grow(n);
    const SampleDepth depth = deep_ ? SampleDepth::u16 : SampleDepth::u8;
    for (std::size_t p = 0; p < passes_.size(); ++p) {
      const EnsemblePass pass = passes_[p];
      const auto& frames = pass.turned ? turned_ : pair_;
      const VkBuffer first = frames[pass.reversed ? 1 : 0].handle();
      const VkBuffer second = frames[pass.reversed ? 0 : 1].handle();
      std::vector<VkBuffer> outputs;
      for (std::size_t i = 0; i < n; ++i) outputs.push_back(outputs_[p][i].handle());
      inner_->prepare_pair_gpu(first, second, depth);
      // The next pass prepares the inner runtime's pair again: this one's times first.
      inner_->wait(inner_->mids_gpu(pass_ts(pass, ts), outputs));
      times_.add_pass(p, *inner_);
    }
  }

  // Averages the passes' frames of the chunk's n mids and reads them into `frames`.
  void average(std::size_t n, std::vector<Frame>& frames) {
    const Pipeline& pipeline = average_pipeline();
    const std::size_t used = packed_frame_bytes(width(), height(), deep_);
    CommandBuffer& cmd = command(1);
    cmd.begin(profile_);
    for (std::size_t i = 0; i < n; ++i) {
      std::array<BufferRange, 5> ranges;
      for (std::size_t k = 0; k < 4; ++k) ranges[k] = outputs_[k % passes_.size()][i].range();
      ranges[4] = averages_[i].range();
      VkDescriptorSet& set = average_sets_[deep_][i];
      if (set) {
        bind_buffers(*context_, set, ranges);
      } else {
        set = descriptors_.allocate(pipeline, ranges);
      }
      cmd.dispatch_linear(pipeline, set, used / 4);
    }
    cmd.mark("ensemble_average");
    for (std::size_t i = 0; i < n; ++i)
      cmd.copy(averages_[i].handle(), readback_[i].handle(), used);
    cmd.mark("readback");
    cmd.end();
    CommandBuffer* const buffers[] = {&cmd};
    submit(*context_, timeline_, buffers);
    timeline_.wait(cmd.signal_value());
    times_.add(cmd.device_ms(), cmd.stage_times());
    for (std::size_t i = 0; i < n; ++i)
      frames.push_back(read_packed_frame(readback_[i], width(), height(), deep_));
  }

  // Device frames for n mids of every pass, their averages and readback buffers.
  void grow(std::size_t n) {
    for (std::size_t p = 0; p < passes_.size(); ++p)
      while (outputs_[p].size() < n)
        outputs_[p].emplace_back(context_, frame_bytes_, MemoryUse::device);
    while (averages_.size() < n) {
      averages_.emplace_back(context_, frame_bytes_, MemoryUse::device);
      readback_.emplace_back(context_, frame_bytes_, MemoryUse::readback);
    }
  }

  const Pipeline& turn_pipeline() {
    auto& p = turn_[deep_];
    if (!p) {
      p = make_turn(context_, width(), height(), deep_);
      for (int i = 0; i < 2; ++i) {
        const BufferRange r[] = {pair_[i].range(), turned_[i].range()};
        turn_sets_[deep_][i] = descriptors_.allocate(*p, r);
      }
    }
    return *p;
  }

  const Pipeline& average_pipeline() {
    auto& p = average_[deep_];
    if (!p) {
      int turned = 0;
      for (std::size_t k = 0; k < passes_.size(); ++k)
        if (passes_[k].turned) turned |= 1 << k;
      p = make_ensemble_average(context_, width(), height(), deep_, int(passes_.size()), turned);
    }
    return *p;
  }

  CommandBuffer& command(int which) {
    auto& c = commands_[std::size_t(which)];
    if (!c) c = std::make_unique<CommandBuffer>(context_, pool_, 8);
    return *c;
  }

  std::shared_ptr<const Context> context_;
  std::unique_ptr<VulkanRuntime> inner_;
  std::span<const EnsemblePass> passes_;
  bool profile_;
  EnsembleTimes times_;  // of the last mids()
  CommandPool pool_;
  Timeline timeline_;
  DescriptorPool descriptors_;
  std::size_t frame_bytes_ = 0;
  Buffer upload_;                         // both frames of a pair, host-visible
  std::array<Buffer, 2> pair_, turned_;  // the pair on the device, as given and turned
  std::array<std::vector<Buffer>, 4> outputs_;  // [pass][mid]
  std::vector<Buffer> averages_, readback_;     // [mid]
  std::array<std::unique_ptr<Pipeline>, 2> turn_, average_;  // by depth (8, 16 bits)
  std::array<std::array<VkDescriptorSet, 2>, 2> turn_sets_{};
  std::array<std::array<VkDescriptorSet, kMaxBatch>, 2> average_sets_{};  // made on first use
  std::array<std::unique_ptr<CommandBuffer>, 2> commands_;  // the pair's, the averages'
  bool deep_ = false;
  bool prepared_ = false;
  bool pair_pending_ = false;
};

}  // namespace

std::unique_ptr<Runtime> make_gpu_ensemble(std::shared_ptr<const Context> context,
                                           std::unique_ptr<VulkanRuntime> inner, int passes,
                                           bool profile) {
  return std::make_unique<GpuEnsemble>(std::move(context), std::move(inner), passes, profile);
}

}  // namespace framecast::vulkan
