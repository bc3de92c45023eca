// Demux and decode: any input FFmpeg reads (or yuv4mpeg on stdin as "-"), video frames out as
// RGB frames with exact timestamps, packets of the other streams handed on for copying.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "framecast/frame.hpp"
#include "video/colour.hpp"
#include "video/ffmpeg.hpp"
#include "video/pipe_io.hpp"
#include "video/rational.hpp"

namespace framecast::video {

struct SourceFrame {
  Frame image;
  Rational time;      // seconds from the input's start (its earliest stream)
  Rational duration;  // how long the frame is shown
};

struct SourceInfo {
  int width = 0, height = 0;
  AVPixelFormat pixel_format = AV_PIX_FMT_NONE;  // as decoded, without the yuvj aliases
  ColourTags colour;
  AVRational sample_aspect_ratio{0, 1};
  std::string codec;
  Rational frame_rate;  // nominal (FFmpeg's guess for variable frame rates)
  Rational time_base;   // of the video stream
  Rational start;       // the video's first timestamp, seconds from the input's start
  Rational duration;    // the video's declared duration; 0 when unknown (pipes)
  // The input's start in the timestamps of its streams: copied packets move by it.
  Rational offset;
};

using Warn = std::function<void(const std::string&)>;

class VideoSource {
 public:
  // `input`: a path or URL, or "-" for yuv4mpeg on stdin. `strict`: damaged frames are
  // errors instead of being skipped (and bridged by the scheduler from their neighbours).
  // `cancelled`, polled (from any thread) while FFmpeg waits for input, gives up the wait.
  // Throws Error(io) for missing, unreadable or damaged input, Error(unsupported) for input
  // without video or without a decoder for it, Error(cancelled) when `cancelled` said so.
  VideoSource(const std::string& input, bool strict, Warn warn,
              std::function<bool()> cancelled = {});
  VideoSource(const VideoSource&) = delete;
  VideoSource& operator=(const VideoSource&) = delete;

  const SourceInfo& info() const noexcept { return info_; }
  const std::string& name() const noexcept { return name_; }
  AVFormatContext& format() const noexcept { return *format_; }
  int video_stream() const noexcept { return video_; }

  // The next video frame in presentation order, or nullopt at the end; packets of other
  // streams go to `copy` as they are read, with timestamps from the input's start. Throws
  // Error(io) for read errors and truncation, Error(cancelled) after abort().
  std::optional<SourceFrame> next(const std::function<void(AVPacket&)>& copy);
  // Before the first next(): moves to the keyframe at or before `time` (seconds from the
  // input's start) so that decoding starts there, when the input is seekable and the keyframe
  // really lies at or before `time`; else stays at the start and returns false. Packets of
  // other streams read on the way are dropped: for video-only output.
  bool seek_before(Rational time);
  // The video's key frames (seconds from the input's start, increasing), from its packets
  // read to the end without decoding: for planning, on a source that then is not decoded.
  std::vector<Rational> scan_key_frames();
  // Makes a blocked or later read give up (from another thread).
  void abort() noexcept { aborted_ = true; }
  // Damaged frames skipped so far (read from any thread).
  std::int64_t damaged_frames() const noexcept { return damaged_; }

 private:
  bool stopping() const { return aborted_ || (cancelled_ && cancelled_()); }
  std::optional<SourceFrame> take_frame();
  std::optional<SourceFrame> decode_next(const std::function<void(AVPacket&)>& copy);
  bool seek_to(std::int64_t timestamp);
  void damaged(const std::string& what);
  void check_complete() const;

  std::string name_;
  bool strict_;
  Warn warn_;
  std::function<bool()> cancelled_;
  std::atomic<bool> aborted_{false};
  std::unique_ptr<PipeIo> pipe_;  // stdin's reader when it is a pipe; outlives format_
  InputPtr format_;
  int video_ = -1;
  CodecContextPtr decoder_;
  SourceInfo info_;
  std::optional<RgbConverter> rgb_;
  AvFramePtr frame_;
  PacketPtr packet_;
  bool draining_ = false;
  std::optional<SourceFrame> peeked_;  // decoded by seek_before, not yet taken
  Rational next_time_;  // where a frame without a timestamp goes
  Rational last_read_;  // time of the last video packet read, for messages
  std::vector<std::int64_t> shifts_;  // offset in each stream's time base
  std::atomic<std::int64_t> damaged_{0};
  int damaged_in_a_row_ = 0;
};

}  // namespace framecast::video
