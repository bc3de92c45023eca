#include "io/image.hpp"

#include <jpeglib.h>
#include <fcntl.h>
#include <png.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csetjmp>
#include <cstdio>
#include <memory>
#include <new>
#include <optional>
#include <utility>
#include <vector>

#include "engine/cancelled.hpp"
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

// Closes a descriptor unless released (to a FILE).
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
  int release() { return std::exchange(fd, -1); }
};

// The whole of a pipe, FIFO or device, read as it comes (the descriptor is non-blocking).
// `cancelled` is polled at least every 100 ms, so a writer that stays silent, or has not yet
// opened a FIFO, does not hold up Ctrl-C.
std::string read_stream(const std::filesystem::path& path, int fd, const std::function<bool()>& cancelled) {
  std::string data;
  char buffer[1 << 16];
  for (;;) {
    throw_if_cancelled(cancelled);
    pollfd ready{fd, POLLIN, 0};
    if (::poll(&ready, 1, 100) <= 0) continue;  // nothing yet, or a signal
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) return data;
    if (n > 0) {
      data.append(buffer, std::size_t(n));
    } else if (errno != EAGAIN && errno != EINTR) {
      const std::string why = std::error_code(errno, std::generic_category()).message();
      throw Error(ErrorKind::io, path.string() + ": cannot read (" + why + ")");
    }
  }
}

// The frame an image's header asks for, checked before anything is allocated for it: within
// Frame's limits, and memory that runs out is an Error like any other.
Frame allocate(const std::filesystem::path& path, std::uint64_t width, std::uint64_t height,
               SampleDepth depth) {
  const std::string size = std::to_string(width) + "x" + std::to_string(height);
  const std::uint64_t max = Frame::max_side;
  if (width == 0 || height == 0 || width > max || height > max)
    throw Error(ErrorKind::unsupported, path.string() + ": image size " + size + " is outside 1x1 to " +
                                            std::to_string(max) + "x" + std::to_string(max));
  try {
    return Frame(int(width), int(height), depth);
  } catch (const std::bad_alloc&) {
    throw Error(ErrorKind::out_of_memory, path.string() + ": not enough memory for a " + size + " image");
  }
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

// libpng's read state, destroyed however read_png ends. What changes after setjmp lives here,
// in memory that libpng can reach, so a longjmp leaves none of it stale in a register.
struct PngReadState {
  PngErrors errors;
  png_structp png = nullptr;
  png_infop info = nullptr;
  Frame frame;
  std::vector<png_bytep> rows;
  ~PngReadState() { png_destroy_read_struct(&png, &info, nullptr); }
};

// Deflate codes at most 258 bytes in 2 bits (1032:1), so the header's image needs at least its
// filtered size / 1032 bytes of IDAT: a short file that claims a huge image is caught before
// the image is allocated.
constexpr std::uint64_t max_deflate_ratio = 1032;

Frame read_png(const std::filesystem::path& path, std::FILE* file, std::uint64_t file_size) {
  PngReadState state;
  state.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &state.errors, png_error_handler,
                                     png_warning_handler);
  state.info = state.png ? png_create_info_struct(state.png) : nullptr;
  if (!state.info) throw Error(ErrorKind::out_of_memory, "libpng could not start");
  png_structp png = state.png;
  png_infop info = state.info;
  if (setjmp(png_jmpbuf(png)))
    throw Error(ErrorKind::io, path.string() + ": corrupt or truncated PNG (" + state.errors.message + ")");
  png_init_io(png, file);
  // Only IHDR, PLTE, tRNS, IDAT and IEND make the picture; libpng skips the rest unread.
  // Parsed, a text or palette-suggestion chunk is first allocated at the length it claims (1.9 GB
  // for an 85-byte file's corrupt sPLT), before the read finds the file short.
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, nullptr, -1);
  png_read_info(png, info);
  const std::uint64_t width = png_get_image_width(png, info), height = png_get_image_height(png, info);
  if (height * (std::uint64_t(png_get_rowbytes(png, info)) + 1) > max_deflate_ratio * file_size)
    throw Error(ErrorKind::io, path.string() + ": truncated PNG (" + std::to_string(file_size) +
                                   " bytes cannot hold its " + std::to_string(width) + "x" +
                                   std::to_string(height) + " image)");
  const int bit_depth = png_get_bit_depth(png, info);
  const int color = png_get_color_type(png, info);
  png_set_expand(png);  // palette and low-depth grey to 8 bits, tRNS to alpha
  if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
  png_set_strip_alpha(png);
  if (bit_depth == 16) png_set_swap(png);  // PNG stores big-endian samples
  png_read_update_info(png, info);
  Frame& frame = state.frame;
  frame = allocate(path, width, height, bit_depth == 16 ? SampleDepth::u16 : SampleDepth::u8);
  const std::size_t row_bytes = std::size_t(width) * 3 * (bit_depth == 16 ? 2 : 1);
  if (png_get_rowbytes(png, info) != row_bytes)
    throw Error(ErrorKind::unsupported, path.string() + ": unsupported PNG layout");
  auto* base = bit_depth == 16 ? reinterpret_cast<png_bytep>(frame.rgb16().data()) : frame.rgb8().data();
  state.rows.resize(height);
  for (std::size_t y = 0; y < height; ++y) state.rows[y] = base + row_bytes * y;
  png_read_image(png, state.rows.data());
  png_read_end(png, nullptr);
  return std::move(frame);
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

// A warning (level -1: corrupt data, or a JPEG cut short, which libjpeg would decode to grey
// rows) is the error it is, at once; trace messages (level >= 0) are ignored.
void jpeg_emit_message(j_common_ptr cinfo, int level) {
  if (level < 0) jpeg_error_exit(cinfo);
}

// libjpeg's state, destroyed however read_jpeg ends (a no-op before jpeg_create_decompress);
// the frame lives here too, in memory that libjpeg can reach, as in PngReadState.
struct JpegReadState {
  jpeg_decompress_struct cinfo{};
  JpegErrors errors;
  Frame frame;
  ~JpegReadState() { jpeg_destroy_decompress(&cinfo); }
};

// Huffman-coded JPEGs spend at least 2 bits on each 8x8 block of every channel (1 byte per 256
// pixels at best); only progressive or arithmetic-coded bombs get past 4096 pixels a byte.
constexpr std::uint64_t max_jpeg_pixels_per_byte = 4096;

Frame read_jpeg(const std::filesystem::path& path, std::FILE* file, std::uint64_t file_size) {
  JpegReadState state;
  jpeg_decompress_struct& cinfo = state.cinfo;
  JpegErrors& errors = state.errors;
  cinfo.err = jpeg_std_error(&errors.manager);
  errors.manager.error_exit = jpeg_error_exit;
  errors.manager.emit_message = jpeg_emit_message;
  if (setjmp(errors.jump))
    throw Error(ErrorKind::io, path.string() + ": corrupt or truncated JPEG (" + errors.message + ")");
  jpeg_create_decompress(&cinfo);
  jpeg_stdio_src(&cinfo, file);
  jpeg_read_header(&cinfo, TRUE);
  const std::uint64_t width = cinfo.image_width, height = cinfo.image_height;
  if (width * height > max_jpeg_pixels_per_byte * file_size)
    throw Error(ErrorKind::io, path.string() + ": truncated JPEG (" + std::to_string(file_size) +
                                   " bytes cannot hold its " + std::to_string(width) + "x" +
                                   std::to_string(height) + " image)");
  cinfo.out_color_space = JCS_RGB;
  jpeg_start_decompress(&cinfo);
  Frame& frame = state.frame;
  frame = allocate(path, cinfo.output_width, cinfo.output_height, SampleDepth::u8);
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = frame.rgb8().data() + std::size_t(cinfo.output_scanline) * cinfo.output_width * 3;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  return std::move(frame);
}

}  // namespace

Frame read_image(const std::filesystem::path& path, const std::function<bool()>& cancelled) {
  // Non-blocking, so that neither opening a FIFO nor waiting on a pipe blocks the signal.
  Descriptor fd{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  struct stat st;
  if (fd.fd < 0 || ::fstat(fd.fd, &st) != 0) {
    const std::string why = std::error_code(errno, std::generic_category()).message();
    throw Error(ErrorKind::io, path.string() + ": cannot open (" + why + ")");
  }
  if (S_ISDIR(st.st_mode)) throw Error(ErrorKind::io, path.string() + ": is a folder, not an image");
  // A pipe (`pair <(producer) ...`) is read whole first: the decoders want to seek back.
  std::string stream;
  if (!S_ISREG(st.st_mode)) stream = read_stream(path, fd.fd, cancelled);
  const std::uint64_t size = S_ISREG(st.st_mode) ? std::uint64_t(st.st_size) : stream.size();
  if (size == 0) throw Error(ErrorKind::io, path.string() + ": empty file");
  File file(S_ISREG(st.st_mode) ? ::fdopen(fd.release(), "rb") : ::fmemopen(stream.data(), stream.size(), "rb"));
  if (!file) throw Error(ErrorKind::out_of_memory, path.string() + ": cannot open (out of memory)");
  unsigned char magic[8] = {};
  const std::size_t got = std::fread(magic, 1, sizeof magic, file.get());
  std::rewind(file.get());
  if (got >= 8 && png_sig_cmp(magic, 0, 8) == 0) return read_png(path, file.get(), size);
  if (got >= 3 && magic[0] == 0xff && magic[1] == 0xd8 && magic[2] == 0xff)
    return read_jpeg(path, file.get(), size);
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
