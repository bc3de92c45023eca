#include "video/ffmpeg.hpp"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <limits>
#include <mutex>

namespace framecast::video {
namespace {

thread_local std::string last_error_line;
thread_local bool line_open = false;

void log_callback(void* context, int level, const char* format, va_list args) {
  if (level > AV_LOG_ERROR) return;
  char line[1024];
  int print_prefix = 0;
  av_log_format_line2(context, level, format, args, line, sizeof line, &print_prefix);
  std::string text = line;
  if (!line_open) last_error_line.clear();
  line_open = text.empty() || text.back() != '\n';
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  last_error_line += text;
}

}  // namespace

void OutputDeleter::operator()(AVFormatContext* c) const {
  if (c->pb && !(c->oformat->flags & AVFMT_NOFILE) && !(c->flags & AVFMT_FLAG_CUSTOM_IO))
    avio_closep(&c->pb);
  avformat_free_context(c);
}

AvFramePtr alloc_frame() {
  AvFramePtr frame(av_frame_alloc());
  if (!frame) throw Error(ErrorKind::out_of_memory, "out of memory (video frame)");
  return frame;
}

PacketPtr alloc_packet() {
  PacketPtr packet(av_packet_alloc());
  if (!packet) throw Error(ErrorKind::out_of_memory, "out of memory (packet)");
  return packet;
}

CodecContextPtr alloc_codec_context(const AVCodec* codec) {
  CodecContextPtr context(avcodec_alloc_context3(codec));
  if (!context) throw Error(ErrorKind::out_of_memory, "out of memory (codec)");
  return context;
}

void capture_ffmpeg_log() {
  static std::once_flag once;
  std::call_once(once, [] { av_log_set_callback(log_callback); });
}

Error av_failure(ErrorKind kind, const std::string& what, int err) {
  const std::string detail = last_error_line;
  last_error_line.clear();
  if (err == AVERROR(ENOMEM)) return Error(ErrorKind::out_of_memory, what + ": out of memory");
  if (err == AVERROR(ENOSPC)) return Error(ErrorKind::io, what + ": the disk is full");
  if (err == AVERROR_EXIT) return Error(ErrorKind::cancelled, "interrupted");
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(err, text, sizeof text);
  std::string message = what + " (" + text;
  if (!detail.empty() && detail != text) message += ": " + detail;
  return Error(kind, message + ")");
}

void check_av(int err, ErrorKind kind, const std::string& what) {
  if (err < 0) throw av_failure(kind, what, err);
}

Rational to_rational(AVRational r) { return Rational(r.num, r.den); }

AVRational to_av(Rational r) {
  constexpr std::int64_t limit = std::numeric_limits<int>::max();
  if (r.num() > limit || r.num() < -limit || r.den() > limit)
    throw Error(ErrorKind::unsupported, "the rate or time base " + r.str() + " does not fit FFmpeg's fields");
  return AVRational{int(r.num()), int(r.den())};
}

}  // namespace framecast::video
