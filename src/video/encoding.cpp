#include "video/encoding.hpp"

#include <filesystem>
#include <vector>

extern "C" {
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
}

namespace framecast::video {
namespace {

bool subsampled(AVPixelFormat format) {
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(format);
  return d && (d->log2_chroma_w > 0 || d->log2_chroma_h > 0);
}

bool has_option(const AVCodec& encoder, const char* name) {
  const AVClass* priv = encoder.priv_class;
  return priv && av_opt_find(&priv, name, nullptr, 0, AV_OPT_SEARCH_FAKE_OBJ) != nullptr;
}

std::string default_encoder(const AVOutputFormat& container) {
  const std::string name = container.name;
  if (name == "yuv4mpegpipe") return "wrapped_avframe";  // the only input this muxer takes
  if (name == "webm") return "libvpx-vp9";
  if (name == "mp4" || name == "mov" || name == "matroska") return "libx264";
  const AVCodec* fallback = avcodec_find_encoder(container.video_codec);
  if (!fallback) throw Error(ErrorKind::unsupported, name + " has no default video encoder here; pass --codec");
  return fallback->name;
}

}  // namespace

const AVOutputFormat& output_format(const std::string& output) {
  if (output == "-") return *av_guess_format("yuv4mpegpipe", nullptr, nullptr);
  const AVOutputFormat* format = av_guess_format(nullptr, output.c_str(), nullptr);
  if (!format || format->video_codec == AV_CODEC_ID_NONE)
    throw Error(ErrorKind::unsupported,
                output + ": no video container for the extension '" +
                    std::filesystem::path(output).extension().string() +
                    "' (use .mp4, .mkv, .mov, .webm or .y4m)");
  return *format;
}

const AVCodec& choose_encoder(const AVOutputFormat& container, const std::string& requested) {
  const std::string name = requested.empty() ? default_encoder(container) : requested;
  const AVCodec* codec = avcodec_find_encoder_by_name(name.c_str());
  if (!codec || codec->type != AVMEDIA_TYPE_VIDEO)
    throw Error(ErrorKind::unsupported,
                "this FFmpeg build has no video encoder '" + name + "' (see `ffmpeg -encoders`)");
  if (std::string(container.name) != "yuv4mpegpipe" &&
      avformat_query_codec(&container, codec->id, FF_COMPLIANCE_NORMAL) == 0)
    throw Error(ErrorKind::unsupported, std::string("the ") + container.name + " container cannot hold " +
                                            avcodec_get_name(codec->id) + " video (encoder " + name + ")");
  return *codec;
}

AVPixelFormat choose_pixel_format(const AVCodec& encoder, AVPixelFormat input, int width, int height) {
  if (!encoder.pix_fmts) return input;  // takes anything (raw frames)
  std::vector<AVPixelFormat> candidates;
  for (const AVPixelFormat* f = encoder.pix_fmts; *f != AV_PIX_FMT_NONE; ++f) candidates.push_back(*f);
  const auto best_of = [&](const std::vector<AVPixelFormat>& list) {
    std::vector<AVPixelFormat> terminated = list;
    terminated.push_back(AV_PIX_FMT_NONE);
    return avcodec_find_best_pix_fmt_of_list(terminated.data(), input, 0, nullptr);
  };
  AVPixelFormat best = best_of(candidates);
  if (subsampled(best) && (width % 2 || height % 2)) {
    std::vector<AVPixelFormat> full;
    for (AVPixelFormat f : candidates)
      if (!subsampled(f)) full.push_back(f);
    if (!full.empty()) best = best_of(full);
  }
  return best;
}

std::optional<int> effective_crf(const AVCodec& encoder, const EncoderSettings& settings) {
  const std::string name = encoder.name;
  if (settings.crf) return settings.crf;
  if (name == "libx264") return 18;
  if (name == "libvpx-vp9") return 31;
  return std::nullopt;
}

AVDictionary* encoder_options(const AVCodec& encoder, const EncoderSettings& settings) {
  const std::string name = encoder.name;
  AVDictionary* options = nullptr;
  if (const auto crf = effective_crf(encoder, settings)) {
    if (!has_option(encoder, "crf"))
      throw Error(ErrorKind::invalid_argument, "the encoder " + name + " has no --crf");
    av_dict_set_int(&options, "crf", *crf, 0);
  }
  if (name == "libvpx-vp9") {
    // Constant quality needs a zero bit rate; cpu-used 4 with row threads is the usual
    // speed/quality balance (FFmpeg's default, 1, is several times slower).
    av_dict_set(&options, "b", "0", 0);
    av_dict_set(&options, "row-mt", "1", 0);
    av_dict_set(&options, "cpu-used", "4", 0);
  }
  if (!settings.preset.empty()) {
    if (!has_option(encoder, "preset")) {
      av_dict_free(&options);
      throw Error(ErrorKind::invalid_argument, "the encoder " + name + " has no --preset");
    }
    av_dict_set(&options, "preset", settings.preset.c_str(), 0);
  }
  return options;
}

}  // namespace framecast::video
