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

}  // namespace
}  // namespace framecast::video
