// Encode and mux: the interpolated video at a constant rate, every audio and subtitle stream
// of the input copied without re-encoding (same timestamps, so in sync), metadata, chapters
// and colour tags carried over. A file output is written beside its destination and renamed
// into place by finish(); "-" writes yuv4mpeg to stdout.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "io/atomic_file.hpp"
#include "video/colour.hpp"
#include "video/encoding.hpp"
#include "video/pipe_io.hpp"
#include "video/schedule.hpp"
#include "video/source.hpp"

namespace framecast::video {

class VideoSink {
 public:
  // Opens the output and writes its header. Throws Error(unsupported) for containers or
  // codecs that cannot be written, Error(io) for an unwritable destination. `cancelled`,
  // polled (from any thread) while a write waits, gives it up. `video_only`: no audio,
  // subtitles, attachments or chapters (a segment: the final mux adds them once).
  VideoSink(const std::string& output, const VideoSource& source, Rational rate,
            const EncoderSettings& settings, const Warn& warn, std::function<bool()> cancelled = {},
            bool video_only = false);
  VideoSink(const VideoSink&) = delete;
  VideoSink& operator=(const VideoSink&) = delete;

  // Encodes output frame `index` (from the encode thread, in order).
  void write(const Frame& rgb, std::int64_t index);
  // Writes a packet of a copied stream, timestamps from the input's start (from the decode
  // thread; ignores streams that are not copied).
  void copy(AVPacket& packet);
  // Flushes the encoder and finishes the container (from the encode thread).
  void finish();
  // Moves the finished file into place (nothing for stdout); without it, it is removed.
  void commit();
  // Makes a blocked or later write give up (from another thread).
  void abort() noexcept { aborted_ = true; }

  // "libx264 yuv420p10le crf 18", for the start line.
  const std::string& description() const noexcept { return description_; }

 private:
  void open_encoder(const VideoSource& source, Rational rate, const EncoderSettings& settings,
                    const Warn& warn);
  void add_streams(const VideoSource& source, bool video_only, const Warn& warn);
  void drain_encoder();
  void mux(AVPacket& packet);
  bool stopping() const { return aborted_ || (cancelled_ && cancelled_()); }

  std::string name_;
  std::function<bool()> cancelled_;
  std::atomic<bool> aborted_{false};
  std::optional<io::AtomicFile> file_;
  std::unique_ptr<PipeIo> pipe_;  // stdout's writer when it is a pipe; outlives output_
  OutputPtr output_;
  CodecContextPtr encoder_;
  std::optional<YuvConverter> yuv_;
  OutputClock clock_;
  int video_out_ = -1;
  std::vector<int> copied_;                // input stream -> output stream, or -1
  std::vector<AVRational> input_bases_;    // input streams' time bases
  PacketPtr packet_;
  std::mutex mux_mutex_;
  std::string description_;
};

}  // namespace framecast::video
