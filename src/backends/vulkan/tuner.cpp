#include "backends/vulkan/tuner.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "backends/vulkan/buffers.hpp"
#include "backends/vulkan/commands.hpp"
#include "backends/vulkan/pipelines.hpp"
#include "engine/cancelled.hpp"
#include "engine/round_up.hpp"
#include "framecast/error.hpp"

namespace framecast::vulkan {
namespace {

// A variant whose output differs more than this from the reference kernel's is broken.
constexpr double kMaxNmse = 1e-4;

double nmse(const std::vector<float>& got, const std::vector<float>& want) {
  double num = 0.0, den = 0.0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (!std::isfinite(got[i])) return INFINITY;
    num += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
    den += double(want[i]) * want[i];
  }
  return den > 0.0 ? num / den : num;
}

}  // namespace

// Register-blocked, 8 channels per thread, small slabs so that several workgroups share a
// multiprocessor: sound on every device measured so far; `framecast tune` finds better.
ConvChoice default_trunk_choice(const DeviceCaps& caps, const ConvShape& shape, Storage storage) {
  // Tensor cores where they fit, at the blocks the tuner picked on the H100 and the H200 for
  // every shipped trunk (48 channels for C2 240 and 96, 64 for C2 64). Untuned, the SIMT
  // kernel was 4.3-6.9x slower there, which made an untuned `quality` 2.5x slower.
  const ConvChoice simt{ConvKind::rb, 8, 8, 24};
  return fit_conv(caps, shape, coop_conv_or(caps, storage, shape, simt, {48, 64, 80, 32, 16}),
                  storage);
}

std::vector<TrunkProblem> trunk_problems(const ModelShape& shape, int w, int h) {
  std::vector<TrunkProblem> problems;
  auto add = [&](const TrunkProblem& p) {
    if (std::find(problems.begin(), problems.end(), p) == problems.end()) problems.push_back(p);
  };
  const int pw = round_up(w, 16), ph = round_up(h, 16);
  add({shape.c2, pw / 16, ph / 16});
  for (const RefinementBlock& b : shape.blocks)
    add({b.c2, pw / (4 * b.scale), ph / (4 * b.scale)});
  // the large-motion pass: block0 at 1/8 of the frames padded to 32
  add({shape.c2, round_up(w, 32) / 32, round_up(h, 32) / 32});
  return problems;
}

std::vector<ConvChoice> conv_candidates(const DeviceCaps& caps, const ConvShape& shape,
                                        Storage storage) {
  std::vector<ConvChoice> out;
  auto add = [&](ConvChoice c) {
    if (conv_unfit(caps, shape, c, storage).empty() &&
        std::find(out.begin(), out.end(), c) == out.end())
      out.push_back(c);
  };
  for (ConvKind kind : {ConvKind::coop, ConvKind::coop_global})
    for (int co : {16, 32, 48, 64, 80})
      for (int rows : {1, 2})
        for (int n : {16, 8}) add({kind, co, rows, n});
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
                            const std::function<void(const TuneTiming&)>& progress,
                            const std::function<bool()>& cancelled) {
  const DeviceCaps& caps = context->caps();
  if (!caps.timestamps)
    throw Error(ErrorKind::unsupported, caps.name + " has no timestamp queries; cannot tune");
  if (storage == Storage::f16 && !caps.f16)
    throw Error(ErrorKind::unsupported, caps.name + " has no f16 arithmetic with 16-bit storage");
  const ConvShape shape{width, width, plane_w, plane_h, 1, true, true};
  if (candidates.empty()) candidates = conv_candidates(caps, shape, storage);

  // Random data of trained-model magnitudes, the same for every variant.
  const std::size_t n = std::size_t(width) * plane_w * plane_h;
  std::mt19937 rng(7);
  auto random = [&](std::size_t count, float scale) {
    std::uniform_real_distribution<float> dist(-scale, scale);
    std::vector<float> v(count);
    for (auto& x : v) x = dist(rng);
    return v;
  };
  const auto src_values = random(n, 1.0f), residual_values = random(n, 1.0f);
  const auto weight_values = random(std::size_t(width) * width * 9, 1.0f / std::sqrt(9.0f * float(width)));
  const auto bias_values = random(std::size_t(width), 0.1f);
  std::vector<float> alpha_values(std::size_t(width), 0.25f);

  CommandPool pool(context);
  Timeline timeline(context);
  auto upload = [&](const std::vector<unsigned char>& bytes) {
    Buffer device(context, bytes.size(), MemoryUse::device);
    Buffer staging(context, bytes.size(), MemoryUse::upload);
    staging.write(bytes.data(), bytes.size());
    run_now(context, pool, timeline,
            [&](CommandBuffer& cmd) { cmd.copy(staging.handle(), device.handle(), bytes.size()); });
    return device;
  };
  const Buffer src = upload(encode_values(src_values, storage));
  const Buffer residual = upload(encode_values(residual_values, storage));
  const Buffer bias = upload(encode_values(bias_values, Storage::f32));
  const Buffer alpha = upload(encode_values(alpha_values, Storage::f32));
  Buffer dst(context, n * storage_bytes(storage), MemoryUse::device);
  Buffer readback(context, n * storage_bytes(storage), MemoryUse::readback);
  DescriptorPool sets(context, std::uint32_t(candidates.size() + 1));

  // Runs `choice` once and returns its output.
  struct Prepared {
    std::unique_ptr<Pipeline> pipeline;
    Buffer weights;
    VkDescriptorSet set;
  };
  auto prepare = [&](const ConvChoice& choice) {
    Prepared p;
    p.pipeline = make_conv(context, storage, shape, choice);
    p.weights = upload(encode_values(pack_conv_weights(weight_values, shape, choice), storage));
    const BufferRange ranges[] = {src.range(), p.weights.range(), bias.range(),
                                  alpha.range(), dst.range(),      residual.range()};
    p.set = sets.allocate(*p.pipeline, ranges);
    return p;
  };
  auto output = [&](const Prepared& p) {
    run_now(context, pool, timeline, [&](CommandBuffer& c) {
      c.dispatch(*p.pipeline, p.set, conv_elements(shape));
      c.copy(dst.handle(), readback.handle(), dst.size());
    });
    std::vector<unsigned char> bytes(dst.size());
    readback.read(bytes.data(), bytes.size());
    return decode_values(bytes, n, storage);
  };
  const Prepared reference_kernel = prepare(fit_conv(caps, shape, {ConvKind::tiled, 4, 8, 18}, storage));
  const auto reference = output(reference_kernel);

  // The device time of `count` dispatches of each prepared kernel, in one command buffer so
  // that the GPU never idles (and drops its clocks) between candidates.
  auto time_all = [&](const std::vector<const Prepared*>& kernels, const std::vector<int>& counts) {
    CommandBuffer cmd(context, pool, std::uint32_t(kernels.size() + 2));
    cmd.begin(true);
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      for (int r = 0; r < counts[i]; ++r)
        cmd.dispatch(*kernels[i]->pipeline, kernels[i]->set, conv_elements(shape));
      cmd.mark(std::to_string(i));
    }
    cmd.end();
    CommandBuffer* const buffers[] = {&cmd};
    submit(*context, timeline, buffers);
    timeline.wait(cmd.signal_value());
    std::vector<double> ms;
    const auto stages = cmd.stage_times();
    for (std::size_t i = 0; i < kernels.size(); ++i) ms.push_back(stages[i].ms / counts[i]);
    return ms;
  };

  // Build and check every candidate, with a rough cost to size its timed batch.
  TuneOutcome outcome;
  outcome.key = TuneKey::make(caps, width, plane_w, plane_h, storage);
  outcome.device = caps.name;
  std::vector<Prepared> prepared;
  std::vector<int> counts;
  for (const ConvChoice& choice : candidates) {
    throw_if_cancelled(cancelled);
    prepared.push_back(prepare(choice));
    TuneTiming timing;
    timing.choice = choice;
    timing.kernel = prepared.back().pipeline->statistics();
    timing.nmse = nmse(output(prepared.back()), reference);
    timing.correct = timing.nmse <= kMaxNmse;
    const double estimate = std::max(time_all({&prepared.back()}, {1}).front(), 1e-3);
    counts.push_back(std::clamp(int(std::ceil(5.0 / estimate)), 2, 50));
    outcome.timings.push_back(timing);
  }
  // Warm the GPU up (about 200 ms of work), then time everything twice, forwards and
  // backwards, keeping each candidate's best: clock changes then hit all alike.
  throw_if_cancelled(cancelled);
  const double reference_ms = std::max(time_all({&reference_kernel}, {2}).front(), 1e-3);
  time_all({&reference_kernel}, {std::clamp(int(200.0 / reference_ms), 2, 2000)});
  std::vector<const Prepared*> order;
  for (const auto& p : prepared) order.push_back(&p);
  throw_if_cancelled(cancelled);
  const auto forwards = time_all(order, counts);
  throw_if_cancelled(cancelled);
  std::reverse(order.begin(), order.end());
  std::vector<int> reversed_counts(counts.rbegin(), counts.rend());
  const auto backwards = time_all(order, reversed_counts);
  for (std::size_t i = 0; i < outcome.timings.size(); ++i) {
    TuneTiming& t = outcome.timings[i];
    t.ms = std::min(forwards[i], backwards[outcome.timings.size() - 1 - i]);
    if (t.choice == default_trunk_choice(caps, shape, storage)) outcome.fallback = t;
    if (progress) progress(t);
  }
  std::stable_sort(outcome.timings.begin(), outcome.timings.end(),
                   [](const TuneTiming& a, const TuneTiming& b) {
                     return a.correct != b.correct ? a.correct : a.ms < b.ms;
                   });
  if (outcome.timings.empty() || !outcome.timings.front().correct)
    throw Error(ErrorKind::device, "no conv variant gave correct results on " + caps.name);
  outcome.best = outcome.timings.front();
  return outcome;
}

}  // namespace framecast::vulkan
