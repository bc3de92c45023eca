// The FFmpeg libraries for the video module: owning pointers for their objects, conversions
// to exact rationals, and FFmpeg error codes turned into framecast::Error.
#pragma once

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

#include <memory>
#include <string>

#include "framecast/error.hpp"
#include "video/rational.hpp"

namespace framecast::video {

struct InputDeleter {
  void operator()(AVFormatContext* c) const { avformat_close_input(&c); }
};
// Closes the output's file, if open and not custom I/O (PipeIo), and frees the context.
struct OutputDeleter {
  void operator()(AVFormatContext* c) const;
};
struct CodecContextDeleter {
  void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
};
struct FrameDeleter {
  void operator()(AVFrame* f) const { av_frame_free(&f); }
};
struct PacketDeleter {
  void operator()(AVPacket* p) const { av_packet_free(&p); }
};
struct SwsDeleter {
  void operator()(SwsContext* s) const { sws_freeContext(s); }
};
using InputPtr = std::unique_ptr<AVFormatContext, InputDeleter>;
using OutputPtr = std::unique_ptr<AVFormatContext, OutputDeleter>;
using CodecContextPtr = std::unique_ptr<AVCodecContext, CodecContextDeleter>;
using AvFramePtr = std::unique_ptr<AVFrame, FrameDeleter>;
using PacketPtr = std::unique_ptr<AVPacket, PacketDeleter>;
using SwsPtr = std::unique_ptr<SwsContext, SwsDeleter>;

// Allocators that throw Error(out_of_memory) instead of returning null.
AvFramePtr alloc_frame();
PacketPtr alloc_packet();
CodecContextPtr alloc_codec_context(const AVCodec* codec);

// Routes FFmpeg's own log lines away from stderr (the library never prints) and keeps the
// last error line of each thread, which error messages quote. Idempotent.
void capture_ffmpeg_log();

// The Error for FFmpeg code `err` while doing `what` (e.g. "in.mp4: cannot open"): the
// message adds FFmpeg's text and its last logged detail; the kind is `kind`, except out of
// memory, a full disk (io) and interruption (cancelled).
Error av_failure(ErrorKind kind, const std::string& what, int err);
// Throws av_failure(...) when err < 0.
void check_av(int err, ErrorKind kind, const std::string& what);

Rational to_rational(AVRational r);
// Throws Error(unsupported) when the terms do not fit FFmpeg's 32-bit fields.
AVRational to_av(Rational r);

}  // namespace framecast::video
