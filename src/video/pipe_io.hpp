// FFmpeg I/O over stdin or stdout when it is a pipe, interruptible and at the pipe's speed.
#pragma once

#include <cstdint>
#include <functional>

extern "C" {
#include <libavformat/avio.h>
}

namespace framecast::video {

// A blocked read or write on a pipe cannot be interrupted (a signal may reach any thread, and
// the handler restarts the call anyway), so Ctrl-C would wait for the other end. The pipe is
// therefore made non-blocking. FFmpeg's own pipe protocol then sleeps 1 ms whenever the pipe is
// empty or full, which capped a pipe at about 64 KiB per ms (a 1080p yuv4mpeg output at ~20-60
// frames/s); this context waits in poll() instead, woken as soon as the pipe is ready, and asks
// `stop` between waits of at most 50 ms.
class PipeIo {
 public:
  enum class Direction { read, write };

  static bool is_pipe(int fd);

  PipeIo(int fd, Direction direction, std::function<bool()> stop);
  ~PipeIo();
  PipeIo(const PipeIo&) = delete;
  PipeIo& operator=(const PipeIo&) = delete;

  // For AVFormatContext::pb (FFmpeg then sets AVFMT_FLAG_CUSTOM_IO on inputs; outputs set it
  // themselves). It stays owned here and must outlive the format context's use of it.
  AVIOContext* context() const noexcept { return context_; }

 private:
  static int read_packet(void* self, std::uint8_t* buffer, int size);
  static int write_packet(void* self, std::uint8_t* buffer, int size);
  // 0 once the pipe is ready for `events` (or has an error the next call reports),
  // AVERROR_EXIT when asked to stop.
  int wait(short events) const;

  int fd_;
  std::function<bool()> stop_;
  AVIOContext* context_ = nullptr;
};

}  // namespace framecast::video
