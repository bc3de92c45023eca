// Image files: PNG 8/16-bit round trips, JPEG, and every way a file can be bad.
#include <gtest/gtest.h>
#include <jpeglib.h>

#include "core/test_support.hpp"
#include "framecast/error.hpp"
#include "io/image.hpp"
#include "io/test_pattern.hpp"

namespace framecast::io {
namespace {

using testing::TempDir;

void expect_error(const std::filesystem::path& path, ErrorKind kind, const std::string& part) {
  try {
    read_image(path);
    FAIL() << "read " << path;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(Image, PngRoundTripAtBothDepths) {
  TempDir dir;
  for (auto depth : {SampleDepth::u8, SampleDepth::u16}) {
    const Frame f = test_pattern(33, 17, 1.5f, depth);
    write_png(dir / "a.png", f);
    const Frame g = read_image(dir / "a.png");
    EXPECT_EQ(g.depth(), depth);
    EXPECT_EQ(testing::compare(f, g).max_error, 0);
  }
  EXPECT_EQ(dir.files(), std::vector<std::string>{"a.png"});  // no temporary left behind
}

TEST(Image, JpegIsReadAsRgb) {
  TempDir dir;
  const Frame f = test_pattern(40, 24, 0.0f);
  {  // encode with libjpeg at high quality
    jpeg_compress_struct c;
    jpeg_error_mgr err;
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    FILE* out = std::fopen((dir / "a.jpg").c_str(), "wb");
    jpeg_stdio_dest(&c, out);
    c.image_width = 40;
    c.image_height = 24;
    c.input_components = 3;
    c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 98, TRUE);
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < 24) {
      JSAMPROW row = const_cast<JSAMPROW>(f.rgb8().data() + c.next_scanline * 40 * 3);
      jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    std::fclose(out);
  }
  const Frame g = read_image(dir / "a.jpg");
  EXPECT_EQ(g.width(), 40);
  EXPECT_LT(testing::compare(f, g).mean_error, 3.0);
  // A JPEG cut in half is an error, not grey rows.
  std::filesystem::resize_file(dir / "a.jpg", std::filesystem::file_size(dir / "a.jpg") / 2);
  expect_error(dir / "a.jpg", ErrorKind::io, "JPEG");
}

TEST(Image, BadFilesAreReportedByName) {
  TempDir dir;
  expect_error(dir / "missing.png", ErrorKind::io, "missing.png");
  std::ofstream(dir / "empty.png") << "";
  expect_error(dir / "empty.png", ErrorKind::io, "empty file");
  std::ofstream(dir / "text.png") << "this is not an image at all";
  expect_error(dir / "text.png", ErrorKind::unsupported, "not a PNG or JPEG");
  write_png(dir / "cut.png", test_pattern(64, 64, 0.0f));
  std::filesystem::resize_file(dir / "cut.png", std::filesystem::file_size(dir / "cut.png") / 2);
  expect_error(dir / "cut.png", ErrorKind::io, "corrupt or truncated PNG");
}

TEST(Image, UnwritableDestinationLeavesNothing) {
  TempDir dir;
  EXPECT_THROW(write_png(dir / "no-such-folder" / "a.png", test_pattern(8, 8, 0.0f)), Error);
  EXPECT_TRUE(dir.files().empty());
}

}  // namespace
}  // namespace framecast::io
