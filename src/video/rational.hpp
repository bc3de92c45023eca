// Exact rational numbers for frame rates and timestamps. Rates such as 60000/1001 and time
// bases such as 1/90000 never become floating point, so timestamps do not drift over hours.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

namespace framecast::video {

class Rational {
 public:
  constexpr Rational() = default;
  // Normalised: lowest terms, positive denominator. Throws Error(invalid_argument) on den 0.
  Rational(std::int64_t num, std::int64_t den = 1);

  std::int64_t num() const noexcept { return num_; }
  std::int64_t den() const noexcept { return den_; }
  double to_double() const noexcept { return double(num_) / double(den_); }
  // The largest integer <= this, and the nearest integer (halves round up).
  std::int64_t floor() const noexcept;
  std::int64_t round() const noexcept;
  // "2", "5/2", "60000/1001".
  std::string str() const;

  friend Rational operator+(const Rational& a, const Rational& b);
  friend Rational operator-(const Rational& a, const Rational& b);
  friend Rational operator*(const Rational& a, const Rational& b);
  // Throws Error(invalid_argument) on division by zero.
  friend Rational operator/(const Rational& a, const Rational& b);
  friend std::strong_ordering operator<=>(const Rational& a, const Rational& b);
  friend bool operator==(const Rational& a, const Rational& b) = default;

 private:
  std::int64_t num_ = 0;
  std::int64_t den_ = 1;
};

// The largest rational g with a/g and b/g both integers (both positive): the coarsest time
// base that holds two timestamps or steps exactly.
Rational gcd(const Rational& a, const Rational& b);

// Digits only, no sign: "0012" -> 12. False for anything else or a value beyond 64 bits.
bool parse_digits(std::string_view text, std::int64_t& value);

// "2", "2.5", "60000/1001" -> exact rationals; anything else (negative, zero, junk) throws
// Error(invalid_argument) naming `what`.
Rational parse_rational(std::string_view text, std::string_view what);

// A frame rate as users type it: like parse_rational, but a decimal that is an NTSC rate
// rounded to its two or more decimals (23.976, 29.97, 59.94, 119.88) means the exact
// n*1000/1001.
Rational parse_frame_rate(std::string_view text, std::string_view what);

// "1:02:03.456" or "02:03.456" for messages about a moment of a video.
std::string clock_text(Rational seconds);

}  // namespace framecast::video
