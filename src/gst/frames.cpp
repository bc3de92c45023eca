#include "frames.hpp"

#include <string>

#include "framecast/error.hpp"

namespace framecast::gst {
namespace {

// Maps `buffer` as a frame of `info`; unmaps when it goes.
class MappedFrame {
 public:
  MappedFrame(const GstVideoInfo& info, GstBuffer* buffer, GstMapFlags flags) {
    if (!gst_video_frame_map(&frame_, &info, buffer, flags))
      throw Error(ErrorKind::invalid_argument,
                  "a buffer does not hold a frame of the negotiated format");
  }
  ~MappedFrame() { gst_video_frame_unmap(&frame_); }
  MappedFrame(const MappedFrame&) = delete;
  MappedFrame& operator=(const MappedFrame&) = delete;
  GstVideoFrame* get() { return &frame_; }

 private:
  GstVideoFrame frame_;
};

// A buffer over a Frame's samples, which stay the Frame's (so the Frame must outlive it).
BufferPtr wrap(const Frame& frame, GstMemoryFlags flags) {
  const auto samples = frame.rgb8();
  return BufferPtr(gst_buffer_new_wrapped_full(flags, const_cast<std::uint8_t*>(samples.data()),
                                               samples.size(), 0, samples.size(), nullptr,
                                               nullptr));
}

}  // namespace

FrameConverter::FrameConverter(const GstVideoInfo& format) : format_(format) {
  const guint width = GST_VIDEO_INFO_WIDTH(&format), height = GST_VIDEO_INFO_HEIGHT(&format);
  gst_video_info_set_format(&rgb_, GST_VIDEO_FORMAT_RGB, width, height);
  rgb_.stride[0] = gint(width * 3);  // GStreamer's RGB rows are padded to 4 bytes; Frame's not
  rgb_.size = gsize(width) * 3 * height;
  rgb_.fps_n = format.fps_n;  // GstVideoConverter converts pictures, not rates
  rgb_.fps_d = format.fps_d;
  to_rgb_.reset(gst_video_converter_new(&format_, &rgb_, nullptr));
  from_rgb_.reset(gst_video_converter_new(&rgb_, &format_, nullptr));
  if (!to_rgb_ || !from_rgb_)
    throw Error(ErrorKind::unsupported,
                std::string("no conversion between RGB and ") + GST_VIDEO_INFO_NAME(&format));
}

Frame FrameConverter::to_rgb(GstBuffer* buffer) const {
  Frame frame(GST_VIDEO_INFO_WIDTH(&format_), GST_VIDEO_INFO_HEIGHT(&format_));
  {
    const BufferPtr target = wrap(frame, GstMemoryFlags(0));
    MappedFrame in(format_, buffer, GST_MAP_READ);
    MappedFrame out(rgb_, target.get(), GST_MAP_WRITE);
    gst_video_converter_frame(to_rgb_.get(), in.get(), out.get());
  }
  return frame;
}

BufferPtr FrameConverter::from_rgb(const Frame& frame) const {
  const BufferPtr source = wrap(frame, GST_MEMORY_FLAG_READONLY);
  BufferPtr buffer(gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&format_), nullptr));
  {
    MappedFrame in(rgb_, source.get(), GST_MAP_READ);
    MappedFrame out(format_, buffer.get(), GST_MAP_WRITE);
    gst_video_converter_frame(from_rgb_.get(), in.get(), out.get());
  }
  return buffer;
}

}  // namespace framecast::gst
