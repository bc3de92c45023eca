// Encoder choices for an output: the container from the name, the encoder (libx264 CRF 18
// for mp4/mkv/mov, VP9 for webm, raw frames for y4m) and the pixel format closest to the
// input's, at its depth where the encoder can.
#pragma once

#include <optional>
#include <string>

#include "video/ffmpeg.hpp"

namespace framecast::video {

struct EncoderSettings {
  std::string codec;       // an FFmpeg encoder name; empty: the container's default
  std::optional<int> crf;  // empty: the encoder's default here (18 for libx264)
  std::string preset;      // empty: the encoder's default
};

// The muxer for an output name: from the extension, "-" is yuv4mpeg on stdout. Throws
// Error(unsupported) for unknown extensions.
const AVOutputFormat& output_format(const std::string& output);

// The requested encoder, or the container's default. Throws Error(unsupported) when FFmpeg
// has no such video encoder or the container cannot hold its codec.
const AVCodec& choose_encoder(const AVOutputFormat& container, const std::string& requested);

// The encoder's pixel format nearest `input` (same depth and chroma where possible); when the
// choice subsamples chroma and the size is odd, its 4:4:4 sibling of the same depth.
AVPixelFormat choose_pixel_format(const AVCodec& encoder, AVPixelFormat input, int width, int height);

// The CRF the encoder will use: the setting, else 18 for libx264 and 31 for libvpx-vp9.
std::optional<int> effective_crf(const AVCodec& encoder, const EncoderSettings& settings);

// Encoder options for avcodec_open2: the settings and the defaults named above. Throws
// Error(invalid_argument) for a CRF or preset the encoder does not take.
AVDictionary* encoder_options(const AVCodec& encoder, const EncoderSettings& settings);

}  // namespace framecast::video
