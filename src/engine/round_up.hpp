// Integer rounding the backends share: the padded grid (multiples of 16; of 32 for the
// large-motion pass's run at 1/8) and channel counts padded to tensor-core chunks.
#pragma once

namespace framecast {

// v rounded up to a multiple of `multiple` (v >= 0, multiple > 0).
constexpr int round_up(int v, int multiple) { return (v + multiple - 1) / multiple * multiple; }

}  // namespace framecast
