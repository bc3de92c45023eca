// What a running job reports, and its renderings for a terminal line or a JSON object (the
// library formats; the caller prints).
#pragma once

#include <cstdint>
#include <string>

namespace framecast::video {

struct StageStats {
  std::int64_t frames = 0;  // frames the stage has passed on
  double busy_s = 0.0;      // time spent working, not waiting on its queues
  double fps() const noexcept { return busy_s > 0.0 ? double(frames) / busy_s : 0.0; }
};

struct Progress {
  std::int64_t done = 0;   // output frames written
  std::int64_t total = 0;  // output frames expected; 0 when unknown (pipes)
  double elapsed_s = 0.0;
  StageStats decode;       // source frames decoded and converted to RGB
  StageStats interpolate;  // output frames made (repeats included)
  StageStats encode;       // output frames converted, encoded and written
  std::int64_t synthesized = 0;  // output frames made by the network
  std::int64_t scene_cuts = 0;
  std::int64_t repeats = 0;      // repeated source frames dropped (--dedup)
  std::int64_t damaged = 0;      // damaged source frames skipped
  bool finished = false;

  double fps() const noexcept { return elapsed_s > 0.0 ? double(done) / elapsed_s : 0.0; }
  // Seconds left at the current pace; negative when unknown.
  double eta_s() const noexcept;
};

// The output frames to expect, from `estimate` (by the declared duration; 0 when unknown).
// The declared duration can be short of the frames a file holds (a stream cut by copying
// packets), so frames written beyond it raise the total; a finished job's total is what it
// wrote.
std::int64_t expected_total(std::int64_t estimate, std::int64_t done, bool finished) noexcept;

// "frame 1200/4800 (25%)  47.9 fps  ETA 01:15" (no newline).
std::string progress_line(const Progress& p);
// The last line: "4800 frames in 01:40 (47.9 fps); 2 scene cuts".
std::string summary_line(const Progress& p);
// One JSON object on one line: frames, total, percent, fps, elapsed_s, eta_s, and at the end
// "finished": true with the source frames decoded and per-stage frames/s.
std::string progress_json(const Progress& p);

}  // namespace framecast::video
