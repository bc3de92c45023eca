// The one check of a mid's position, for the callers that take t from users (the Engine, the
// C API) before any work; a runtime wrapped in an ensemble would otherwise name 1 - t.
#pragma once

#include <string>

#include "framecast/error.hpp"

namespace framecast {

inline void check_t(float t) {
  if (!(t >= 0.0f && t <= 1.0f))  // also rejects NaN
    throw Error(ErrorKind::invalid_argument, "t = " + std::to_string(t) + " is outside [0, 1]");
}

}  // namespace framecast
