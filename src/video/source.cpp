#include "video/source.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>

namespace framecast::video {
namespace {

constexpr int max_damaged_in_a_row = 100;
constexpr int damaged_listed = 5;

Rational stream_time(std::int64_t ts, AVRational time_base) { return Rational(ts) * to_rational(time_base); }

bool copyable(const AVStream& stream) {
  const auto type = stream.codecpar->codec_type;
  return type == AVMEDIA_TYPE_AUDIO || type == AVMEDIA_TYPE_SUBTITLE;
}

// Where the input starts: its earliest stream, video or copied.
Rational input_offset(const AVFormatContext& format, int video) {
  std::optional<Rational> earliest;
  for (unsigned i = 0; i < format.nb_streams; ++i) {
    const AVStream& s = *format.streams[i];
    if ((int(i) != video && !copyable(s)) || s.start_time == AV_NOPTS_VALUE) continue;
    const Rational start = stream_time(s.start_time, s.time_base);
    if (!earliest || start < *earliest) earliest = start;
  }
  return earliest.value_or(Rational(0));
}

}  // namespace

VideoSource::VideoSource(const std::string& input, bool strict, Warn warn,
                         std::function<bool()> cancelled)
    : name_(input == "-" ? "stdin" : input), strict_(strict), warn_(std::move(warn)),
      cancelled_(std::move(cancelled)), frame_(alloc_frame()), packet_(alloc_packet()) {
  capture_ffmpeg_log();
  const bool is_url = input.find("://") != std::string::npos;
  std::error_code ec;
  if (input != "-" && !is_url && !std::filesystem::exists(input, ec))
    throw Error(ErrorKind::io, input + ": no such file");
  AVFormatContext* context = avformat_alloc_context();
  if (!context) throw Error(ErrorKind::out_of_memory, "out of memory (input)");
  context->interrupt_callback = {
      [](void* self) -> int { return static_cast<const VideoSource*>(self)->stopping(); }, this};
  // A pipe on stdin is read through PipeIo, which Ctrl-C can interrupt.
  if (input == "-" && PipeIo::is_pipe(STDIN_FILENO)) {
    pipe_ = std::make_unique<PipeIo>(STDIN_FILENO, PipeIo::Direction::read, [this] { return stopping(); });
    context->pb = pipe_->context();
  }
  const AVInputFormat* forced = input == "-" ? av_find_input_format("yuv4mpegpipe") : nullptr;
  const int opened =
      avformat_open_input(&context, input == "-" ? "pipe:0" : input.c_str(), forced, nullptr);
  // A demuxer may report an interrupted read as bad data.
  if (opened < 0 && stopping()) throw Error(ErrorKind::cancelled, "interrupted");
  if (opened < 0)  // avformat_open_input has freed the context
    throw av_failure(ErrorKind::io, name_ + ": not a video FFmpeg can read, or damaged or truncated", opened);
  format_.reset(context);
  const int found = avformat_find_stream_info(context, nullptr);
  if (found < 0 && stopping()) throw Error(ErrorKind::cancelled, "interrupted");
  check_av(found, ErrorKind::io, name_ + ": cannot make out its streams (damaged or truncated?)");

  video_ = av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
  if (video_ < 0) throw Error(ErrorKind::unsupported, name_ + ": has no video stream");
  AVStream& stream = *context->streams[video_];
  const AVCodecParameters& par = *stream.codecpar;
  const AVCodec* codec = avcodec_find_decoder(par.codec_id);
  if (!codec)
    throw Error(ErrorKind::unsupported, name_ + ": this FFmpeg build has no decoder for its video codec '" +
                                            avcodec_get_name(par.codec_id) + "'");
  decoder_ = alloc_codec_context(codec);
  check_av(avcodec_parameters_to_context(decoder_.get(), &par), ErrorKind::unsupported,
           name_ + ": cannot set up its decoder");
  decoder_->pkt_timebase = stream.time_base;
  decoder_->thread_count = 0;  // as many as FFmpeg sees fit
  check_av(avcodec_open2(decoder_.get(), codec, nullptr), ErrorKind::unsupported,
           name_ + ": cannot decode its video (" + codec->name + ")");

  const auto format = AVPixelFormat(par.format);
  if (format == AV_PIX_FMT_NONE || par.width <= 0 || par.height <= 0)
    throw Error(ErrorKind::io, name_ + ": cannot make out the video's size and pixel format");
  info_.width = par.width;
  info_.height = par.height;
  info_.pixel_format = plain_format(format);
  info_.colour = colour_tags(par);
  if (info_.pixel_format != format) info_.colour.range = AVCOL_RANGE_JPEG;
  info_.sample_aspect_ratio = av_guess_sample_aspect_ratio(context, &stream, nullptr);
  info_.codec = codec->name;
  const AVRational rate = av_guess_frame_rate(context, &stream, nullptr);
  info_.frame_rate = rate.num > 0 && rate.den > 0 ? to_rational(rate) : Rational(0);
  info_.time_base = to_rational(stream.time_base);
  info_.offset = input_offset(*context, video_);
  info_.start = stream.start_time != AV_NOPTS_VALUE
                    ? stream_time(stream.start_time, stream.time_base) - info_.offset
                    : Rational(0);
  if (stream.duration != AV_NOPTS_VALUE && stream.duration > 0)
    info_.duration = stream_time(stream.duration, stream.time_base);
  else if (context->duration != AV_NOPTS_VALUE && context->duration > 0)
    info_.duration = std::max(Rational(0), Rational(context->duration, AV_TIME_BASE) - info_.start);
  for (unsigned i = 0; i < context->nb_streams; ++i)
    shifts_.push_back((info_.offset / to_rational(context->streams[i]->time_base)).round());

  rgb_.emplace(info_.width, info_.height, depth_for(info_.pixel_format));
  next_time_ = info_.start;
}

std::optional<SourceFrame> VideoSource::next(const std::function<void(AVPacket&)>& copy) {
  if (peeked_) {
    std::optional<SourceFrame> frame = std::move(peeked_);
    peeked_.reset();
    return frame;
  }
  return decode_next(copy);
}

bool VideoSource::seek_to(std::int64_t timestamp) {
  if (avformat_seek_file(format_.get(), video_, INT64_MIN, timestamp, timestamp, 0) < 0) return false;
  avcodec_flush_buffers(decoder_.get());
  draining_ = false;
  return true;
}

bool VideoSource::seek_before(Rational time) {
  const AVIOContext* io = format_->pb;
  if (!io || !(io->seekable & AVIO_SEEKABLE_NORMAL) || time <= info_.start) return false;
  const Rational time_base = info_.time_base;
  if (!seek_to(((time + info_.offset) / time_base).floor())) return false;
  const auto drop = [](AVPacket&) {};
  peeked_ = decode_next(drop);
  if (peeked_ && peeked_->time <= time) return true;
  // The demuxer landed after `time` (an index that is off, or no keyframe before it): start over.
  peeked_.reset();
  const AVStream& stream = *format_->streams[video_];
  const std::int64_t start = stream.start_time != AV_NOPTS_VALUE ? stream.start_time : 0;
  if (!seek_to(start)) throw Error(ErrorKind::io, name_ + ": cannot seek back to its start");
  next_time_ = info_.start;
  return false;
}

std::vector<Rational> VideoSource::scan_key_frames() {
  AVFormatContext* context = format_.get();
  const AVRational time_base = context->streams[video_]->time_base;
  std::vector<Rational> keys;
  for (;;) {
    const int read = av_read_frame(context, packet_.get());
    if (read == AVERROR_EXIT) throw Error(ErrorKind::cancelled, "interrupted");
    if (read < 0) {
      // Damaged data mid-file is skipped, and bounded, as decoding does; else the scan ends.
      if (read != AVERROR_INVALIDDATA || (context->pb && avio_feof(context->pb))) break;
      damaged("unreadable data while looking for key frames");
      continue;
    }
    damaged_in_a_row_ = 0;
    const AVPacket& packet = *packet_;
    if (packet.stream_index == video_ && (packet.flags & AV_PKT_FLAG_KEY) && packet.pts != AV_NOPTS_VALUE)
      keys.push_back(stream_time(packet.pts, time_base) - info_.offset);
    av_packet_unref(packet_.get());
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::optional<SourceFrame> VideoSource::decode_next(const std::function<void(AVPacket&)>& copy) {
  AVFormatContext* context = format_.get();
  for (;;) {
    if (aborted_) throw Error(ErrorKind::cancelled, "interrupted");
    const int received = avcodec_receive_frame(decoder_.get(), frame_.get());
    if (received == 0) {
      if (auto frame = take_frame()) return frame;
      continue;
    }
    if (received == AVERROR_EOF || (received == AVERROR(EAGAIN) && draining_)) {
      check_complete();
      return std::nullopt;
    }
    if (received != AVERROR(EAGAIN)) {
      damaged("undecodable video near " + clock_text(last_read_));
      continue;
    }
    const int read = av_read_frame(context, packet_.get());
    if (read == AVERROR_EXIT) throw Error(ErrorKind::cancelled, "interrupted");
    // Errors at the end of the data are a truncated file: check_complete tells.
    if (read == AVERROR_EOF || (read < 0 && context->pb && avio_feof(context->pb))) {
      if (context->pb && context->pb->error < 0 && context->pb->error != AVERROR_EOF)
        throw av_failure(ErrorKind::io, name_ + ": read error", context->pb->error);
      avcodec_send_packet(decoder_.get(), nullptr);
      draining_ = true;
      continue;
    }
    if (read == AVERROR_INVALIDDATA) {
      damaged("unreadable data after " + clock_text(last_read_));
      continue;
    }
    check_av(read, ErrorKind::io, name_ + ": read error");
    AVPacket& packet = *packet_;
    if (packet.stream_index == video_) {
      const std::int64_t ts = packet.pts != AV_NOPTS_VALUE ? packet.pts : packet.dts;
      if (ts != AV_NOPTS_VALUE)
        last_read_ = stream_time(ts, context->streams[video_]->time_base) - info_.offset;
      const int sent = avcodec_send_packet(decoder_.get(), &packet);
      if (sent < 0 && sent != AVERROR(EAGAIN)) damaged("undecodable video at " + clock_text(last_read_));
    } else if (copyable(*context->streams[packet.stream_index])) {
      const std::int64_t shift = shifts_[std::size_t(packet.stream_index)];
      if (packet.pts != AV_NOPTS_VALUE) packet.pts -= shift;
      if (packet.dts != AV_NOPTS_VALUE) packet.dts -= shift;
      copy(packet);
    }
    av_packet_unref(&packet);
  }
}

std::optional<SourceFrame> VideoSource::take_frame() {
  struct Unref {
    AVFrame* frame;
    ~Unref() { av_frame_unref(frame); }
  } unref{frame_.get()};
  const AVFrame& f = *frame_;
  const AVRational time_base = format_->streams[video_]->time_base;
  const Rational time = f.best_effort_timestamp != AV_NOPTS_VALUE
                            ? stream_time(f.best_effort_timestamp, time_base) - info_.offset
                            : next_time_;
  if ((f.flags & AV_FRAME_FLAG_CORRUPT) || f.decode_error_flags) {
    damaged("damaged video frame at " + clock_text(time));
    return std::nullopt;
  }
  Rational duration = f.pkt_duration > 0 ? stream_time(f.pkt_duration, time_base) : Rational(0);
  if (duration == Rational(0))
    duration = info_.frame_rate > Rational(0) ? Rational(1) / info_.frame_rate : to_rational(time_base);
  next_time_ = time + duration;
  damaged_in_a_row_ = 0;
  return SourceFrame{rgb_->convert(f), time, duration};
}

void VideoSource::damaged(const std::string& what) {
  const std::int64_t count = ++damaged_;
  if (strict_) throw Error(ErrorKind::io, name_ + ": " + what + " (--strict stops at damage)");
  if (++damaged_in_a_row_ > max_damaged_in_a_row)
    throw Error(ErrorKind::io, name_ + ": the video is damaged beyond repair after " + clock_text(last_read_));
  if (count <= damaged_listed)
    warn_(name_ + ": " + what + "; skipped, its neighbours bridge the gap");
  else if (count == damaged_listed + 1)
    warn_(name_ + ": more damaged video; further damage is skipped without a message");
}

void VideoSource::check_complete() const {
  if (info_.duration == Rational(0)) return;
  const Rational end = info_.start + info_.duration;
  Rational tolerance(1, 2);
  if (info_.frame_rate > Rational(0)) tolerance = std::max(tolerance, Rational(4) / info_.frame_rate);
  if (next_time_ + tolerance < end)
    throw Error(ErrorKind::io, name_ + ": the file is truncated: its video stops at " +
                                   clock_text(next_time_) + " of " + clock_text(end));
}

}  // namespace framecast::video
