// The element in GStreamer's check harness: frames of the project's test pattern (moving
// texture and a disc) pushed with their timestamps, the output's buffers inspected.
#include "element.hpp"

#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "frames.hpp"
#include "io/test_pattern.hpp"
#include "scenes.hpp"

namespace framecast {
namespace {

using gst::BufferPtr;

constexpr int W = 96, H = 64;  // RGB rows of 288 bytes: GStreamer's stride, no padding

// Frame n of a stream at num/den fps starts at this time.
GstClockTime at(int n, int num, int den = 1) {
  return gst_util_uint64_scale(guint64(n), GST_SECOND * guint64(den), guint64(num));
}

Frame moving(int k, int width = W, int height = H) {
  return io::test_pattern(width, height, 1.5f * float(k));
}

bool same(GstBuffer* buffer, const Frame& frame) {
  return gst_buffer_get_size(buffer) == frame.rgb8().size() &&
         gst_buffer_memcmp(buffer, 0, frame.rgb8().data(), frame.rgb8().size()) == 0;
}

// The element in a harness on the CPU with the small model.
class Harness {
 public:
  explicit Harness(const std::string& output_caps = "video/x-raw",
                   const std::string& properties = "") {
    // Only this element, registered here: no registry, no scan of the system's plugins.
    static const bool registered = [] {
      g_setenv("GST_REGISTRY_DISABLE", "yes", TRUE);
      gst_init(nullptr, nullptr);
      return gst_framecast_register(nullptr) != FALSE;
    }();
    EXPECT_TRUE(registered);
    h_ = gst_harness_new_parse(
        ("framecast backend=cpu model=slim large-motion=false " + properties).c_str());
    gst_harness_set_sink_caps_str(h_, output_caps.c_str());
  }
  ~Harness() { gst_harness_teardown(h_); }
  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;

  // Input caps (and a new segment from 0).
  void input(const std::string& rate, int width = W, int height = H) {
    gst_harness_set_src_caps(
        h_, gst_caps_from_string(("video/x-raw,format=RGB,width=" + std::to_string(width) +
                                  ",height=" + std::to_string(height) + ",framerate=" + rate)
                                     .c_str()));
  }

  GstFlowReturn push(const Frame& frame, GstClockTime pts, GstClockTime duration) {
    GstBuffer* buffer = gst_buffer_new_memdup(frame.rgb8().data(), frame.rgb8().size());
    GST_BUFFER_PTS(buffer) = pts;
    GST_BUFFER_DURATION(buffer) = duration;
    return gst_harness_push(h_, buffer);
  }
  void event(GstEvent* event) { EXPECT_TRUE(gst_harness_push_event(h_, event)); }
  void upstream(GstEvent* event) { EXPECT_TRUE(gst_harness_push_upstream_event(h_, event)); }
  // The buffers pushed since the last call.
  std::vector<BufferPtr> take() {
    std::vector<BufferPtr> out;
    while (GstBuffer* b = gst_harness_try_pull(h_)) out.emplace_back(b);
    return out;
  }
  GstHarness* get() { return h_; }
  // The output's negotiated rate, "num/den".
  std::string output_rate() const {
    GstCaps* caps = gst_pad_get_current_caps(h_->sinkpad);
    gint num = 0, den = 0;
    if (caps) gst_structure_get_fraction(gst_caps_get_structure(caps, 0), "framerate", &num, &den);
    if (caps) gst_caps_unref(caps);
    return std::to_string(num) + "/" + std::to_string(den);
  }

 private:
  GstHarness* h_;
};

// Pushes frames 0..count-1 of `frames` at 24 fps from `from`.
void push_24(Harness& h, int count, const std::function<Frame(int)>& frames,
             GstClockTime from = 0) {
  for (int k = 0; k < count; ++k)
    ASSERT_EQ(h.push(frames(k), from + at(k, 24), at(k + 1, 24) - at(k, 24)), GST_FLOW_OK);
}

// Exact times on the output grid at num/den fps from `from`, a duration on every buffer.
void expect_grid(const std::vector<BufferPtr>& out, int num, int den = 1, GstClockTime from = 0) {
  for (std::size_t n = 0; n < out.size(); ++n) {
    EXPECT_EQ(GST_BUFFER_PTS(out[n].get()), from + at(int(n), num, den)) << "frame " << n;
    EXPECT_EQ(GST_BUFFER_DURATION(out[n].get()), at(int(n) + 1, num, den) - at(int(n), num, den))
        << "frame " << n;
  }
}

TEST(GstElement, DoublesTheRateWithSourceFramesKeptAndFramesBetween) {
  Harness h;
  h.input("24/1");
  push_24(h, 12, [](int k) { return moving(k); });
  h.event(gst_event_new_eos());
  const auto out = h.take();
  EXPECT_EQ(h.output_rate(), "48/1");
  ASSERT_EQ(out.size(), 24u);  // the input's half second
  expect_grid(out, 48);
  EXPECT_TRUE(GST_BUFFER_FLAG_IS_SET(out[0].get(), GST_BUFFER_FLAG_DISCONT));
  EXPECT_FALSE(GST_BUFFER_FLAG_IS_SET(out[1].get(), GST_BUFFER_FLAG_DISCONT));
  for (int n = 0; n < 22; n += 2) {
    EXPECT_TRUE(same(out[n].get(), moving(n / 2))) << "frame " << n;
    EXPECT_FALSE(same(out[n + 1].get(), moving(n / 2)) || same(out[n + 1].get(), moving(n / 2 + 1)))
        << "frame " << n + 1;
  }
  EXPECT_TRUE(same(out[22].get(), moving(11)));
  EXPECT_TRUE(same(out[23].get(), moving(11)));  // the tail: the last frame lasts to its end
}

TEST(GstElement, NtscFilmToTheRateDownstreamAsksFor) {
  Harness h("video/x-raw,framerate=60000/1001");
  h.input("24000/1001");
  for (int k = 0; k < 10; ++k)
    ASSERT_EQ(h.push(moving(k), at(k, 24000, 1001), at(k + 1, 24000, 1001) - at(k, 24000, 1001)),
              GST_FLOW_OK);
  h.event(gst_event_new_eos());
  const auto out = h.take();
  EXPECT_EQ(h.output_rate(), "60000/1001");
  ASSERT_EQ(out.size(), 25u);  // 10 frames of 1001/24000 s at 60000/1001 fps
  expect_grid(out, 60000, 1001);
  for (int k = 0; k < 10; k += 2)
    EXPECT_TRUE(same(out[5 * k / 2].get(), moving(k))) << "source frame " << k;
}

TEST(GstElement, FactorUnlessDownstreamFixesTheRate) {
  {
    Harness h("video/x-raw", "factor=5/2");
    h.input("24/1");
    ASSERT_EQ(h.push(moving(0), 0, at(1, 24)), GST_FLOW_OK);
    EXPECT_EQ(h.output_rate(), "60/1");
  }
  Harness h("video/x-raw,framerate=30/1", "factor=5/2");
  h.input("24/1");
  ASSERT_EQ(h.push(moving(0), 0, at(1, 24)), GST_FLOW_OK);
  EXPECT_EQ(h.output_rate(), "30/1");
}

TEST(GstElement, VariableRateInputNeedsARateDownstream) {
  {
    Harness h;
    h.input("0/1");
    EXPECT_EQ(h.push(moving(0), 0, at(1, 24)), GST_FLOW_NOT_NEGOTIATED);
  }
  // Frames at irregular times: each output from its real position between them.
  Harness h("video/x-raw,framerate=50/1");
  h.input("0/1");
  const GstClockTime times[] = {0, 30 * GST_MSECOND, 100 * GST_MSECOND, 110 * GST_MSECOND,
                                200 * GST_MSECOND};
  for (int k = 0; k < 5; ++k)
    ASSERT_EQ(h.push(moving(k), times[k], k < 4 ? times[k + 1] - times[k] : 20 * GST_MSECOND),
              GST_FLOW_OK);
  h.event(gst_event_new_eos());
  const auto out = h.take();
  ASSERT_EQ(out.size(), 11u);  // 220 ms at 20 ms
  expect_grid(out, 50);
  EXPECT_TRUE(same(out[0].get(), moving(0)));
  EXPECT_TRUE(same(out[5].get(), moving(2)));   // 100 ms
  EXPECT_TRUE(same(out[10].get(), moving(4)));  // 200 ms
  EXPECT_FALSE(same(out[1].get(), moving(0)) ||
               same(out[1].get(), moving(1)));  // 20 ms: 2/3 of the way
}

TEST(GstElement, FlushingSeekStartsANewGridAtTheSegment) {
  Harness h;
  h.input("24/1");
  push_24(h, 6, [](int k) { return moving(k); });
  const std::size_t before = h.take().size();
  EXPECT_LT(before, 12u);  // frames held back for scene-cut decisions
  h.event(gst_event_new_flush_start());
  h.event(gst_event_new_flush_stop(TRUE));
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  segment.start = segment.time = 10 * GST_SECOND;
  h.event(gst_event_new_segment(&segment));
  push_24(
      h, 6, [](int k) { return moving(20 + k); }, 10 * GST_SECOND);
  h.event(gst_event_new_eos());
  const auto out = h.take();
  ASSERT_EQ(out.size(), 12u);  // nothing held from before the seek
  expect_grid(out, 48, 1, 10 * GST_SECOND);
  EXPECT_TRUE(GST_BUFFER_FLAG_IS_SET(out[0].get(), GST_BUFFER_FLAG_DISCONT));
  EXPECT_TRUE(same(out[0].get(), moving(20)));
}

TEST(GstElement, ReversePlaybackPassesSourceFramesAsTheyAre) {
  Harness h;
  h.input("24/1");
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  segment.rate = -1.0;
  segment.stop = at(6, 24);
  h.event(gst_event_new_segment(&segment));
  for (int k = 5; k >= 0; --k) ASSERT_EQ(h.push(moving(k), at(k, 24), at(1, 24)), GST_FLOW_OK);
  const auto out = h.take();
  ASSERT_EQ(out.size(), 6u);
  for (int k = 5; k >= 0; --k) {
    EXPECT_EQ(GST_BUFFER_PTS(out[5 - k].get()), at(k, 24));
    EXPECT_TRUE(same(out[5 - k].get(), moving(k)));
  }
}

TEST(GstElement, EosPushesTheHeldFramesAndTheLastFramesEnd) {
  Harness h;
  h.input("24/1");
  push_24(h, 8, [](int k) { return moving(k); });
  const std::size_t before = h.take().size();
  EXPECT_EQ(before, 11u);  // up to frame 5: the cut decision after it waits for frame 8
  h.event(gst_event_new_eos());
  const auto rest = h.take();
  ASSERT_EQ(before + rest.size(), 16u);
  EXPECT_TRUE(same(rest.back().get(), moving(7)));
  EXPECT_EQ(GST_BUFFER_PTS(rest.back().get()) + GST_BUFFER_DURATION(rest.back().get()), at(8, 24));
}

TEST(GstElement, SceneCutRepeatsTheFrameBeforeIt) {
  Harness h;
  h.input("24/1");
  push_24(h, 12,
          [](int k) { return k < 6 ? moving(k) : test::other_scene(W, H, 1.5f * float(k)); });
  h.event(gst_event_new_eos());
  const auto out = h.take();
  ASSERT_EQ(out.size(), 24u);
  EXPECT_TRUE(same(out[11].get(), moving(5)));  // between frames 5 and 6: no blend of two scenes
  EXPECT_TRUE(same(out[12].get(), test::other_scene(W, H, 9.0f)));
  EXPECT_FALSE(same(out[9].get(), moving(4)) || same(out[9].get(), moving(5)));  // blends elsewhere
  EXPECT_FALSE(same(out[13].get(), test::other_scene(W, H, 9.0f)) ||
               same(out[13].get(), test::other_scene(W, H, 10.5f)));
}

// Drawings 0, 2, ..., 10 on twos at 24 fps: with dedup=true each drawing keeps its time and
// three frames are made between each two, where without it every other output is a repeat.
TEST(GstElement, DedupInterpolatesAcrossRepeatedFrames) {
  const auto on_twos = [](int k) { return moving(k - k % 2); };
  for (const bool dedup : {false, true}) {
    Harness h("video/x-raw", dedup ? "dedup=true" : "");
    h.input("24/1");
    push_24(h, 12, on_twos);
    h.event(gst_event_new_eos());
    const auto out = h.take();
    ASSERT_EQ(out.size(), 24u);
    expect_grid(out, 48);
    EXPECT_EQ(same(out[2].get(), moving(0)), !dedup);  // the repeat, or a frame on the way
    if (!dedup) continue;
    for (int n = 0; n < 24; ++n) {
      const bool drawn = n % 4 == 0 || n > 20;  // and the last drawing to the end
      EXPECT_EQ(same(out[n].get(), moving(std::min(n / 4, 5) * 2)), drawn) << "frame " << n;
    }
  }
}

TEST(GstElement, QosDropsInterpolatedFramesNotSourceFrames) {
  Harness h;
  h.input("24/1");
  // The sink is 125 ms late at running time 0: frames up to 250 ms would come too late.
  h.upstream(
      gst_event_new_qos(GST_QOS_TYPE_UNDERFLOW, 0.5, GstClockTimeDiff(125 * GST_MSECOND), 0));
  push_24(h, 12, [](int k) { return moving(k); });
  h.event(gst_event_new_eos());
  const auto out = h.take();
  ASSERT_EQ(out.size(), 18u);  // 24 less the 6 frames between sources up to 250 ms
  for (int k = 0; k <= 6; ++k) {
    EXPECT_TRUE(same(out[k].get(), moving(k))) << "frame " << k;
    EXPECT_EQ(GST_BUFFER_PTS(out[k].get()), at(k, 24));
  }
  EXPECT_EQ(GST_BUFFER_PTS(out[7].get()), at(13, 48));  // interpolated frames again
  EXPECT_FALSE(same(out[7].get(), moving(6)) || same(out[7].get(), moving(7)));
}

TEST(GstElement, TheSameCapsAgainChangeNothing) {
  Harness h;
  h.input("24/1");
  push_24(h, 6, [](int k) { return moving(k); });
  GstCaps* caps = gst_pad_get_current_caps(h.get()->srcpad);
  h.event(gst_event_new_caps(caps));
  gst_caps_unref(caps);
  push_24(
      h, 6, [](int k) { return moving(6 + k); }, at(6, 24));
  h.event(gst_event_new_eos());
  const auto out = h.take();
  ASSERT_EQ(out.size(), 24u);
  expect_grid(out, 48);
  EXPECT_FALSE(same(out[11].get(), moving(5)) || same(out[11].get(), moving(6)));  // a blend
}

TEST(GstElement, CapsChangeMidStreamGoesOnAtTheNewSize) {
  Harness h;
  h.input("24/1");
  push_24(h, 6, [](int k) { return moving(k); });
  h.input("24/1", 64, 48);
  push_24(
      h, 6, [](int k) { return moving(6 + k, 64, 48); }, at(6, 24));
  h.event(gst_event_new_eos());
  const auto out = h.take();
  ASSERT_EQ(out.size(), 24u);
  expect_grid(out, 48);
  for (std::size_t n = 0; n < out.size(); ++n)
    EXPECT_EQ(gst_buffer_get_size(out[n].get()), n < 12 ? gsize(W * H * 3) : gsize(64 * 48 * 3))
        << "frame " << n;
  EXPECT_TRUE(same(out[11].get(), moving(5)));  // the old size's last frame lasts to its end
  EXPECT_TRUE(same(out[12].get(), moving(6, 64, 48)));
  EXPECT_FALSE(same(out[13].get(), moving(6, 64, 48)) || same(out[13].get(), moving(7, 64, 48)));
}

}  // namespace
}  // namespace framecast
