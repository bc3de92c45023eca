// Between GStreamer's raw video and the engine's frames: any negotiated 8-bit format
// (packed RGB variants, I420, NV12, ...) to packed 8-bit RGB and back, through
// GstVideoConverter, which applies the caps' colour matrix and range.
#pragma once

#include <gst/video/video.h>

#include <memory>

#include "framecast/frame.hpp"

namespace framecast::gst {

struct BufferUnref {
  void operator()(GstBuffer* buffer) const { gst_buffer_unref(buffer); }
};
// One owned reference to a buffer.
using BufferPtr = std::unique_ptr<GstBuffer, BufferUnref>;

class FrameConverter {
 public:
  // Throws Error(unsupported) for a format GstVideoConverter cannot convert.
  explicit FrameConverter(const GstVideoInfo& format);

  // Throws Error(invalid_argument) when the buffer does not hold a frame of the format.
  Frame to_rgb(GstBuffer* buffer) const;
  // A new buffer in the format (alpha, where it has one, opaque).
  BufferPtr from_rgb(const Frame& frame) const;

 private:
  struct ConverterFree {
    void operator()(GstVideoConverter* converter) const { gst_video_converter_free(converter); }
  };
  using ConverterPtr = std::unique_ptr<GstVideoConverter, ConverterFree>;

  GstVideoInfo format_;
  GstVideoInfo rgb_;  // packed rows of width * 3 bytes, as Frame stores them
  ConverterPtr to_rgb_, from_rgb_;
};

}  // namespace framecast::gst
