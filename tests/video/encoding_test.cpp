#include <gtest/gtest.h>

#include "framecast/error.hpp"
#include "video/encoding.hpp"

namespace framecast::video {
namespace {

const AVCodec& encoder(const char* name) { return *avcodec_find_encoder_by_name(name); }

ErrorKind kind_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind();
  }
  return ErrorKind::internal;
}

TEST(Encoding, ContainerComesFromTheExtension) {
  EXPECT_STREQ(output_format("a.mp4").name, "mp4");
  EXPECT_STREQ(output_format("dir/a.MKV").name, "matroska");
  EXPECT_STREQ(output_format("a.webm").name, "webm");
  EXPECT_STREQ(output_format("a.y4m").name, "yuv4mpegpipe");
  EXPECT_STREQ(output_format("-").name, "yuv4mpegpipe");
  EXPECT_EQ(kind_of([] { output_format("a.xyz"); }), ErrorKind::unsupported);
  EXPECT_EQ(kind_of([] { output_format("noextension"); }), ErrorKind::unsupported);
}

TEST(Encoding, DefaultEncodersPerContainer) {
  EXPECT_STREQ(choose_encoder(output_format("a.mp4"), "").name, "libx264");
  EXPECT_STREQ(choose_encoder(output_format("a.mov"), "").name, "libx264");
  EXPECT_STREQ(choose_encoder(output_format("a.mkv"), "").name, "libx264");
  EXPECT_STREQ(choose_encoder(output_format("a.webm"), "").name, "libvpx-vp9");
  EXPECT_STREQ(choose_encoder(output_format("a.y4m"), "").name, "wrapped_avframe");
  EXPECT_STREQ(choose_encoder(output_format("a.mkv"), "ffv1").name, "ffv1");
}

TEST(Encoding, RefusesEncodersThatDoNotExistOrFit) {
  EXPECT_EQ(kind_of([] { choose_encoder(output_format("a.mp4"), "no-such-encoder"); }), ErrorKind::unsupported);
  EXPECT_EQ(kind_of([] { choose_encoder(output_format("a.mp4"), "aac"); }), ErrorKind::unsupported);
  EXPECT_EQ(kind_of([] { choose_encoder(output_format("a.webm"), "libx264"); }), ErrorKind::unsupported);
}

TEST(Encoding, KeepsTheInputDepthAndChroma) {
  EXPECT_EQ(choose_pixel_format(encoder("libx264"), AV_PIX_FMT_YUV420P, 322, 182), AV_PIX_FMT_YUV420P);
  EXPECT_EQ(choose_pixel_format(encoder("libx264"), AV_PIX_FMT_YUV420P10LE, 322, 182), AV_PIX_FMT_YUV420P10LE);
  EXPECT_EQ(choose_pixel_format(encoder("libx264"), AV_PIX_FMT_YUV422P10LE, 64, 64), AV_PIX_FMT_YUV422P10LE);
  EXPECT_EQ(choose_pixel_format(encoder("libvpx-vp9"), AV_PIX_FMT_YUV420P10LE, 64, 64), AV_PIX_FMT_YUV420P10LE);
  // Raw frames take the input's own format.
  EXPECT_EQ(choose_pixel_format(encoder("wrapped_avframe"), AV_PIX_FMT_YUV420P12LE, 64, 64), AV_PIX_FMT_YUV420P12LE);
}

TEST(Encoding, OddSizesGetFullResolutionChroma) {
  EXPECT_EQ(choose_pixel_format(encoder("libx264"), AV_PIX_FMT_YUV420P, 321, 181), AV_PIX_FMT_YUV444P);
  EXPECT_EQ(choose_pixel_format(encoder("libx264"), AV_PIX_FMT_YUV420P10LE, 321, 180), AV_PIX_FMT_YUV444P10LE);
}

TEST(Encoding, CrfAndPresetDefaultsAndMisuse) {
  EXPECT_EQ(effective_crf(encoder("libx264"), {}), 18);
  EXPECT_EQ(effective_crf(encoder("libvpx-vp9"), {}), 31);
  EXPECT_EQ(effective_crf(encoder("libx264"), {"", 23, ""}), 23);
  EXPECT_FALSE(effective_crf(encoder("ffv1"), {}));
  AVDictionary* options = encoder_options(encoder("libx264"), {"", std::nullopt, "veryfast"});
  EXPECT_STREQ(av_dict_get(options, "crf", nullptr, 0)->value, "18");
  EXPECT_STREQ(av_dict_get(options, "preset", nullptr, 0)->value, "veryfast");
  av_dict_free(&options);
  EXPECT_EQ(kind_of([] { encoder_options(encoder("libvpx-vp9"), {"", std::nullopt, "slow"}); }),
            ErrorKind::invalid_argument);
  EXPECT_EQ(kind_of([] { encoder_options(encoder("ffv1"), {"", 20, ""}); }), ErrorKind::invalid_argument);
}

}  // namespace
}  // namespace framecast::video
