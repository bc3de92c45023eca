#include "backends/vulkan/tuner.hpp"

#include <algorithm>
#include <cmath>

#include "backends/vulkan/buffers.hpp"
#include "backends/vulkan/commands.hpp"
#include "backends/vulkan/pipelines.hpp"
#include "framecast/error.hpp"

namespace framecast::vulkan {

// Register-blocked, 8 channels per thread, small slabs so that several workgroups share a
// multiprocessor: sound on every device measured so far; `framecast tune` finds better.
ConvChoice default_trunk_choice() { return {ConvKind::rb, 8, 8, 24}; }

std::vector<ConvChoice> conv_candidates(const DeviceCaps& caps, const ConvShape& shape) {
  std::vector<ConvChoice> out;
  auto add = [&](ConvChoice c) {
    if (conv_unfit(caps, shape, c).empty() && std::find(out.begin(), out.end(), c) == out.end())
      out.push_back(c);
  };
  for (int coc : {4, 8}) {
    for (int slab : {4, 8, 12, 16, 24}) {
      for (int ts : {18, 24}) {
        add({ConvKind::rb, coc, slab, ts});
        add({ConvKind::rb_subgroup, coc, slab, ts});
      }
    }
    for (int slab : {8, 16}) add({ConvKind::tiled, coc, slab, 18});
  }
  return out;
}

TuneOutcome tune_trunk_conv(std::shared_ptr<const Context> context, int width, int plane_w,
                            int plane_h, Storage storage, std::vector<ConvChoice> candidates,
                            const std::function<void(const TuneTiming&)>& progress) {
  const DeviceCaps& caps = context->caps();
  if (!caps.timestamps)
    throw Error(ErrorKind::unsupported, caps.name + " has no timestamp queries; cannot tune");
  if (storage == Storage::f16 && !caps.f16)
    throw Error(ErrorKind::unsupported, caps.name + " has no f16 arithmetic with 16-bit storage");
  const ConvShape shape{width, width, plane_w, plane_h, 1, true, false};
  if (candidates.empty()) candidates = conv_candidates(caps, shape);

  // Inputs of plausible magnitude: timings must not hit denormals or NaN paths.
  const std::size_t n = std::size_t(width) * plane_w * plane_h;
  const std::size_t sb = storage_bytes(storage);
  Buffer src(context, n * sb, MemoryUse::device), dst(context, n * sb, MemoryUse::device);
  Buffer weights(context, std::size_t(width) * width * 9 * sb, MemoryUse::device);
  Buffer bias(context, std::size_t(width) * 4, MemoryUse::device);
  Buffer alpha(context, std::size_t(width) * 4, MemoryUse::device);
  CommandPool pool(context);
  Timeline timeline(context);
  const std::uint32_t fill = storage == Storage::f16 ? 0x2e662e66u : 0x3dcccccdu;  // ~0.1
  run_now(context, pool, timeline, [&](CommandBuffer& cmd) {
    for (const Buffer* b : {&src, &weights, &bias, &alpha})
      vkCmdFillBuffer(cmd.handle(), b->handle(), 0, VK_WHOLE_SIZE,
                      b == &bias || b == &alpha ? 0x3dcccccdu : fill);
  });
  DescriptorPool sets(context, std::uint32_t(candidates.size()));
  CommandBuffer cmd(context, pool, 4);

  TuneOutcome outcome;
  outcome.key = TuneKey::make(caps, width, plane_w, plane_h, storage);
  outcome.device = caps.name;
  for (const ConvChoice& choice : candidates) {
    auto pipeline = make_conv(context, storage, shape, choice);
    const BufferRange ranges[] = {src.range(),  weights.range(), bias.range(),
                                  alpha.range(), dst.range(),     dst.range()};
    const VkDescriptorSet set = sets.allocate(*pipeline, ranges);
    // One dispatch estimates the cost; the timed batches then last about 20 ms of GPU time.
    auto batch = [&](int count) {
      cmd.begin(true);
      cmd.dispatch(*pipeline, set, conv_elements(shape));  // warm-up (first use compiles)
      cmd.mark("warm-up");
      for (int i = 0; i < count; ++i) cmd.dispatch(*pipeline, set, conv_elements(shape));
      cmd.mark("timed");
      cmd.end();
      CommandBuffer* const buffers[] = {&cmd};
      submit(*context, timeline, buffers);
      timeline.wait(cmd.signal_value());
      return cmd.stage_times().back().ms / count;
    };
    const double estimate = std::max(batch(1), 1e-3);
    const int count = std::clamp(int(std::ceil(20.0 / estimate)), 2, 50);
    const TuneTiming timing{choice, std::min(batch(count), batch(count))};
    outcome.timings.push_back(timing);
    if (choice == fit_conv(caps, shape, default_trunk_choice())) outcome.fallback = timing;
    if (progress) progress(timing);
  }
  std::sort(outcome.timings.begin(), outcome.timings.end(),
            [](const TuneTiming& a, const TuneTiming& b) { return a.ms < b.ms; });
  outcome.best = outcome.timings.front();
  return outcome;
}

}  // namespace framecast::vulkan
