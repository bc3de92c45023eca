#include "video/segment.hpp"

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

FrameRange segment_frames(Segment segment, std::int64_t total) {
  if (segment.count > total)
    throw Error(ErrorKind::invalid_argument,
                "cannot cut " + std::to_string(total) + " output frames into " +
                    std::to_string(segment.count) + " segments");
  const auto boundary = [&](std::int64_t k) { return k * total / segment.count; };
  FrameRange range{boundary(segment.index), std::nullopt};
  if (segment.index + 1 < segment.count) range.end = boundary(segment.index + 1);
  return range;
}

}  // namespace framecast::video
