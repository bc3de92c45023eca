#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "io/test_pattern.hpp"
#include "video/colour.hpp"

namespace framecast::video {
namespace {

AvFramePtr yuv_frame(AVPixelFormat format, int w, int h, int y, int u, int v) {
  AvFramePtr f = alloc_frame();
  f->format = format;
  f->width = w;
  f->height = h;
  EXPECT_EQ(av_frame_get_buffer(f.get(), 0), 0);
  const bool wide = bit_depth(format) > 8;
  const int values[3] = {y, u, v};
  for (int p = 0; p < 3; ++p) {
    const int ph = p == 0 ? h : AV_CEIL_RSHIFT(h, av_pix_fmt_desc_get(format)->log2_chroma_h);
    for (int row = 0; row < ph; ++row)
      for (int x = 0; x < f->linesize[p] / (wide ? 2 : 1); ++x) {
        std::uint8_t* line = f->data[p] + std::ptrdiff_t(f->linesize[p]) * row;
        if (wide) reinterpret_cast<std::uint16_t*>(line)[x] = std::uint16_t(values[p]);
        else line[x] = std::uint8_t(values[p]);
      }
  }
  return f;
}

int max_difference(const Frame& a, const Frame& b) {
  int worst = 0;
  for (std::size_t i = 0; i < a.sample_count(); ++i) worst = std::max(worst, std::abs(a.sample(i) - b.sample(i)));
  return worst;
}

TEST(Colour, UsesTheTaggedMatrixAndRange) {
  // Y=100, Cb=90, Cr=200 (8-bit, limited): R = 1.164 (Y-16) + k (Cr-128), k by matrix. Tall
  // enough for swscale's slice threads to split it: every slice must use the tagged matrix.
  for (const auto& [matrix, k] : {std::pair{AVCOL_SPC_BT709, 1.793}, std::pair{AVCOL_SPC_BT470BG, 1.596}}) {
    AvFramePtr in = yuv_frame(AV_PIX_FMT_YUV420P, 64, 240, 100, 90, 200);
    in->colorspace = matrix;
    in->color_range = AVCOL_RANGE_MPEG;
    const Frame rgb = RgbConverter(64, 240, SampleDepth::u8).convert(*in);
    for (std::size_t i = 0; i < rgb.sample_count(); i += 3)
      ASSERT_NEAR(rgb.sample(i), 1.164 * (100 - 16) + k * (200 - 128), 1.5)
          << av_color_space_name(matrix) << " pixel " << i / 3;
  }
  AvFramePtr full = yuv_frame(AV_PIX_FMT_YUV444P, 8, 8, 16, 128, 128);
  full->colorspace = AVCOL_SPC_BT709;
  full->color_range = AVCOL_RANGE_JPEG;
  EXPECT_NEAR(RgbConverter(8, 8, SampleDepth::u8).convert(*full).sample(0), 16, 1);
  full->color_range = AVCOL_RANGE_MPEG;
  EXPECT_NEAR(RgbConverter(8, 8, SampleDepth::u8).convert(*full).sample(0), 0, 1);
}

TEST(Colour, GuessesForUntaggedVideoAsPlayersDo) {
  EXPECT_EQ(yuv_mapping(AVCOL_SPC_UNSPECIFIED, AVCOL_RANGE_UNSPECIFIED, AV_PIX_FMT_YUV420P, 1920, 1080).sws_colorspace, SWS_CS_ITU709);
  EXPECT_EQ(yuv_mapping(AVCOL_SPC_UNSPECIFIED, AVCOL_RANGE_UNSPECIFIED, AV_PIX_FMT_YUV420P, 720, 576).sws_colorspace, SWS_CS_ITU601);
  EXPECT_FALSE(yuv_mapping(AVCOL_SPC_UNSPECIFIED, AVCOL_RANGE_UNSPECIFIED, AV_PIX_FMT_YUV420P, 64, 64).full_range);
  EXPECT_TRUE(yuv_mapping(AVCOL_SPC_UNSPECIFIED, AVCOL_RANGE_UNSPECIFIED, AV_PIX_FMT_YUVJ420P, 64, 64).full_range);
  EXPECT_EQ(plain_format(AV_PIX_FMT_YUVJ420P), AV_PIX_FMT_YUV420P);
  EXPECT_EQ(yuv_mapping(AVCOL_SPC_BT2020_NCL, AVCOL_RANGE_MPEG, AV_PIX_FMT_YUV420P10LE, 64, 64).sws_colorspace, SWS_CS_BT2020);
}

TEST(Colour, EightBitRoundTripIsNearlyLossless) {
  const Frame rgb = io::test_pattern(64, 48, 3.0f);
  ColourTags tags;
  tags.matrix = AVCOL_SPC_BT709;
  tags.range = AVCOL_RANGE_MPEG;
  AvFramePtr yuv = YuvConverter(SampleDepth::u8, AV_PIX_FMT_YUV444P, 64, 48, tags).convert(rgb);
  yuv->colorspace = tags.matrix;
  yuv->color_range = tags.range;
  EXPECT_LE(max_difference(RgbConverter(64, 48, SampleDepth::u8).convert(*yuv), rgb), 3);
}

TEST(Colour, TenBitVideoNeverPassesThroughEightBits) {
  // A 10-bit luma ramp with a level per column: every level survives into the RGB16 frame
  // and back, which an 8-bit intermediate (220 luma levels) could not do.
  const int w = 512, h = 4;
  AvFramePtr in = yuv_frame(AV_PIX_FMT_YUV420P10LE, w, h, 0, 512, 512);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      reinterpret_cast<std::uint16_t*>(in->data[0] + std::ptrdiff_t(in->linesize[0]) * y)[x] = std::uint16_t(200 + x);
  in->colorspace = AVCOL_SPC_BT709;
  in->color_range = AVCOL_RANGE_MPEG;
  const Frame rgb = RgbConverter(w, h, SampleDepth::u16).convert(*in);
  ASSERT_EQ(rgb.depth(), SampleDepth::u16);
  std::set<int> greens;
  for (int x = 0; x < w; ++x) greens.insert(rgb.sample(std::size_t(x) * 3 + 1));
  EXPECT_EQ(greens.size(), std::size_t(w));

  ColourTags tags;
  tags.matrix = AVCOL_SPC_BT709;
  tags.range = AVCOL_RANGE_MPEG;
  AvFramePtr back = YuvConverter(SampleDepth::u16, AV_PIX_FMT_YUV420P10LE, w, h, tags).convert(rgb);
  for (int x = 0; x < w; ++x)
    EXPECT_NEAR(reinterpret_cast<const std::uint16_t*>(back->data[0])[x], 200 + x, 1) << x;
}

TEST(Colour, DepthFollowsThePixelFormat) {
  EXPECT_EQ(depth_for(AV_PIX_FMT_YUV420P), SampleDepth::u8);
  EXPECT_EQ(depth_for(AV_PIX_FMT_YUV420P10LE), SampleDepth::u16);
  EXPECT_EQ(depth_for(AV_PIX_FMT_YUV444P12LE), SampleDepth::u16);
  EXPECT_EQ(bit_depth(AV_PIX_FMT_YUV420P10LE), 10);
}

TEST(Colour, SizeChangesMidStreamAreScaledToTheFirstSize) {
  RgbConverter converter(32, 16, SampleDepth::u8);
  AvFramePtr bigger = yuv_frame(AV_PIX_FMT_YUV420P, 64, 32, 120, 128, 128);
  const Frame out = converter.convert(*bigger);
  EXPECT_EQ(out.width(), 32);
  EXPECT_EQ(out.height(), 16);
}

}  // namespace
}  // namespace framecast::video
