#include "framecast/backend.hpp"
#include "framecast/error.hpp"

namespace framecast {

std::vector<Frame> Runtime::mids(std::span<const float> ts) {
  std::vector<Frame> out;
  out.reserve(ts.size());
  for (float t : ts) out.push_back(mid(t));
  return out;
}

void Runtime::start_mids(std::span<const float> ts) {
  if (started_) throw Error(ErrorKind::internal, "start_mids() before the last ones were taken");
  started_ = mids(ts);
}

std::vector<Frame> Runtime::take_mids() {
  if (!started_) throw Error(ErrorKind::internal, "take_mids() without start_mids()");
  std::vector<Frame> frames = std::move(*started_);
  started_.reset();
  return frames;
}

void Runtime::check_pair(const Frame& frame0, const Frame& frame1) const {
  auto size = [](const Frame& f) {
    return std::to_string(f.width()) + "x" + std::to_string(f.height());
  };
  if (frame0.width() != frame1.width() || frame0.height() != frame1.height())
    throw Error(ErrorKind::invalid_argument,
                "the two frames differ in size (" + size(frame0) + " and " + size(frame1) + ")");
  if (frame0.depth() != frame1.depth())
    throw Error(ErrorKind::invalid_argument, "the two frames differ in bit depth");
  if (frame0.width() != width_ || frame0.height() != height_)
    throw Error(ErrorKind::invalid_argument, "frame size " + size(frame0) +
                                                 " does not match the runtime's " +
                                                 std::to_string(width_) + "x" +
                                                 std::to_string(height_));
}

void Runtime::check_next(const Frame& next, bool prepared, SampleDepth pair_depth) const {
  check_pair(next, next);
  if (!prepared || next.depth() != pair_depth)
    throw Error(ErrorKind::internal, "prepare_next() without a prepared pair of its depth");
}

}  // namespace framecast
