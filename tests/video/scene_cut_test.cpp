#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "framecast/error.hpp"
#include "io/image.hpp"
#include "io/test_pattern.hpp"
#include "scenes.hpp"
#include "video/scene_cut.hpp"
#include "video/source.hpp"

namespace framecast::video {
namespace {

constexpr int W = 160, H = 90;

Frame other_scene(float shift) { return test::other_scene(W, H, shift); }

// gain * frame + offset, clipped: fades (gain < 1) and flashes (saturating).
Frame lit(const Frame& f, float gain, float offset = 0.0f) {
  Frame out(f.width(), f.height());
  for (std::size_t i = 0; i < f.sample_count(); ++i)
    out.rgb8()[i] = std::uint8_t(std::clamp(gain * float(f.rgb8()[i]) + offset, 0.0f, 255.0f) + 0.5f);
  return out;
}

Frame mix(const Frame& a, const Frame& b, float w) {
  Frame out(a.width(), a.height());
  for (std::size_t i = 0; i < a.sample_count(); ++i)
    out.rgb8()[i] = std::uint8_t((1.0f - w) * float(a.rgb8()[i]) + w * float(b.rgb8()[i]) + 0.5f);
  return out;
}

// The pairs k (between frame k and k+1) the detector calls cuts, deciding as a pipeline does.
std::vector<std::int64_t> cuts_in(const std::vector<Frame>& frames,
                                  double threshold = default_scene_threshold) {
  SceneCutDetector detector(threshold);
  std::vector<std::int64_t> cuts;
  std::int64_t next_pair = 0;
  for (const Frame& f : frames) {
    detector.add(f);
    for (; next_pair + SceneCutDetector::span < detector.frames_added(); ++next_pair)
      if (detector.cut_between(next_pair)) cuts.push_back(next_pair);
  }
  for (; next_pair + 1 < detector.frames_added(); ++next_pair)
    if (detector.cut_between(next_pair)) cuts.push_back(next_pair);
  return cuts;
}

std::vector<Frame> moving(int count, float from = 0.0f) {
  std::vector<Frame> frames;
  for (int i = 0; i < count; ++i) frames.push_back(io::test_pattern(W, H, from + 1.5f * float(i)));
  return frames;
}

// Each thumbnail pixel is the mean Rec. 709 luma of the frame pixels that fall in its cell
// (the thumbnail's weights are whole 65536ths of Rec. 709's, ~1e-5 of full scale off).
TEST(SceneCut, ThumbnailIsTheMeanLumaOfEachCell) {
  for (const auto& [w, h] : {std::pair{1921, 1083}, std::pair{57, 31}, std::pair{40, 7}}) {
    for (const SampleDepth depth : {SampleDepth::u8, SampleDepth::u16}) {
      const Frame f = io::test_pattern(w, h, 3.0f).converted(depth);
      const Thumbnail t = make_thumbnail(f);
      ASSERT_EQ(t.width, std::min(56, w));
      std::vector<double> sums(t.luma.size(), 0.0);
      std::vector<int> counts(t.luma.size(), 0);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const std::size_t i = (std::size_t(y) * w + x) * 3;
          const std::size_t cell =
              std::size_t(y) * t.height / h * t.width + std::size_t(x) * t.width / w;
          sums[cell] += (0.2126 * f.sample(i) + 0.7152 * f.sample(i + 1) + 0.0722 * f.sample(i + 2)) /
                        f.max_value();
          counts[cell] += 1;
        }
      for (std::size_t i = 0; i < sums.size(); ++i)
        ASSERT_NEAR(t.luma[i], sums[i] / counts[i], 2e-5) << w << "x" << h << " cell " << i;
    }
  }
}

TEST(SceneCut, IdenticalFramesScoreZeroAndDifferentScenesScoreHigh) {
  const Thumbnail a = make_thumbnail(io::test_pattern(W, H, 0.0f));
  EXPECT_NEAR(scene_change(a, a), 0.0, 1e-5);  // float rounding in the correlation
  EXPECT_GT(scene_change(a, make_thumbnail(other_scene(0.0f))), 0.3);
  // Brightness and contrast changes are not structure changes.
  EXPECT_LT(scene_change(a, make_thumbnail(lit(io::test_pattern(W, H, 0.0f), 0.5f, 20.0f))), 0.02);
}

TEST(SceneCut, MotionIsNoCut) { EXPECT_TRUE(cuts_in(moving(12)).empty()); }

TEST(SceneCut, AHardCutIsFoundWhereItIs) {
  std::vector<Frame> frames = moving(5);
  for (int i = 0; i < 5; ++i) frames.push_back(other_scene(1.5f * float(i)));
  EXPECT_EQ(cuts_in(frames), std::vector<std::int64_t>{4});
}

TEST(SceneCut, CutsNearTheEndsOfTheStreamAreFound) {
  std::vector<Frame> frames = {io::test_pattern(W, H, 0.0f), other_scene(0.0f), other_scene(1.5f)};
  EXPECT_EQ(cuts_in(frames), std::vector<std::int64_t>{0});
  frames = {io::test_pattern(W, H, 0.0f), io::test_pattern(W, H, 1.5f), other_scene(0.0f)};
  EXPECT_EQ(cuts_in(frames), std::vector<std::int64_t>{1});
}

TEST(SceneCut, FadesThroughBlackAreNoCut) {
  std::vector<Frame> frames;
  const auto a = moving(11);
  for (int i = 0; i <= 10; ++i) frames.push_back(lit(a[i], 1.0f - 0.1f * float(i)));  // fade out
  for (int i = 0; i <= 10; ++i) frames.push_back(lit(other_scene(1.5f * float(i)), 0.1f * float(i)));  // in
  EXPECT_TRUE(cuts_in(frames).empty());
}

TEST(SceneCut, CrossDissolvesAreNoCut) {
  std::vector<Frame> frames;
  for (int i = 0; i <= 12; ++i)
    frames.push_back(mix(io::test_pattern(W, H, 1.5f * float(i)), other_scene(1.5f * float(i)), float(i) / 12.0f));
  EXPECT_TRUE(cuts_in(frames).empty());
}

TEST(SceneCut, FlashesOfOneOrTwoFramesAreNoCut) {
  for (int length : {1, 2}) {
    std::vector<Frame> frames = moving(12);
    for (int i = 5; i < 5 + length; ++i) frames[i] = lit(frames[i], 5.0f, 40.0f);  // saturating
    // The flash alone looks like a cut; that the picture comes back is what tells.
    ASSERT_GT(scene_change(make_thumbnail(frames[4]), make_thumbnail(frames[5])), default_scene_threshold);
    EXPECT_TRUE(cuts_in(frames).empty()) << length << "-frame flash";
  }
}

TEST(SceneCut, FlatFramesAreNoCut) {
  std::vector<Frame> frames = moving(3);
  frames.push_back(Frame(W, H));  // black
  frames.push_back(Frame(W, H));
  const auto more = moving(3, 30.0f);
  frames.insert(frames.end(), more.begin(), more.end());
  EXPECT_TRUE(cuts_in(frames).empty());
}

TEST(SceneCut, ThresholdMustBeInRange) {
  EXPECT_THROW(SceneCutDetector(0.0), Error);
  EXPECT_THROW(SceneCutDetector(1.5), Error);
  EXPECT_NO_THROW(SceneCutDetector(1.0));
}

TEST(SceneCut, SixteenBitFramesScoreLikeEightBit) {
  const Frame a = io::test_pattern(W, H, 0.0f), b = io::test_pattern(W, H, 3.0f);
  EXPECT_NEAR(scene_change(make_thumbnail(a), make_thumbnail(b)),
              scene_change(make_thumbnail(a.converted(SampleDepth::u16)),
                           make_thumbnail(b.converted(SampleDepth::u16))),
              1e-4);
}

// Real footage: the calibration set of the default threshold (skipped without ../shared/data).
std::vector<std::vector<Frame>> davis_sequences() {
  const auto root = std::filesystem::path(FRAMECAST_SHARED_DATA) / "val" / "davis";
  std::vector<std::filesystem::path> dirs;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(root, ec)) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  std::vector<std::vector<Frame>> sequences;
  for (const auto& dir : dirs) {
    std::vector<Frame> frames;
    for (int i = 0; i < 3; ++i) frames.push_back(io::read_image(dir / ("frame" + std::to_string(i) + ".png")));
    if (sequences.empty() || (frames[0].width() == sequences[0][0].width() &&
                              frames[0].height() == sequences[0][0].height()))
      sequences.push_back(std::move(frames));
  }
  return sequences;
}

TEST(SceneCut, RealFootageCutsAreFoundAndMotionIsNot) {
  const auto sequences = davis_sequences();
  if (sequences.size() < 2) GTEST_SKIP() << "no DAVIS triplets in " << FRAMECAST_SHARED_DATA;
  for (std::size_t i = 0; i < sequences.size(); ++i) {
    const auto& a = sequences[i];
    const auto& b = sequences[(i + 1) % sequences.size()];
    std::vector<Frame> frames = {a[0], a[1], a[2], b[0], b[1], b[2]};
    EXPECT_EQ(cuts_in(frames), std::vector<std::int64_t>{2}) << "sequences " << i;
  }
}

TEST(SceneCut, RealClipsHaveNoCuts) {
  const auto dir = std::filesystem::path(FRAMECAST_SHARED_DATA) / "clips";
  int clips = 0;
  for (const char* name : {"bus_352x288.y4m", "park_joy_90p_8_420.y4m"}) {
    if (!std::filesystem::exists(dir / name)) continue;
    ++clips;
    VideoSource source((dir / name).string(), true, [](const std::string&) {});
    std::vector<Frame> frames;
    while (auto f = source.next([](AVPacket&) {})) frames.push_back(std::move(f->image));
    EXPECT_TRUE(cuts_in(frames).empty()) << name;
  }
  if (clips == 0) GTEST_SKIP() << "no clips in " << dir;
}

}  // namespace
}  // namespace framecast::video
