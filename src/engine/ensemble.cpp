#include "engine/ensemble.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "framecast/error.hpp"

namespace framecast {
namespace {

constexpr std::array<EnsemblePass, 4> kFourPasses = {
    {{false, false}, {true, false}, {false, true}, {true, true}}};
constexpr std::array<EnsemblePass, 2> kTwoPasses = {{{false, false}, {true, true}}};

// Row y of a frame turned by 180 degrees is row height - 1 - y with its pixels reversed.
template <typename Sample>
void turn_row(const Sample* src, int width, Sample* dst) {
  for (int x = 0; x < width; ++x)
    for (int c = 0; c < 3; ++c) dst[x * 3 + c] = src[(width - 1 - x) * 3 + c];
}

Frame turned(const Frame& frame) {
  Frame out(frame.width(), frame.height(), frame.depth());
  const int w = frame.width(), h = frame.height();
  const std::size_t row = std::size_t(w) * 3;
#pragma omp parallel for
  for (int y = 0; y < h; ++y) {
    const std::size_t from = std::size_t(h - 1 - y) * row, to = std::size_t(y) * row;
    if (frame.depth() == SampleDepth::u8) {
      turn_row(frame.rgb8().data() + from, w, out.rgb8().data() + to);
    } else {
      turn_row(frame.rgb16().data() + from, w, out.rgb16().data() + to);
    }
  }
  return out;
}

// The mean of the passes' frames (2 or 4), rounded to nearest, each turned back where its
// pass was turned. Row by row, in plain loops the compiler vectorises.
template <typename Sample>
void average(const std::vector<const Sample*>& frames, std::span<const EnsemblePass> passes,
             int width, int height, Sample* out) {
  const std::size_t row = std::size_t(width) * 3;
  const int shift = frames.size() == 2 ? 1 : 2;  // (2 sum + n) / 2n = (sum + n / 2) >> log2 n
  const std::uint32_t half = std::uint32_t(frames.size()) / 2;
#pragma omp parallel
  {
    std::vector<std::uint32_t> sum(row);
    std::vector<Sample> turned_row(row);
#pragma omp for
    for (int y = 0; y < height; ++y) {
      std::fill(sum.begin(), sum.end(), half);
      for (std::size_t p = 0; p < frames.size(); ++p) {
        const Sample* src = frames[p] + std::size_t(passes[p].turned ? height - 1 - y : y) * row;
        if (passes[p].turned) {
          turn_row(src, width, turned_row.data());
          for (std::size_t k = 0; k < row; ++k) sum[k] += turned_row[k];
        } else {
          for (std::size_t k = 0; k < row; ++k) sum[k] += src[k];
        }
      }
      Sample* dst = out + std::size_t(y) * row;
      for (std::size_t k = 0; k < row; ++k) dst[k] = static_cast<Sample>(sum[k] >> shift);
    }
  }
}

class EnsembleRuntime final : public Runtime {
 public:
  EnsembleRuntime(std::unique_ptr<Runtime> inner, int passes, bool profile)
      : Runtime(inner->width(), inner->height()),
        inner_(std::move(inner)),
        passes_(ensemble_passes(passes)),
        times_(profile) {}

  // The passes run in mids(): each prepares its own pair on the inner runtime, so the pair
  // is kept here as given and turned.
  void prepare_pair(const Frame& frame0, const Frame& frame1) override {
    check_pair(frame0, frame1);
    pair_ = {frame0, frame1};
    turned_pair_ = {turned(frame0), turned(frame1)};
  }

  void prepare_next(const Frame& next) override {
    check_next(next, !pair_[1].empty(), pair_[1].depth());
    pair_ = {std::move(pair_[1]), next};
    turned_pair_ = {std::move(turned_pair_[1]), turned(next)};
  }

  Frame mid(float t) override { return mids({&t, 1}).front(); }

  std::vector<Frame> mids(std::span<const float> ts) override {
    std::vector<std::vector<Frame>> runs;  // runs[pass][mid]
    times_.restart();
    for (std::size_t p = 0; p < passes_.size(); ++p) {
      const EnsemblePass pass = passes_[p];
      const auto& pair = pass.turned ? turned_pair_ : pair_;
      inner_->prepare_pair(pair[pass.reversed ? 1 : 0], pair[pass.reversed ? 0 : 1]);
      runs.push_back(inner_->mids(pass_ts(pass, ts)));
      times_.add_pass(p, *inner_);
    }
    const auto start = std::chrono::steady_clock::now();
    std::vector<Frame> out;
    for (std::size_t m = 0; m < ts.size(); ++m) {
      Frame& frame = out.emplace_back(width(), height(), pair_[0].depth());
      if (frame.depth() == SampleDepth::u8) {
        std::vector<const std::uint8_t*> frames;
        for (const auto& run : runs) frames.push_back(run[m].rgb8().data());
        average(frames, passes_, width(), height(), frame.rgb8().data());
      } else {
        std::vector<const std::uint16_t*> frames;
        for (const auto& run : runs) frames.push_back(run[m].rgb16().data());
        average(frames, passes_, width(), height(), frame.rgb16().data());
      }
    }
    const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
    times_.add_host_stage("ensemble_average", ms.count());
    return out;
  }

  std::vector<StageTime> last_profile() const override { return times_.stages(); }
  // Every pass's device time, where the inner runtime measures it.
  double last_device_ms() const override { return times_.device_ms(); }
  std::vector<std::string> warnings() const override { return inner_->warnings(); }

  std::string describe() const override {
    return inner_->describe() + ", ensemble of " + std::to_string(passes_.size()) + " passes";
  }

 private:
  std::unique_ptr<Runtime> inner_;
  std::span<const EnsemblePass> passes_;
  EnsembleTimes times_;
  std::array<Frame, 2> pair_, turned_pair_;
};

}  // namespace

bool valid_ensemble(int passes) { return passes == 1 || passes == 2 || passes == 4; }

std::span<const EnsemblePass> ensemble_passes(int passes) {
  if (passes == 2) return kTwoPasses;
  if (passes == 4) return kFourPasses;
  throw Error(ErrorKind::invalid_argument,
              "an ensemble of " + std::to_string(passes) + " passes: 2 or 4 are supported");
}

std::vector<float> pass_ts(const EnsemblePass& pass, std::span<const float> ts) {
  std::vector<float> out(ts.begin(), ts.end());
  if (pass.reversed)
    for (float& t : out) t = 1.0f - t;
  return out;
}

void EnsembleTimes::restart() {
  device_ms_ = 0.0;
  stages_.clear();
}

void EnsembleTimes::add(double device_ms, const std::vector<StageTime>& stages,
                        const std::string& prefix) {
  device_ms_ = device_ms_ < 0.0 || device_ms < 0.0 ? -1.0 : device_ms_ + device_ms;
  if (profile_)
    for (const auto& s : stages) stages_.push_back({prefix + s.stage, s.ms});
}

void EnsembleTimes::add_pass(std::size_t p, const Runtime& inner) {
  add(inner.last_device_ms(), inner.last_profile(), "pass" + std::to_string(p + 1) + ".");
}

void EnsembleTimes::add_host_stage(const std::string& stage, double ms) {
  if (profile_) stages_.push_back({stage, ms});
}

std::unique_ptr<Runtime> make_ensemble_runtime(std::unique_ptr<Runtime> inner, int passes,
                                               bool profile) {
  return std::make_unique<EnsembleRuntime>(std::move(inner), passes, profile);
}

}  // namespace framecast
