#include "engine/ensemble.hpp"

#include <array>
#include <span>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace framecast {
namespace {

struct Pass {
  bool turned;    // both frames turned by 180 degrees, the result turned back
  bool reversed;  // frame1 first, at 1 - t
};

constexpr std::array<Pass, 4> kFourPasses = {{{false, false}, {true, false}, {false, true}, {true, true}}};
constexpr std::array<Pass, 2> kTwoPasses = {{{false, false}, {true, true}}};

// Pixel i of n of `src`, turned by 180 degrees, is pixel n - 1 - i of `dst`.
template <typename Sample>
void turn(std::span<const Sample> src, std::span<Sample> dst) {
  const std::size_t pixels = src.size() / 3;
#pragma omp parallel for
  for (std::size_t i = 0; i < pixels; ++i)
    for (std::size_t c = 0; c < 3; ++c) dst[(pixels - 1 - i) * 3 + c] = src[i * 3 + c];
}

Frame turned(const Frame& frame) {
  Frame out(frame.width(), frame.height(), frame.depth());
  if (frame.depth() == SampleDepth::u8) {
    turn(frame.rgb8(), out.rgb8());
  } else {
    turn(frame.rgb16(), out.rgb16());
  }
  return out;
}

// Adds a pass's frame to the sums (or starts them with it), turned back where the pass was
// turned.
template <typename Sample>
void accumulate(std::span<const Sample> v, bool turned_pass, bool first, std::vector<std::uint32_t>& sum) {
  const std::size_t pixels = v.size() / 3;
#pragma omp parallel for
  for (std::size_t i = 0; i < pixels; ++i) {
    const std::size_t to = turned_pass ? pixels - 1 - i : i;
    for (std::size_t c = 0; c < 3; ++c) {
      const std::uint32_t x = v[i * 3 + c];
      sum[to * 3 + c] = first ? x : sum[to * 3 + c] + x;
    }
  }
}

// The mean of `passes` frames from their sums, rounded to nearest.
template <typename Sample>
void average(const std::vector<std::uint32_t>& sum, std::uint32_t passes, std::span<Sample> out) {
  const std::size_t n = sum.size();
#pragma omp parallel for
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<Sample>((2 * sum[i] + passes) / (2 * passes));
}

class EnsembleRuntime final : public Runtime {
 public:
  EnsembleRuntime(std::unique_ptr<Runtime> inner, int passes, bool profile)
      : Runtime(inner->width(), inner->height()),
        inner_(std::move(inner)),
        passes_(passes == 2 ? std::vector<Pass>(kTwoPasses.begin(), kTwoPasses.end())
                            : std::vector<Pass>(kFourPasses.begin(), kFourPasses.end())),
        profile_(profile) {}

  // The passes run in mids(): each prepares its own pair on the inner runtime, so the pair
  // is kept here as given and turned.
  void prepare_pair(const Frame& frame0, const Frame& frame1) override {
    check_pair(frame0, frame1);
    pair_ = {frame0, frame1};
    turned_pair_ = {turned(frame0), turned(frame1)};
  }

  Frame mid(float t) override { return mids({&t, 1}).front(); }

  std::vector<Frame> mids(std::span<const float> ts) override {
    const std::size_t samples = std::size_t(width()) * height() * 3;
    sums_.resize(ts.size());
    for (auto& sum : sums_) sum.resize(samples);
    stages_.clear();
    for (std::size_t p = 0; p < passes_.size(); ++p) {
      const Pass pass = passes_[p];
      const auto& pair = pass.turned ? turned_pair_ : pair_;
      std::vector<float> pass_ts(ts.begin(), ts.end());
      if (pass.reversed) {
        inner_->prepare_pair(pair[1], pair[0]);
        for (float& t : pass_ts) t = 1.0f - t;
      } else {
        inner_->prepare_pair(pair[0], pair[1]);
      }
      const auto frames = inner_->mids(pass_ts);
      for (std::size_t m = 0; m < ts.size(); ++m) {
        if (frames[m].depth() == SampleDepth::u8) {
          accumulate(frames[m].rgb8(), pass.turned, p == 0, sums_[m]);
        } else {
          accumulate(frames[m].rgb16(), pass.turned, p == 0, sums_[m]);
        }
      }
      if (profile_)
        for (const auto& s : inner_->last_profile())
          stages_.push_back({"pass" + std::to_string(p + 1) + "." + s.stage, s.ms});
    }
    const auto start = std::chrono::steady_clock::now();
    std::vector<Frame> out;
    const auto passes = std::uint32_t(passes_.size());
    for (std::size_t m = 0; m < ts.size(); ++m) {
      Frame& frame = out.emplace_back(width(), height(), pair_[0].depth());
      if (frame.depth() == SampleDepth::u8) {
        average(sums_[m], passes, frame.rgb8());
      } else {
        average(sums_[m], passes, frame.rgb16());
      }
    }
    const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
    if (profile_) stages_.push_back({"ensemble_average", ms.count()});
    return out;
  }

  std::vector<StageTime> last_profile() const override { return stages_; }

  std::string describe() const override {
    return inner_->describe() + ", ensemble of " + std::to_string(passes_.size()) + " passes";
  }

 private:
  std::unique_ptr<Runtime> inner_;
  std::vector<Pass> passes_;
  bool profile_;
  std::array<Frame, 2> pair_, turned_pair_;
  std::vector<std::vector<std::uint32_t>> sums_;  // per mid, kept between pairs
  std::vector<StageTime> stages_;
};

}  // namespace

bool valid_ensemble(int passes) { return passes == 1 || passes == 2 || passes == 4; }

std::unique_ptr<Runtime> make_ensemble_runtime(std::unique_ptr<Runtime> inner, int passes,
                                               bool profile) {
  return std::make_unique<EnsembleRuntime>(std::move(inner), passes, profile);
}

}  // namespace framecast
