#include <gtest/gtest.h>

#include "framecast/error.hpp"
#include "video/rational.hpp"

namespace framecast::video {
namespace {

TEST(Rational, NormalisesToLowestTermsWithPositiveDenominator) {
  EXPECT_EQ(Rational(2, 4), Rational(1, 2));
  EXPECT_EQ(Rational(3, -6).num(), -1);
  EXPECT_EQ(Rational(3, -6).den(), 2);
  EXPECT_THROW(Rational(1, 0), Error);
}

TEST(Rational, ArithmeticIsExact) {
  const Rational ntsc(24000, 1001);
  EXPECT_EQ(ntsc * Rational(5, 2), Rational(60000, 1001));
  EXPECT_EQ(Rational(1) / ntsc + Rational(1) / ntsc, Rational(2002, 24000));
  EXPECT_EQ(Rational(1, 3) - Rational(1, 2), Rational(-1, 6));
  EXPECT_LT(Rational(1001, 30000), Rational(1, 29));
  // A day of 1/90000 ticks times an NTSC rate stays exact.
  const Rational ticks = Rational(90000LL * 86400) * Rational(1, 90000);
  EXPECT_EQ(ticks * Rational(60000, 1001), Rational(86400LL * 60000, 1001));
}

TEST(Rational, FloorAndRound) {
  EXPECT_EQ(Rational(7, 2).floor(), 3);
  EXPECT_EQ(Rational(-7, 2).floor(), -4);
  EXPECT_EQ(Rational(7, 2).round(), 4);
  EXPECT_EQ(Rational(-7, 2).round(), -3);
  EXPECT_EQ(Rational(10, 3).round(), 3);
  EXPECT_EQ(Rational(-5, 2).round(), -2);
  // At the ends of the range (once std::terminate: adding 1/2 overflowed inside noexcept).
  EXPECT_EQ(Rational(INT64_MAX).round(), INT64_MAX);
  EXPECT_EQ(Rational(INT64_MAX, 2).round(), INT64_MAX / 2 + 1);
  EXPECT_EQ(Rational(INT64_MIN + 1).round(), INT64_MIN + 1);
}

TEST(Rational, OverflowIsAnErrorNotWraparound) {
  const Rational huge(INT64_MAX / 2);
  EXPECT_THROW(huge * Rational(4), Error);
  EXPECT_THROW(Rational(1, INT64_MAX) * Rational(1, 3), Error);
}

TEST(Rational, GcdOfStepsIsTheCoarsestCommonTimeBase) {
  EXPECT_EQ(gcd(Rational(1, 48), Rational(1, 1000)), Rational(1, 6000));
  EXPECT_EQ(gcd(Rational(1001, 60000), Rational(1, 90000)), Rational(1, 180000));
  EXPECT_EQ(gcd(Rational(1, 2), Rational(3, 4)), Rational(1, 4));
}

TEST(Rational, ParsesIntegersDecimalsAndFractions) {
  EXPECT_EQ(parse_rational("2", "--factor"), Rational(2));
  EXPECT_EQ(parse_rational("2.5", "--factor"), Rational(5, 2));
  EXPECT_EQ(parse_rational(".5", "--factor"), Rational(1, 2));
  EXPECT_EQ(parse_rational("60000/1001", "--fps"), Rational(60000, 1001));
  EXPECT_EQ(parse_rational("29.970", "--fps"), Rational(2997, 100));
  for (const char* bad : {"", "0", "-2", "2x", "1/0", "/3", "abc", "1.2.3", "1e3", " 2", "0/5"})
    EXPECT_THROW(parse_rational(bad, "--factor"), Error) << bad;
}

TEST(Rational, FrameRateDecimalsMeanNtscRates) {
  EXPECT_EQ(parse_frame_rate("23.976", "--fps"), Rational(24000, 1001));
  EXPECT_EQ(parse_frame_rate("29.97", "--fps"), Rational(30000, 1001));
  EXPECT_EQ(parse_frame_rate("59.94", "--fps"), Rational(60000, 1001));
  EXPECT_EQ(parse_frame_rate("119.88", "--fps"), Rational(120000, 1001));
  // Not NTSC: exact as written.
  EXPECT_EQ(parse_frame_rate("59.9", "--fps"), Rational(599, 10));
  EXPECT_EQ(parse_frame_rate("12.5", "--fps"), Rational(25, 2));
  EXPECT_EQ(parse_frame_rate("60", "--fps"), Rational(60));
  EXPECT_EQ(parse_frame_rate("60000/1001", "--fps"), Rational(60000, 1001));
  // Found by fuzz_cli_arguments: the NTSC check overflowed 64 bits on huge decimal rates.
  EXPECT_EQ(parse_frame_rate("297522297529752.975", "--fps"), Rational(297522297529752975, 1000));
}

TEST(Rational, ErrorsNameTheOption) {
  try {
    parse_rational("fast", "--factor");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("--factor 'fast'"), std::string::npos) << e.what();
  }
}

TEST(Rational, ClockText) {
  EXPECT_EQ(clock_text(Rational(0)), "00:00.000");
  EXPECT_EQ(clock_text(Rational(1001, 24000) * Rational(100)), "00:04.171");
  EXPECT_EQ(clock_text(Rational(3723) + Rational(1, 2)), "1:02:03.500");
}

}  // namespace
}  // namespace framecast::video
