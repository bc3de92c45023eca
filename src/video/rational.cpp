#include "video/rational.hpp"

#include <charconv>
#include <cstdio>
#include <cmath>
#include <limits>
#include <numeric>

#include "framecast/error.hpp"

namespace framecast::video {
namespace {

// Products of two int64 terms are formed in 128 bits and reduced before narrowing.
__extension__ using Wide = __int128;

Wide wide_gcd(Wide a, Wide b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) {
    const Wide r = a % b;
    a = b;
    b = r;
  }
  return a;
}

Rational narrow(Wide num, Wide den) {
  if (den == 0) throw Error(ErrorKind::invalid_argument, "division by zero in a rational");
  if (den < 0) {
    num = -num;
    den = -den;
  }
  const Wide g = wide_gcd(num, den);
  if (g > 1) {
    num /= g;
    den /= g;
  }
  constexpr Wide lo = std::numeric_limits<std::int64_t>::min();
  constexpr Wide hi = std::numeric_limits<std::int64_t>::max();
  if (num < lo || num > hi || den > hi)
    throw Error(ErrorKind::invalid_argument, "a timestamp or rate is too large to represent exactly");
  return Rational(std::int64_t(num), std::int64_t(den));
}

Error invalid(std::string_view text, std::string_view what) {
  return Error(ErrorKind::invalid_argument,
               std::string(what) + " '" + std::string(text) +
                   "' is not a positive number (examples: 2, 2.5, 60000/1001)");
}

}  // namespace

bool parse_digits(std::string_view text, std::int64_t& value) {
  if (text.empty()) return false;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end && value >= 0;
}

Rational::Rational(std::int64_t num, std::int64_t den) {
  if (den == 0) throw Error(ErrorKind::invalid_argument, "a rational with denominator 0");
  if (den < 0) {
    num = -num;
    den = -den;
  }
  const std::int64_t g = std::gcd(num, den);
  num_ = g > 1 ? num / g : num;
  den_ = g > 1 ? den / g : den;
}

std::int64_t Rational::floor() const noexcept {
  const std::int64_t q = num_ / den_;
  return (num_ % den_ != 0 && num_ < 0) ? q - 1 : q;
}

std::int64_t Rational::round() const noexcept {
  // floor((2 num + den) / (2 den)) in 128 bits: adding 1/2 as a Rational could overflow and
  // throw, which a noexcept function must not.
  const Wide n = Wide(num_) * 2 + den_, d = Wide(den_) * 2;
  const Wide q = n / d;
  return std::int64_t(n % d != 0 && n < 0 ? q - 1 : q);
}

std::string Rational::str() const {
  return den_ == 1 ? std::to_string(num_) : std::to_string(num_) + "/" + std::to_string(den_);
}

Rational operator+(const Rational& a, const Rational& b) {
  return narrow(Wide(a.num_) * b.den_ + Wide(b.num_) * a.den_, Wide(a.den_) * b.den_);
}

Rational operator-(const Rational& a, const Rational& b) {
  return narrow(Wide(a.num_) * b.den_ - Wide(b.num_) * a.den_, Wide(a.den_) * b.den_);
}

Rational operator*(const Rational& a, const Rational& b) {
  return narrow(Wide(a.num_) * b.num_, Wide(a.den_) * b.den_);
}

Rational operator/(const Rational& a, const Rational& b) {
  return narrow(Wide(a.num_) * b.den_, Wide(a.den_) * b.num_);
}

std::strong_ordering operator<=>(const Rational& a, const Rational& b) {
  return Wide(a.num_) * b.den_ <=> Wide(b.num_) * a.den_;
}

Rational gcd(const Rational& a, const Rational& b) {
  return narrow(wide_gcd(Wide(a.num()) * b.den(), Wide(b.num()) * a.den()),
                Wide(a.den()) * b.den());
}

Rational parse_rational(std::string_view text, std::string_view what) {
  std::int64_t num = 0, den = 1;
  if (const auto slash = text.find('/'); slash != std::string_view::npos) {
    if (!parse_digits(text.substr(0, slash), num) || !parse_digits(text.substr(slash + 1), den))
      throw invalid(text, what);
  } else if (const auto dot = text.find('.'); dot != std::string_view::npos) {
    const auto whole = text.substr(0, dot), fraction = text.substr(dot + 1);
    std::int64_t w = 0, f = 0;
    if (fraction.size() > 9 || (whole.empty() && fraction.empty()) ||
        (!whole.empty() && !parse_digits(whole, w)) ||
        (!fraction.empty() && !parse_digits(fraction, f)))
      throw invalid(text, what);
    den = 1;
    for (std::size_t i = 0; i < fraction.size(); ++i) den *= 10;
    if (w > std::numeric_limits<std::int64_t>::max() / den) throw invalid(text, what);
    num = w * den + f;
  } else if (!parse_digits(text, num)) {
    throw invalid(text, what);
  }
  if (num <= 0 || den <= 0) throw invalid(text, what);
  return Rational(num, den);
}

Rational parse_frame_rate(std::string_view text, std::string_view what) {
  const Rational exact = parse_rational(text, what);
  const auto dot = text.find('.');
  // One decimal is too coarse to mean NTSC ("59.9" stays 599/10).
  if (dot == std::string_view::npos || text.size() - dot - 1 < 2 || exact.den() == 1) return exact;
  // No NTSC rate is anywhere near a million fps; the bound also keeps the products below
  // (numerator up to 10^6 times a denominator of at most 10^9, times 1001) within 64 bits.
  if (exact > Rational(1000000)) return exact;
  // An NTSC rate n*1000/1001 printed with this many decimals reads exactly like `text`.
  const std::int64_t n = Rational(exact.num() * 1001, exact.den() * 1000).round();
  if (n <= 0) return exact;
  const Rational ntsc(n * 1000, 1001);
  const double scale = std::pow(10.0, double(text.size() - dot - 1));
  const bool same = std::llround(ntsc.to_double() * scale) == std::llround(exact.to_double() * scale);
  return same ? ntsc : exact;
}

std::string clock_text(Rational seconds) {
  const std::int64_t ms = (seconds * Rational(1000)).round();
  const std::int64_t s = ms / 1000, minutes = s / 60, hours = minutes / 60;
  char text[48];
  if (hours > 0)
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld.%03lld", (long long)hours,
                  (long long)(minutes % 60), (long long)(s % 60), (long long)(ms % 1000));
  else
    std::snprintf(text, sizeof text, "%02lld:%02lld.%03lld", (long long)minutes, (long long)(s % 60),
                  (long long)(ms % 1000));
  return text;
}

}  // namespace framecast::video
