// Another scene than io::test_pattern's, for tests of scene cuts.
#pragma once

#include <cstddef>

#include "io/test_pattern.hpp"

namespace framecast::test {

// The test pattern turned upside down with its colours swapped.
inline Frame other_scene(int width, int height, float shift) {
  const Frame a = io::test_pattern(width, height, shift);
  Frame b(width, height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < 3; ++c)
        b.rgb8()[(std::size_t(y) * width + x) * 3 + c] =
            a.rgb8()[(std::size_t(height - 1 - y) * width + (width - 1 - x)) * 3 + (2 - c)];
  return b;
}

}  // namespace framecast::test
