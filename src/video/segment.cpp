#include "video/segment.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "framecast/error.hpp"
#include "video/rational.hpp"

namespace framecast::video {
namespace {

// Far beyond any useful split; keeps index * total in 64 bits for hours of 240 fps video.
constexpr std::int64_t max_segments = 1'000'000;

}  // namespace

Segment parse_segment(std::string_view text, std::string_view what) {
  const std::size_t slash = text.find('/');
  Segment s;
  if (slash == std::string_view::npos || !parse_digits(text.substr(0, slash), s.index) ||
      !parse_digits(text.substr(slash + 1), s.count) || s.count < 1 || s.count > max_segments ||
      s.index < 0 || s.index >= s.count)
    throw Error(ErrorKind::invalid_argument,
                std::string(what) + " must be K/N with N >= 1 and 0 <= K < N (got '" +
                    std::string(text) + "')");
  return s;
}

namespace {

void check_count(std::int64_t count, std::int64_t total) {
  if (count > total)
    throw Error(ErrorKind::invalid_argument, "cannot cut " + std::to_string(total) +
                                                 " output frames into " + std::to_string(count) +
                                                 " segments");
}

}  // namespace

FrameRange segment_frames(Segment segment, std::int64_t total) {
  check_count(segment.count, total);
  const auto boundary = [&](std::int64_t k) { return k * total / segment.count; };
  FrameRange range{boundary(segment.index), std::nullopt};
  if (segment.index + 1 < segment.count) range.end = boundary(segment.index + 1);
  return range;
}

FrameRange parse_frame_range(std::string_view text, std::string_view what) {
  const std::size_t colon = text.find(':');
  FrameRange range;
  std::int64_t end = 0;
  const std::string_view tail = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  const bool ok = colon != std::string_view::npos && parse_digits(text.substr(0, colon), range.begin) &&
                  (tail.empty() || (parse_digits(tail, end) && end > range.begin));
  if (!ok)
    throw Error(ErrorKind::invalid_argument,
                std::string(what) + " must be B:E or B: with 0 <= B < E (got '" + std::string(text) + "')");
  if (!tail.empty()) range.end = end;
  return range;
}

std::vector<FrameRange> plan_parts(std::int64_t total, std::int64_t count,
                                   const std::vector<std::int64_t>& cheap_starts) {
  check_count(count, total);
  const std::int64_t reach = total / count / 8;
  std::vector<FrameRange> parts(static_cast<std::size_t>(count));
  for (std::int64_t k = 1; k < count; ++k) {
    const std::int64_t equal = k * total / count;
    std::int64_t start = equal, distance = reach + 1;
    const auto consider = [&](std::int64_t candidate) {
      if (std::abs(candidate - equal) >= distance) return;
      distance = std::abs(candidate - equal);
      start = candidate;
    };
    const auto after = std::lower_bound(cheap_starts.begin(), cheap_starts.end(), equal);
    if (after != cheap_starts.end()) consider(*after);
    if (after != cheap_starts.begin()) consider(*(after - 1));
    // Parts keep at least one frame each, in order.
    start = std::clamp(start, parts[std::size_t(k - 1)].begin + 1, total - (count - k));
    parts[std::size_t(k - 1)].end = start;
    parts[std::size_t(k)].begin = start;
  }
  return parts;
}

}  // namespace framecast::video
