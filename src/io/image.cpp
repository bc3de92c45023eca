#include "io/image.hpp"

#include <jpeglib.h>
#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <memory>
#include <vector>

#include "framecast/error.hpp"
#include "io/atomic_file.hpp"

namespace framecast::io {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

File open(const std::filesystem::path& path, const char* mode) {
  File f(std::fopen(path.c_str(), mode));
  if (!f) {
    const std::string why = std::error_code(errno, std::generic_category()).message();
    throw Error(ErrorKind::io, path.string() + ": cannot open (" + why + ")");
  }
  return f;
}

// libpng reports errors through longjmp; the message is kept for the exception.
struct PngErrors {
  std::string message;
};

void png_error_handler(png_structp png, png_const_charp msg) {
  static_cast<PngErrors*>(png_get_error_ptr(png))->message = msg;
  png_longjmp(png, 1);
}
void png_warning_handler(png_structp, png_const_charp) {}

Frame read_png(const std::filesystem::path& path, std::FILE* file) {
  PngErrors errors;
  png_structp png =
      png_create_read_struct(PNG_LIBPNG_VER_STRING, &errors, png_error_handler, png_warning_handler);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!info) throw Error(ErrorKind::out_of_memory, "libpng could not start");
  Frame frame;
  std::vector<png_bytep> rows;
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    throw Error(ErrorKind::io, path.string() + ": corrupt or truncated PNG (" + errors.message + ")");
  }
  png_init_io(png, file);
  png_read_info(png, info);
  const int bit_depth = png_get_bit_depth(png, info);
  const int color = png_get_color_type(png, info);
  png_set_expand(png);  // palette and low-depth grey to 8 bits, tRNS to alpha
  if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
  png_set_strip_alpha(png);
  if (bit_depth == 16) png_set_swap(png);  // PNG stores big-endian samples
  png_read_update_info(png, info);
  const int width = int(png_get_image_width(png, info)), height = int(png_get_image_height(png, info));
  frame = Frame(width, height, bit_depth == 16 ? SampleDepth::u16 : SampleDepth::u8);
  const std::size_t row_bytes = std::size_t(width) * 3 * (bit_depth == 16 ? 2 : 1);
  if (png_get_rowbytes(png, info) != row_bytes) {
    png_destroy_read_struct(&png, &info, nullptr);
    throw Error(ErrorKind::unsupported, path.string() + ": unsupported PNG layout");
  }
  auto* base = bit_depth == 16 ? reinterpret_cast<png_bytep>(frame.rgb16().data()) : frame.rgb8().data();
  rows.resize(height);
  for (int y = 0; y < height; ++y) rows[y] = base + row_bytes * y;
  png_read_image(png, rows.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return frame;
}

struct JpegErrors {
  jpeg_error_mgr manager;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void jpeg_error_exit(j_common_ptr cinfo) {
  auto* errors = reinterpret_cast<JpegErrors*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, errors->message);
  std::longjmp(errors->jump, 1);
}

Frame read_jpeg(const std::filesystem::path& path, std::FILE* file) {
  jpeg_decompress_struct cinfo;
  JpegErrors errors;
  cinfo.err = jpeg_std_error(&errors.manager);
  errors.manager.error_exit = jpeg_error_exit;
  errors.manager.output_message = [](j_common_ptr) {};
  Frame frame;
  if (setjmp(errors.jump)) {
    jpeg_destroy_decompress(&cinfo);
    throw Error(ErrorKind::io, path.string() + ": corrupt or truncated JPEG (" + errors.message + ")");
  }
  jpeg_create_decompress(&cinfo);
  jpeg_stdio_src(&cinfo, file);
  jpeg_read_header(&cinfo, TRUE);
  cinfo.out_color_space = JCS_RGB;
  jpeg_start_decompress(&cinfo);
  frame = Frame(int(cinfo.output_width), int(cinfo.output_height), SampleDepth::u8);
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = frame.rgb8().data() + std::size_t(cinfo.output_scanline) * cinfo.output_width * 3;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  // A JPEG cut short decodes to grey rows with only a warning; treat it as the error it is.
  const bool truncated = errors.manager.num_warnings > 0;
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  if (truncated) throw Error(ErrorKind::io, path.string() + ": truncated or damaged JPEG");
  return frame;
}

}  // namespace

Frame read_image(const std::filesystem::path& path) {
  File file = open(path, "rb");
  unsigned char magic[8] = {};
  const std::size_t got = std::fread(magic, 1, sizeof magic, file.get());
  std::rewind(file.get());
  if (got >= 8 && png_sig_cmp(magic, 0, 8) == 0) return read_png(path, file.get());
  if (got >= 3 && magic[0] == 0xff && magic[1] == 0xd8 && magic[2] == 0xff)
    return read_jpeg(path, file.get());
  if (got == 0) throw Error(ErrorKind::io, path.string() + ": empty file");
  throw Error(ErrorKind::unsupported, path.string() + ": not a PNG or JPEG image");
}

void encode_png(const std::filesystem::path& path, const Frame& frame) {
  {
    File file = open(path, "wb");
    PngErrors errors;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &errors, png_error_handler,
                                              png_warning_handler);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info) throw Error(ErrorKind::out_of_memory, "libpng could not start");
    const bool deep = frame.depth() == SampleDepth::u16;
    std::vector<png_bytep> rows(frame.height());
    if (setjmp(png_jmpbuf(png))) {
      png_destroy_write_struct(&png, &info);
      throw Error(ErrorKind::io, path.string() + ": cannot write PNG (" + errors.message + ")");
    }
    png_init_io(png, file.get());
    png_set_IHDR(png, info, png_uint_32(frame.width()), png_uint_32(frame.height()), deep ? 16 : 8,
                 PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    if (deep) png_set_swap(png);
    const std::size_t row_bytes = std::size_t(frame.width()) * 3 * (deep ? 2 : 1);
    auto* base = deep ? reinterpret_cast<png_bytep>(const_cast<std::uint16_t*>(frame.rgb16().data()))
                      : const_cast<png_bytep>(frame.rgb8().data());
    for (int y = 0; y < frame.height(); ++y) rows[y] = base + row_bytes * y;
    png_write_image(png, rows.data());
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    if (std::fflush(file.get()) != 0 || std::ferror(file.get()))
      throw Error(ErrorKind::io, path.string() + ": write failed (disk full?)");
    if (std::fclose(file.release()) != 0)
      throw Error(ErrorKind::io, path.string() + ": write failed (disk full?)");
  }
}

void write_png(const std::filesystem::path& path, const Frame& frame) {
  AtomicFile out(path);
  encode_png(out.temp_path(), frame);
  out.commit();
}

}  // namespace framecast::io
