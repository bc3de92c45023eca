// What FFmpeg hands the pipeline: the input, in a memory file, is read as `-i -` (yuv4mpeg on
// stdin) when it starts like yuv4mpeg, else as a file of any format FFmpeg recognises (the
// seeds are Matroska with variable frame rate: per-frame timestamps and durations to mutate).
// VideoSource decodes it into RGB frames with timestamps, which the
// Scheduler turns into output slots as the pipeline does (frames that do not follow their
// predecessor in time are dropped). Bad input must end in framecast::Error; the slots must
// number the output frames 0, 1, 2, ... at strictly increasing timestamps, blends at t in
// (0, 1). A file is also planned and sought in as segments are: its key frames come in
// increasing order, and a seek that succeeds decodes from at or before the time asked.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "framecast/error.hpp"
#include "video/schedule.hpp"
#include "video/source.hpp"
#include "memory_file.hpp"

namespace {

using framecast::video::Rational;
using framecast::video::Slot;

void check(bool ok) {
  if (!ok) std::abort();
}

// Puts the input in a memory file, also on stdin, read from its start; returns the file.
int feed(const std::uint8_t* data, std::size_t size) {
  const int memory = fuzz::memory_file(data, size);
  check(dup2(memory, STDIN_FILENO) == STDIN_FILENO);
  return memory;
}

struct SlotChecker {
  framecast::video::OutputClock clock;
  std::int64_t next = 0;
  void operator()(const std::vector<Slot>& slots) {
    for (const Slot& s : slots) {
      check(s.index == next++);
      if (s.use == Slot::Use::blend) check(s.t > 0.0f && s.t < 1.0f);
      if (s.index > 0) check(clock.pts(s.index) > clock.pts(s.index - 1));
    }
  }
};

void run(const std::string& input) {
  using namespace framecast::video;
  VideoSource source(input, false, [](const std::string&) {});
  const SourceInfo& info = source.info();
  const Rational rate = info.frame_rate > Rational(0) ? info.frame_rate * Rational(2) : Rational(60);
  Scheduler scheduler(rate, info.start, snap_tolerance(info.time_base, info.frame_rate > Rational(0) ? info.frame_rate : rate));
  SlotChecker slots{make_output_clock(rate, info.start, true)};
  std::optional<SourceFrame> last;
  while (auto frame = source.next([](AVPacket&) {})) {
    check(frame->image.width() == info.width && frame->image.height() == info.height);
    check(frame->duration > Rational(0));
    if (last && frame->time <= last->time) continue;
    slots(scheduler.add(frame->time, false));
    last = std::move(frame);
  }
  if (last) slots(scheduler.finish(last->time + last->duration));
}

// `framecast plan`'s key-frame scan, then a segment's seek to the middle key frame.
void run_seek(const std::string& input) {
  using namespace framecast::video;
  const std::vector<Rational> keys = VideoSource(input, false, [](const std::string&) {}).scan_key_frames();
  for (std::size_t i = 1; i < keys.size(); ++i) check(keys[i - 1] <= keys[i]);
  VideoSource source(input, false, [](const std::string&) {});
  const Rational target = keys.empty() ? Rational(1) : keys[keys.size() / 2] + Rational(1, 100);
  const bool sought = source.seek_before(target);
  for (int n = 0; n < 3; ++n) {
    const auto frame = source.next([](AVPacket&) {});
    if (!frame) break;
    if (n == 0 && sought) check(frame->time <= target);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const int memory = feed(data, size);
  const std::string_view y4m = "YUV4MPEG2";
  const bool stdin_path = size >= y4m.size() && std::memcmp(data, y4m.data(), y4m.size()) == 0;
  try {
    run(stdin_path ? "-" : "/proc/self/fd/" + std::to_string(memory));
  } catch (const framecast::Error&) {
  }
  if (!stdin_path) {
    try {
      run_seek("/proc/self/fd/" + std::to_string(memory));
    } catch (const framecast::Error&) {
    }
  }
  return 0;
}
