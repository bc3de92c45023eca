// Colour conversion between a video's pixel format and the engine's RGB frames, with the
// stream's own matrix and range (the cause of yellow casts and washed-out output when
// guessed wrong), at the video's depth: up to 8 bits -> RGB8 frames, deeper -> RGB16 frames.
#pragma once

#include "framecast/frame.hpp"
#include "video/ffmpeg.hpp"

namespace framecast::video {

// What a stream says about its colours; written to the output unchanged.
struct ColourTags {
  AVColorPrimaries primaries = AVCOL_PRI_UNSPECIFIED;
  AVColorTransferCharacteristic transfer = AVCOL_TRC_UNSPECIFIED;
  AVColorSpace matrix = AVCOL_SPC_UNSPECIFIED;
  AVColorRange range = AVCOL_RANGE_UNSPECIFIED;
  AVChromaLocation chroma_location = AVCHROMA_LOC_UNSPECIFIED;
};

ColourTags colour_tags(const AVCodecParameters& parameters);

// How YUV samples map to RGB: the tagged matrix and range, or for untagged video what
// players assume (BT.709 from 1280 wide or above 576 lines, else BT.601; limited range,
// except the legacy full-range "yuvj" formats).
struct YuvMapping {
  int sws_colorspace = SWS_CS_ITU709;
  bool full_range = false;
};
YuvMapping yuv_mapping(AVColorSpace matrix, AVColorRange range, AVPixelFormat format, int width,
                       int height);

// The legacy "yuvj" formats as their plain twin (their full range goes in the tags).
AVPixelFormat plain_format(AVPixelFormat format);
// Bits per sample of a format's first component.
int bit_depth(AVPixelFormat format);
SampleDepth depth_for(AVPixelFormat format);

// Decoded frames -> RGB frames of one size and depth (frames of another size are scaled:
// a mid-stream size change keeps the first size).
class RgbConverter {
 public:
  RgbConverter(int width, int height, SampleDepth depth);
  Frame convert(const AVFrame& frame);

 private:
  int width_, height_;
  SampleDepth depth_;
  SwsPtr context_;
  AvFramePtr staging_;  // aligned RGB rows for swscale, copied into the Frame
  // What context_ was made for.
  AVPixelFormat from_format_ = AV_PIX_FMT_NONE;
  int from_width_ = 0, from_height_ = 0;
  YuvMapping from_mapping_;
};

// RGB frames -> frames in an encoder's pixel format.
class YuvConverter {
 public:
  YuvConverter(SampleDepth depth, AVPixelFormat format, int width, int height,
               const ColourTags& tags);
  // A new frame of the encoder's format holding `rgb` (size and depth as constructed).
  AvFramePtr convert(const Frame& rgb);

 private:
  AVPixelFormat format_;
  int width_, height_;
  SampleDepth depth_;
  SwsPtr context_;
  AvFramePtr staging_;
};

}  // namespace framecast::video
