#include <gtest/gtest.h>

#include "framecast/error.hpp"
#include "video/segment.hpp"

namespace framecast::video {
namespace {

TEST(Segment, ParsesKOfN) {
  const Segment s = parse_segment("2/5", "--segment");
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 5);
  for (const char* bad : {"3/3", "0/0", "-1/3", "1", "1/", "/3", "a/3", "1/3x", "1 /3", ""}) {
    try {
      parse_segment(bad, "--segment");
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::invalid_argument) << bad;
      EXPECT_NE(std::string(e.what()).find("--segment must be K/N"), std::string::npos) << e.what();
    }
  }
}

TEST(Segment, PartsCoverEveryFrameOnce) {
  for (std::int64_t total : {1, 7, 48, 1000}) {
    for (std::int64_t n = 1; n <= std::min<std::int64_t>(total, 7); ++n) {
      std::int64_t next = 0;
      for (std::int64_t k = 0; k < n; ++k) {
        const FrameRange r = segment_frames({k, n}, total);
        EXPECT_EQ(r.begin, next) << total << " " << k << "/" << n;
        EXPECT_EQ(r.end.has_value(), k + 1 < n);  // the last part runs to the real end
        if (r.end) {
          EXPECT_GE(*r.end - r.begin, total / n);
          EXPECT_LE(*r.end - r.begin, total / n + 1);
          next = *r.end;
        }
      }
    }
  }
  const FrameRange middle = segment_frames({1, 3}, 48);
  EXPECT_EQ(middle.begin, 16);
  EXPECT_EQ(middle.end, 32);
  EXPECT_TRUE(middle.contains(16) && middle.contains(31));
  EXPECT_FALSE(middle.contains(15) || middle.contains(32));
  EXPECT_THROW(segment_frames({0, 4}, 3), Error);
}

TEST(Segment, FrameRangesAreBColonE) {
  EXPECT_EQ(parse_frame_range("16:32", "--frames").begin, 16);
  EXPECT_EQ(parse_frame_range("16:32", "--frames").end, 32);
  EXPECT_EQ(parse_frame_range("0:", "--frames").end, std::nullopt);
  for (const char* bad : {"", "16", "32:16", "16:16", "-1:4", "a:b", ":5", "1:2:3"}) {
    try {
      parse_frame_range(bad, "--frames");
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--frames must be B:E or B:"), std::string::npos) << e.what();
    }
  }
}

// Boundaries move to a cheap start (just after a key frame) within an eighth of a part of the
// equal split, stay in order with a frame each, and the last part runs to the end.
TEST(Segment, PlannedPartsMoveToNearbyCheapStarts) {
  const auto starts = [](const std::vector<FrameRange>& parts) {
    std::vector<std::int64_t> b;
    for (const FrameRange& p : parts) b.push_back(p.begin);
    return b;
  };
  // 4 parts of 1000: equal boundaries 250, 500, 750; reach 31 frames.
  EXPECT_EQ(starts(plan_parts(1000, 4, {})), (std::vector<std::int64_t>{0, 250, 500, 750}));
  EXPECT_EQ(starts(plan_parts(1000, 4, {240, 300, 530, 700, 760})),
            (std::vector<std::int64_t>{0, 240, 530, 760}));
  EXPECT_EQ(starts(plan_parts(1000, 4, {100, 900})), (std::vector<std::int64_t>{0, 250, 500, 750}));
  for (std::int64_t total : {3, 10, 97, 1000})
    for (std::int64_t n = 1; n <= std::min<std::int64_t>(total, 6); ++n) {
      const auto parts = plan_parts(total, n, {1, 2, 5, 20, 40, 41, 60, 500});
      ASSERT_EQ(parts.size(), std::size_t(n));
      EXPECT_EQ(parts.front().begin, 0);
      EXPECT_FALSE(parts.back().end.has_value());
      for (std::size_t k = 0; k + 1 < parts.size(); ++k) {
        EXPECT_EQ(parts[k].end, parts[k + 1].begin);
        EXPECT_GT(*parts[k].end, parts[k].begin);
      }
      EXPECT_LT(parts.back().begin, total);
    }
  EXPECT_THROW(plan_parts(3, 4, {}), Error);
}

}  // namespace
}  // namespace framecast::video
