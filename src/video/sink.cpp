#include "video/sink.hpp"

#include <unistd.h>

#include <cstring>

namespace framecast::video {
namespace {

// Tags that describe the input's encoding rather than its content go stale.
bool stale_tag(const std::string& key) {
  return key == "encoder" || key == "DURATION" || key == "BPS" || key.rfind("NUMBER_OF_", 0) == 0 ||
         key.rfind("_STATISTICS_", 0) == 0;
}

void copy_tags(AVDictionary* from, AVDictionary** to) {
  const AVDictionaryEntry* e = nullptr;
  while ((e = av_dict_get(from, "", e, AV_DICT_IGNORE_SUFFIX)))
    if (!stale_tag(e->key)) av_dict_set(to, e->key, e->value, 0);
}

std::string stream_text(const AVStream& s) {
  return "stream #" + std::to_string(s.index) + " (" +
         av_get_media_type_string(s.codecpar->codec_type) + ", " +
         avcodec_get_name(s.codecpar->codec_id) + ")";
}

AVStream& new_stream(AVFormatContext& output) {
  AVStream* stream = avformat_new_stream(&output, nullptr);
  if (!stream) throw Error(ErrorKind::out_of_memory, "out of memory (output stream)");
  return *stream;
}

}  // namespace

VideoSink::VideoSink(const std::string& output, const VideoSource& source, Rational rate,
                     const EncoderSettings& settings, const Warn& warn, std::function<bool()> cancelled,
                     bool video_only)
    : name_(output == "-" ? "stdout" : output), cancelled_(std::move(cancelled)), packet_(alloc_packet()) {
  capture_ffmpeg_log();
  const AVOutputFormat& container = output_format(output);
  if (output != "-") file_.emplace(output);
  const std::string target = output == "-" ? "pipe:1" : file_->temp_path().string();
  AVFormatContext* context = nullptr;
  check_av(avformat_alloc_output_context2(&context, &container, nullptr, target.c_str()),
           ErrorKind::unsupported, name_ + ": cannot set up the container");
  output_.reset(context);
  context->interrupt_callback = {
      [](void* self) -> int { return static_cast<const VideoSink*>(self)->stopping(); }, this};
  // As for stdin (source.cpp): a write to a pipe whose reader stalls must not block Ctrl-C.
  if (output == "-" && PipeIo::is_pipe(STDOUT_FILENO)) {
    pipe_ = std::make_unique<PipeIo>(STDOUT_FILENO, PipeIo::Direction::write,
                                     [this] { return stopping(); });
    context->pb = pipe_->context();
    context->flags |= AVFMT_FLAG_CUSTOM_IO;
  }
  // yuv4mpeg's deeper-than-8-bit formats are an FFmpeg extension.
  if (std::string(container.name) == "yuv4mpegpipe") context->strict_std_compliance = FF_COMPLIANCE_UNOFFICIAL;

  open_encoder(source, rate, settings, warn);
  add_streams(source, video_only, warn);
  copy_tags(source.format().metadata, &context->metadata);

  if (!(container.flags & AVFMT_NOFILE) && !pipe_)
    check_av(avio_open2(&context->pb, target.c_str(), AVIO_FLAG_WRITE, &context->interrupt_callback, nullptr),
             ErrorKind::io, name_ + ": cannot write");
  check_av(avformat_write_header(context, nullptr), ErrorKind::io, name_ + ": cannot write the header");
}

void VideoSink::open_encoder(const VideoSource& source, Rational rate, const EncoderSettings& settings,
                             const Warn& warn) {
  const SourceInfo& in = source.info();
  const AVCodec& codec = choose_encoder(*output_->oformat, settings.codec);
  const AVPixelFormat format = choose_pixel_format(codec, in.pixel_format, in.width, in.height);
  if (bit_depth(format) < bit_depth(in.pixel_format))
    warn(std::string("the encoder ") + codec.name + " cannot store " +
         std::to_string(bit_depth(in.pixel_format)) + "-bit video; writing " +
         std::to_string(bit_depth(format)) + "-bit");
  clock_ = make_output_clock(rate, in.start, std::string(output_->oformat->name) == "yuv4mpegpipe");

  encoder_ = alloc_codec_context(&codec);
  AVCodecContext& e = *encoder_;
  e.width = in.width;
  e.height = in.height;
  e.pix_fmt = format;
  e.time_base = to_av(clock_.time_base);
  e.framerate = to_av(rate);
  e.sample_aspect_ratio = in.sample_aspect_ratio;
  e.color_primaries = in.colour.primaries;
  e.color_trc = in.colour.transfer;
  e.colorspace = in.colour.matrix;
  e.color_range = in.colour.range;
  e.chroma_sample_location = in.colour.chroma_location;
  if (output_->oformat->flags & AVFMT_GLOBALHEADER) e.flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  AVDictionary* options = encoder_options(codec, settings);
  const int opened = avcodec_open2(&e, &codec, &options);
  av_dict_free(&options);
  check_av(opened, ErrorKind::unsupported, std::string("cannot open the encoder ") + codec.name);
  yuv_.emplace(depth_for(in.pixel_format), format, in.width, in.height, in.colour);

  description_ = std::string(codec.name) + " " + av_get_pix_fmt_name(format);
  if (const auto crf = effective_crf(codec, settings)) description_ += " crf " + std::to_string(*crf);
  if (!settings.preset.empty()) description_ += " preset " + settings.preset;
}

void VideoSink::add_streams(const VideoSource& source, bool video_only, const Warn& warn) {
  const AVFormatContext& in = source.format();
  AVFormatContext& out = *output_;
  const std::string container = out.oformat->name;
  bool dropped_for_y4m = false;
  copied_.assign(in.nb_streams, -1);
  for (unsigned i = 0; i < in.nb_streams; ++i) {
    const AVStream& s = *in.streams[i];
    input_bases_.push_back(s.time_base);
    const auto type = s.codecpar->codec_type;
    if (int(i) == source.video_stream()) {
      AVStream& v = new_stream(out);
      check_av(avcodec_parameters_from_context(v.codecpar, encoder_.get()), ErrorKind::internal,
               "video stream parameters");
      v.time_base = encoder_->time_base;
      v.avg_frame_rate = encoder_->framerate;
      v.sample_aspect_ratio = encoder_->sample_aspect_ratio;
      v.disposition = s.disposition;
      copy_tags(s.metadata, &v.metadata);
      // Rotation and HDR mastering metadata live in the stream's side data.
      for (int k = 0; k < s.nb_side_data; ++k) {
        const AVPacketSideData& side = s.side_data[k];
        std::uint8_t* data = av_stream_new_side_data(&v, side.type, side.size);
        if (!data) throw Error(ErrorKind::out_of_memory, "out of memory (side data)");
        std::memcpy(data, side.data, side.size);
      }
      video_out_ = v.index;
    } else if (video_only) {
      continue;
    } else if (type == AVMEDIA_TYPE_AUDIO || type == AVMEDIA_TYPE_SUBTITLE) {
      if (container == "yuv4mpegpipe") {
        dropped_for_y4m = true;
        continue;
      }
      if (avformat_query_codec(out.oformat, s.codecpar->codec_id, FF_COMPLIANCE_NORMAL) == 0)
        throw Error(ErrorKind::unsupported,
                    source.name() + ": " + stream_text(s) + " cannot go into the " + container +
                        " container without re-encoding; write .mkv instead");
      AVStream& c = new_stream(out);
      check_av(avcodec_parameters_copy(c.codecpar, s.codecpar), ErrorKind::out_of_memory, "stream copy");
      c.codecpar->codec_tag = 0;  // the output container picks its own tag
      c.time_base = s.time_base;
      c.disposition = s.disposition;
      copy_tags(s.metadata, &c.metadata);
      copied_[i] = c.index;
    } else if (type == AVMEDIA_TYPE_ATTACHMENT && container == "matroska") {
      AVStream& a = new_stream(out);  // fonts of styled subtitles
      check_av(avcodec_parameters_copy(a.codecpar, s.codecpar), ErrorKind::out_of_memory, "attachment copy");
      copy_tags(s.metadata, &a.metadata);
    } else if (type == AVMEDIA_TYPE_VIDEO) {
      warn(source.name() + ": " + stream_text(s) + " is not copied (only the main video is)");
    }
  }
  if (dropped_for_y4m) warn("yuv4mpeg carries video only: the audio and subtitle streams are left out");

  const std::int64_t chapters = in.nb_chapters;
  for (std::int64_t i = 0; i < chapters && !video_only && container != "yuv4mpegpipe"; ++i) {
    const AVChapter& c = *in.chapters[i];
    const std::int64_t shift = (source.info().offset / to_rational(c.time_base)).round();
    auto** grown = static_cast<AVChapter**>(
        av_realloc_array(out.chapters, out.nb_chapters + 1, sizeof(AVChapter*)));
    if (grown) out.chapters = grown;
    auto* chapter = static_cast<AVChapter*>(av_mallocz(sizeof(AVChapter)));
    if (!grown || !chapter) throw Error(ErrorKind::out_of_memory, "out of memory (chapters)");
    *chapter = {c.id, c.time_base, c.start - shift, c.end - shift, nullptr};
    av_dict_copy(&chapter->metadata, c.metadata, 0);
    out.chapters[out.nb_chapters++] = chapter;
  }
}

void VideoSink::write(const Frame& rgb, std::int64_t index) {
  AvFramePtr frame = yuv_->convert(rgb);
  frame->pts = clock_.pts(index);
  frame->pkt_duration = clock_.ticks_per_frame();
  frame->color_primaries = encoder_->color_primaries;
  frame->color_trc = encoder_->color_trc;
  frame->colorspace = encoder_->colorspace;
  frame->color_range = encoder_->color_range;
  frame->sample_aspect_ratio = encoder_->sample_aspect_ratio;
  check_av(avcodec_send_frame(encoder_.get(), frame.get()), ErrorKind::internal, "encoding failed");
  drain_encoder();
}

void VideoSink::drain_encoder() {
  AVPacket& packet = *packet_;
  for (;;) {
    const int received = avcodec_receive_packet(encoder_.get(), &packet);
    if (received == AVERROR(EAGAIN) || received == AVERROR_EOF) return;
    check_av(received, ErrorKind::internal, "encoding failed");
    if (packet.duration == 0) packet.duration = clock_.ticks_per_frame();
    av_packet_rescale_ts(&packet, encoder_->time_base, output_->streams[video_out_]->time_base);
    packet.stream_index = video_out_;
    mux(packet);
  }
}

void VideoSink::copy(AVPacket& packet) {
  const int to = copied_[std::size_t(packet.stream_index)];
  if (to < 0) return;
  av_packet_rescale_ts(&packet, input_bases_[std::size_t(packet.stream_index)],
                       output_->streams[to]->time_base);
  packet.stream_index = to;
  packet.pos = -1;
  mux(packet);
}

void VideoSink::mux(AVPacket& packet) {
  std::lock_guard lock(mux_mutex_);
  check_av(av_interleaved_write_frame(output_.get(), &packet), ErrorKind::io, name_ + ": cannot write");
  if (output_->pb && output_->pb->error < 0)
    throw av_failure(ErrorKind::io, name_ + ": cannot write", output_->pb->error);
}

void VideoSink::finish() {
  check_av(avcodec_send_frame(encoder_.get(), nullptr), ErrorKind::internal, "encoding failed");
  drain_encoder();
  std::lock_guard lock(mux_mutex_);
  check_av(av_write_trailer(output_.get()), ErrorKind::io, name_ + ": cannot finish the file");
  if (output_->pb && !(output_->oformat->flags & AVFMT_NOFILE)) {
    avio_flush(output_->pb);
    const int error = output_->pb->error;
    if (!pipe_) check_av(avio_closep(&output_->pb), ErrorKind::io, name_ + ": cannot finish the file");
    check_av(error, ErrorKind::io, name_ + ": cannot finish the file");
  }
}

void VideoSink::commit() {
  if (file_) file_->commit();
}

}  // namespace framecast::video
