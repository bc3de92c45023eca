#include "video/colour.hpp"

#include <cstring>

extern "C" {
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
}

namespace framecast::video {
namespace {

// Bicubic only matters for a mid-stream size change; the other flags keep chroma at full
// resolution between YUV and RGB and round accurately, so a round trip loses < 1 LSB.
constexpr int sws_flags =
    SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_FULL_CHR_H_INP;

AVPixelFormat rgb_format(SampleDepth depth) {
  return depth == SampleDepth::u8 ? AV_PIX_FMT_RGB24 : AV_PIX_FMT_RGB48;
}

std::size_t row_bytes(const Frame& frame) {
  return std::size_t(frame.width()) * 3 * (frame.depth() == SampleDepth::u8 ? 1 : 2);
}

AvFramePtr make_buffer(AVPixelFormat format, int width, int height) {
  AvFramePtr frame = alloc_frame();
  frame->format = format;
  frame->width = width;
  frame->height = height;
  check_av(av_frame_get_buffer(frame.get(), 0), ErrorKind::out_of_memory, "video frame buffer");
  return frame;
}

// Slice-threaded on every core: one 1080p conversion on one thread took ~30 ms, which made
// the decoding thread the pace of the whole pipeline on a GPU. (Threads only work through
// sws_scale_frame, not sws_scale.)
SwsPtr make_context(int src_w, int src_h, AVPixelFormat src, int dst_w, int dst_h,
                    AVPixelFormat dst) {
  SwsPtr context(sws_alloc_context());
  if (!context) throw Error(ErrorKind::out_of_memory, "cannot allocate a swscale context");
  SwsContext* c = context.get();
  const bool set = av_opt_set_int(c, "srcw", src_w, 0) >= 0 && av_opt_set_int(c, "srch", src_h, 0) >= 0 &&
                   av_opt_set_int(c, "src_format", src, 0) >= 0 &&
                   av_opt_set_int(c, "dstw", dst_w, 0) >= 0 && av_opt_set_int(c, "dsth", dst_h, 0) >= 0 &&
                   av_opt_set_int(c, "dst_format", dst, 0) >= 0 &&
                   av_opt_set_int(c, "sws_flags", sws_flags, 0) >= 0 &&
                   av_opt_set_int(c, "threads", 0, 0) >= 0;  // 0: one per core
  if (!set || sws_init_context(c, nullptr, nullptr) < 0)
    throw Error(ErrorKind::unsupported, std::string("cannot convert pixel format ") +
                                            av_get_pix_fmt_name(src) + " to " +
                                            av_get_pix_fmt_name(dst));
  return context;
}

void scale(SwsContext* context, AVFrame* dst, const AVFrame* src) {
  check_av(sws_scale_frame(context, dst, src), ErrorKind::internal, "pixel format conversion");
}

// YUV and grey formats (whose range matters), not RGB or palette ones.
bool is_yuv(AVPixelFormat format) {
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(format);
  return d && !(d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL));
}

}  // namespace

ColourTags colour_tags(const AVCodecParameters& p) {
  return {p.color_primaries, p.color_trc, p.color_space, p.color_range, p.chroma_location};
}

AVPixelFormat plain_format(AVPixelFormat format) {
  switch (format) {
    case AV_PIX_FMT_YUVJ420P: return AV_PIX_FMT_YUV420P;
    case AV_PIX_FMT_YUVJ422P: return AV_PIX_FMT_YUV422P;
    case AV_PIX_FMT_YUVJ444P: return AV_PIX_FMT_YUV444P;
    case AV_PIX_FMT_YUVJ440P: return AV_PIX_FMT_YUV440P;
    case AV_PIX_FMT_YUVJ411P: return AV_PIX_FMT_YUV411P;
    default: return format;
  }
}

YuvMapping yuv_mapping(AVColorSpace matrix, AVColorRange range, AVPixelFormat format, int width,
                       int height) {
  YuvMapping m;
  switch (matrix) {
    case AVCOL_SPC_BT709: m.sws_colorspace = SWS_CS_ITU709; break;
    case AVCOL_SPC_FCC: m.sws_colorspace = SWS_CS_FCC; break;
    case AVCOL_SPC_BT470BG:
    case AVCOL_SPC_SMPTE170M: m.sws_colorspace = SWS_CS_ITU601; break;
    case AVCOL_SPC_SMPTE240M: m.sws_colorspace = SWS_CS_SMPTE240M; break;
    case AVCOL_SPC_BT2020_NCL:
    case AVCOL_SPC_BT2020_CL: m.sws_colorspace = SWS_CS_BT2020; break;
    default:
      m.sws_colorspace = (width >= 1280 || height > 576) ? SWS_CS_ITU709 : SWS_CS_ITU601;
  }
  m.full_range = range == AVCOL_RANGE_JPEG || plain_format(format) != format ||
                 !is_yuv(plain_format(format));
  return m;
}

int bit_depth(AVPixelFormat format) {
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(format);
  return d ? d->comp[0].depth : 8;
}

SampleDepth depth_for(AVPixelFormat format) {
  return bit_depth(format) > 8 ? SampleDepth::u16 : SampleDepth::u8;
}

RgbConverter::RgbConverter(int width, int height, SampleDepth depth)
    : width_(width), height_(height), depth_(depth),
      staging_(make_buffer(rgb_format(depth), width, height)) {}

Frame RgbConverter::convert(const AVFrame& in) {
  const auto format = AVPixelFormat(in.format);
  const YuvMapping mapping = yuv_mapping(in.colorspace, in.color_range, format, in.width, in.height);
  if (!context_ || format != from_format_ || in.width != from_width_ ||
      in.height != from_height_ || mapping.sws_colorspace != from_mapping_.sws_colorspace ||
      mapping.full_range != from_mapping_.full_range) {
    context_ = make_context(in.width, in.height, format, width_, height_, rgb_format(depth_));
    const int* coefficients = sws_getCoefficients(mapping.sws_colorspace);
    sws_setColorspaceDetails(context_.get(), coefficients, mapping.full_range, coefficients, 1, 0,
                             1 << 16, 1 << 16);
    from_format_ = format;
    from_width_ = in.width;
    from_height_ = in.height;
    from_mapping_ = mapping;
  }
  scale(context_.get(), staging_.get(), &in);
  Frame out(width_, height_, depth_);
  auto* dst = depth_ == SampleDepth::u8 ? static_cast<void*>(out.rgb8().data())
                                        : static_cast<void*>(out.rgb16().data());
  const std::size_t row = row_bytes(out);
  for (int y = 0; y < height_; ++y)
    std::memcpy(static_cast<std::uint8_t*>(dst) + row * y,
                staging_->data[0] + std::ptrdiff_t(staging_->linesize[0]) * y, row);
  return out;
}

YuvConverter::YuvConverter(SampleDepth depth, AVPixelFormat format, int width, int height,
                           const ColourTags& tags)
    : format_(format), width_(width), height_(height), depth_(depth),
      context_(make_context(width, height, rgb_format(depth), width, height, format)),
      staging_(make_buffer(rgb_format(depth), width, height)) {
  const YuvMapping mapping = yuv_mapping(tags.matrix, tags.range, format, width, height);
  const int* coefficients = sws_getCoefficients(mapping.sws_colorspace);
  sws_setColorspaceDetails(context_.get(), coefficients, 1, coefficients, mapping.full_range, 0,
                           1 << 16, 1 << 16);
}

AvFramePtr YuvConverter::convert(const Frame& rgb) {
  if (rgb.width() != width_ || rgb.height() != height_ || rgb.depth() != depth_)
    throw Error(ErrorKind::internal, "YuvConverter: a frame of another size or depth");
  const auto* src = depth_ == SampleDepth::u8 ? static_cast<const void*>(rgb.rgb8().data())
                                              : static_cast<const void*>(rgb.rgb16().data());
  const std::size_t row = row_bytes(rgb);
  for (int y = 0; y < height_; ++y)
    std::memcpy(staging_->data[0] + std::ptrdiff_t(staging_->linesize[0]) * y,
                static_cast<const std::uint8_t*>(src) + row * y, row);
  AvFramePtr out = make_buffer(format_, width_, height_);
  scale(context_.get(), out.get(), staging_.get());
  return out;
}

}  // namespace framecast::video
