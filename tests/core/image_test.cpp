// Image files: PNG 8/16-bit round trips, JPEG, and every way a file can be bad.
#include <gtest/gtest.h>
#include <jpeglib.h>
#include <png.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

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

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Encodes an 8-bit frame with libjpeg at high quality.
void write_jpeg(const std::filesystem::path& path, const Frame& f) {
  jpeg_compress_struct c;
  jpeg_error_mgr err;
  c.err = jpeg_std_error(&err);
  jpeg_create_compress(&c);
  FILE* out = std::fopen(path.c_str(), "wb");
  jpeg_stdio_dest(&c, out);
  c.image_width = JDIMENSION(f.width());
  c.image_height = JDIMENSION(f.height());
  c.input_components = 3;
  c.in_color_space = JCS_RGB;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, 98, TRUE);
  jpeg_start_compress(&c, TRUE);
  while (c.next_scanline < c.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(f.rgb8().data() + std::size_t(c.next_scanline) * f.width() * 3);
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  std::fclose(out);
}

// Rewrites the size in a JPEG's SOF0 marker.
void set_jpeg_size(const std::filesystem::path& path, int width, int height) {
  std::string data = read_file(path);
  const std::size_t sof = data.find("\xff\xc0");
  ASSERT_NE(sof, std::string::npos);
  data[sof + 5] = char(height >> 8), data[sof + 6] = char(height & 0xff);
  data[sof + 7] = char(width >> 8), data[sof + 8] = char(width & 0xff);
  std::ofstream(path, std::ios::binary) << data;
}

// Writes a PNG of 1-bit grey zeros, or only its signature, IHDR and the start of an IDAT chunk
// (a file cut just after the header; libpng reads up to the first IDAT before any pixel).
void write_grey_png(const std::filesystem::path& path, png_uint_32 width, png_uint_32 height, bool header_only) {
  FILE* out = std::fopen(path.c_str(), "wb");
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  png_init_io(png, out);
  png_set_IHDR(png, info, width, height, 1, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  if (header_only) {
    png_write_flush(png);
    std::fwrite("\0\0\0\2IDAT\x78\x9c", 1, 10, out);
  } else {
    std::vector<png_byte> row((width + 7) / 8, 0);
    for (png_uint_32 y = 0; y < height; ++y) png_write_row(png, row.data());
    png_write_end(png, nullptr);
  }
  png_destroy_write_struct(&png, &info);
  std::fclose(out);
}

TEST(Image, JpegIsReadAsRgb) {
  TempDir dir;
  const Frame f = test_pattern(40, 24, 0.0f);
  write_jpeg(dir / "a.jpg", f);
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

// A short file whose header claims a huge image is refused before the image is allocated
// (2.7 GB for 30000x30000, 5.4 GB at 16 bits, before): deflate holds at most 1032 bytes a
// byte, and a JPEG no more than 4096 pixels a byte.
TEST(Image, HeadersClaimingMoreThanTheFileHoldsAreRefusedUpFront) {
  TempDir dir;
  write_jpeg(dir / "huge.jpg", test_pattern(40, 24, 0.0f));
  set_jpeg_size(dir / "huge.jpg", 30000, 30000);
  expect_error(dir / "huge.jpg", ErrorKind::io, "bytes cannot hold its 30000x30000 image");
  write_grey_png(dir / "huge.png", 30000, 30000, true);
  expect_error(dir / "huge.png", ErrorKind::io, "bytes cannot hold its 30000x30000 image");
}

// Found by fuzz_image: a header beyond Frame's 32768 limit threw from Frame's constructor with
// libjpeg's (or libpng's) state still allocated, a leak, and a message without the file's name.
TEST(Image, SizesBeyondTheFrameLimitAreUnsupported) {
  TempDir dir;
  write_jpeg(dir / "wide.jpg", test_pattern(40, 24, 0.0f));
  set_jpeg_size(dir / "wide.jpg", 40000, 8);
  expect_error(dir / "wide.jpg", ErrorKind::unsupported, "wide.jpg: image size 40000x8 is outside");
  write_grey_png(dir / "wide.png", 40000, 2, false);
  expect_error(dir / "wide.png", ErrorKind::unsupported, "wide.png: image size 40000x2 is outside");
  write_grey_png(dir / "fits.png", 32768, 2, false);
  EXPECT_EQ(read_image(dir / "fits.png").width(), 32768);
}

// A FIFO (as `pair <(producer) ...` gives) is read whole, PNG and JPEG alike; while its writer
// has not come, or stays silent, `cancelled` is polled and ends the wait.
TEST(Image, FifosAreReadAndTheirWaitCanBeCancelled) {
  TempDir dir;
  write_png(dir / "a.png", test_pattern(33, 17, 0.0f));
  write_jpeg(dir / "a.jpg", test_pattern(40, 24, 0.0f));
  for (const char* name : {"a.png", "a.jpg"}) {
    ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0600), 0);
    std::thread writer([&] { std::ofstream(dir / "fifo", std::ios::binary) << read_file(dir / name); });
    const Frame f = read_image(dir / "fifo");
    writer.join();
    EXPECT_EQ(f.width(), read_image(dir / name).width()) << name;
    std::filesystem::remove(dir / "fifo");
  }
  ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0600), 0);
  int polls = 0;
  try {
    read_image(dir / "fifo", [&] { return ++polls == 3; });
    FAIL() << "a FIFO without a writer was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::cancelled) << e.what();
  }
  EXPECT_EQ(polls, 3);
  expect_error(dir.path(), ErrorKind::io, "is a folder");
}

TEST(Image, UnwritableDestinationLeavesNothing) {
  TempDir dir;
  EXPECT_THROW(write_png(dir / "no-such-folder" / "a.png", test_pattern(8, 8, 0.0f)), Error);
  EXPECT_TRUE(dir.files().empty());
}

}  // namespace
}  // namespace framecast::io
