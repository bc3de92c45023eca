// What the video tests share: clips made at test time with the ffmpeg CLI, the framecast
// binary run as a user would, and outputs inspected through libavformat/libavcodec.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "framecast/model.hpp"
#include "video/ffmpeg.hpp"
#include "video/rational.hpp"

namespace framecast::test {

// A fresh folder for one test, removed when the test ends.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

struct RunResult {
  int exit_code = -1;
  std::string err;  // stderr
};

// Runs a shell command line; stderr is captured, stdout goes where the line sends it.
RunResult run_shell(const std::string& command_line);
// `framecast ARGS`.
RunResult run_framecast(const std::string& args);
// `ffmpeg -y ARGS` quietly; fails the test when ffmpeg does.
void make_clip(const std::string& args);

// `before` frames of one scene, then 24 - `before` of an unrelated one, at 24 fps, 160x90;
// written losslessly.
void make_cut_clip(const std::string& out, int before = 12);
// The bytes after a yuv4mpeg file's header line: every frame's "FRAME" line and planes.
std::string y4m_frames(const std::string& path);

// Mesa's lavapipe listed twice in VK_ICD_FILENAMES for this object's lifetime (this process
// and the commands it runs), so that Vulkan has two devices on a machine without a GPU.
class TwoLavapipes {
 public:
  TwoLavapipes();
  ~TwoLavapipes();
  TwoLavapipes(const TwoLavapipes&) = delete;
  TwoLavapipes& operator=(const TwoLavapipes&) = delete;

 private:
  ScratchDir manifests_;
  std::optional<std::string> previous_;
};

// NAME.json + NAME.bin (the seed's format) for a model, e.g. Model::random_classic.
void write_model(const Model& model, const std::filesystem::path& json_path);
// A tiny random model written into `dir` (fast enough for every test).
std::filesystem::path tiny_model(const std::filesystem::path& dir);

struct StreamProbe {
  AVMediaType type = AVMEDIA_TYPE_UNKNOWN;
  std::string codec;
  int width = 0, height = 0;
  AVPixelFormat pixel_format = AV_PIX_FMT_NONE;
  int profile = 0;
  AVColorPrimaries primaries = AVCOL_PRI_UNSPECIFIED;
  AVColorTransferCharacteristic transfer = AVCOL_TRC_UNSPECIFIED;
  AVColorSpace matrix = AVCOL_SPC_UNSPECIFIED;
  AVColorRange range = AVCOL_RANGE_UNSPECIFIED;
  video::Rational frame_rate;  // avg_frame_rate; 0 when unset
  std::string language;
  std::optional<double> rotation;    // degrees, from a display matrix
  std::vector<video::Rational> pts;  // seconds, in packet (decode) order
  std::vector<video::Rational> end;  // pts + duration of each packet, seconds
  video::Rational first() const;     // earliest pts
  video::Rational last_end() const;  // latest pts + duration
};

struct FileProbe {
  std::string container;
  std::string title;
  std::vector<std::string> chapters;  // titles
  std::vector<StreamProbe> streams;
  const StreamProbe* find(AVMediaType type) const;
};

// Reads every packet of a file with libavformat.
FileProbe probe(const std::filesystem::path& path);

struct DecodedFrame {
  video::Rational time;           // seconds
  std::vector<std::uint16_t> luma;  // plane 0, as decoded (8 or 16 bit values)
};

// Decodes the video stream of a file with libavcodec, frames in presentation order.
std::vector<DecodedFrame> decode_video(const std::filesystem::path& path);

// Mean absolute difference of two frames' luma.
double luma_difference(const DecodedFrame& a, const DecodedFrame& b);

// Reals clips from ../shared/data/clips, or none when that folder is absent.
std::vector<std::filesystem::path> shared_clips();

}  // namespace framecast::test
