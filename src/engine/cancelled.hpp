// A caller's "stop now?" question, polled by long reads and loops (model and image files,
// the tuner) so that Ctrl-C does not wait for them to end. An empty one never cancels.
#pragma once

#include <functional>

#include "framecast/error.hpp"

namespace framecast {

using Cancelled = std::function<bool()>;

inline void throw_if_cancelled(const Cancelled& cancelled) {
  if (cancelled && cancelled()) throw Error(ErrorKind::cancelled, "interrupted");
}

}  // namespace framecast
