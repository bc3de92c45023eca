#include "video/pipe_io.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "framecast/error.hpp"

extern "C" {
#include <libavutil/error.h>
#include <libavutil/mem.h>
}

namespace framecast::video {
namespace {

constexpr int buffer_bytes = 1 << 16;  // a pipe's default capacity on Linux
constexpr int poll_ms = 50;            // how long Ctrl-C may wait

}  // namespace

bool PipeIo::is_pipe(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

PipeIo::PipeIo(int fd, Direction direction, std::function<bool()> stop)
    : fd_(fd), stop_(std::move(stop)) {
  fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) | O_NONBLOCK);
  auto* buffer = static_cast<unsigned char*>(av_malloc(buffer_bytes));
  const bool writing = direction == Direction::write;
  if (buffer)
    context_ = avio_alloc_context(buffer, buffer_bytes, writing ? 1 : 0, this,
                                  writing ? nullptr : &PipeIo::read_packet,
                                  writing ? &PipeIo::write_packet : nullptr, nullptr);
  if (!context_) {
    av_free(buffer);
    throw Error(ErrorKind::out_of_memory, "out of memory (pipe buffer)");
  }
}

PipeIo::~PipeIo() {
  av_freep(&context_->buffer);  // FFmpeg may have replaced the buffer it was given
  avio_context_free(&context_);
}

int PipeIo::wait(short events) const {
  pollfd ready{fd_, events, 0};
  for (;;) {
    if (stop_ && stop_()) return AVERROR_EXIT;
    const int n = poll(&ready, 1, poll_ms);
    if (n > 0) return 0;
    if (n < 0 && errno != EINTR) return AVERROR(errno);
  }
}

int PipeIo::read_packet(void* self, std::uint8_t* buffer, int size) {
  const auto& io = *static_cast<const PipeIo*>(self);
  for (;;) {
    const ssize_t n = read(io.fd_, buffer, std::size_t(size));
    if (n > 0) return int(n);
    if (n == 0) return AVERROR_EOF;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return AVERROR(errno);
    if (const int waited = io.wait(POLLIN); waited < 0) return waited;
  }
}

int PipeIo::write_packet(void* self, std::uint8_t* buffer, int size) {
  const auto& io = *static_cast<const PipeIo*>(self);
  int written = 0;
  while (written < size) {
    const ssize_t n = write(io.fd_, buffer + written, std::size_t(size - written));
    if (n >= 0) {
      written += int(n);
    } else if (errno != EINTR) {
      if (errno != EAGAIN && errno != EWOULDBLOCK) return AVERROR(errno);
      if (const int waited = io.wait(POLLOUT); waited < 0) return waited;
    }
  }
  return written;
}

}  // namespace framecast::video
