// Deterministic, real-looking synthetic frames (gradients, texture, edges, a moving disc)
// for benchmarks and tests that must not depend on files.
#pragma once

#include "framecast/frame.hpp"

namespace framecast::io {

// `shift` moves the content by that many pixels to the right and a third of it down; the
// disc moves twice as fast, so a pair has two motions and an occlusion boundary.
Frame test_pattern(int width, int height, float shift, SampleDepth depth = SampleDepth::u8);

}  // namespace framecast::io
