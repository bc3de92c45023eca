#include "video/video_support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

extern "C" {
#include <libavutil/display.h>
}

namespace framecast::test {
namespace {

video::Rational seconds(std::int64_t ts, AVRational time_base) {
  return video::Rational(ts) * video::to_rational(time_base);
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Opens a file for reading or fails the test; closed by the returned pointer.
video::InputPtr open_input(const std::filesystem::path& path) {
  AVFormatContext* context = nullptr;
  if (avformat_open_input(&context, path.c_str(), nullptr, nullptr) < 0) {
    ADD_FAILURE() << "libavformat cannot open " << path;
    return nullptr;
  }
  video::InputPtr input(context);
  if (avformat_find_stream_info(context, nullptr) < 0) ADD_FAILURE() << "no stream info in " << path;
  return input;
}

}  // namespace

ScratchDir::ScratchDir() {
  static std::atomic<int> counter{0};
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = "framecast-video-";
  name += info ? std::string(info->test_suite_name()) + "." + info->name() : "test";
  name += "-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
  path_ = std::filesystem::temp_directory_path() / name;
  std::filesystem::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

RunResult run_shell(const std::string& command_line) {
  static std::atomic<int> counter{0};
  const auto err_path = std::filesystem::temp_directory_path() /
                        ("framecast-stderr-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
  const std::string line = "{ " + command_line + " ; } 2> " + err_path.string();
  const int status = std::system(line.c_str());
  RunResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.err = read_text(err_path);
  std::filesystem::remove(err_path);
  return result;
}

RunResult run_framecast(const std::string& args) {
  return run_shell(std::string(FRAMECAST_BINARY) + " " + args);
}

void make_clip(const std::string& args) {
  const RunResult r = run_shell("ffmpeg -nostdin -hide_banner -loglevel error -y " + args);
  ASSERT_EQ(r.exit_code, 0) << "ffmpeg " << args << "\n" << r.err;
}

void make_cut_clip(const std::string& out, int before) {
  make_clip("-f lavfi -i testsrc2=s=160x90:r=24:d=1 -f lavfi -i testsrc2=s=160x90:r=24:d=1 "
            "-filter_complex '[0]trim=end_frame=" + std::to_string(before) + "[a];[1]trim=end_frame=" +
            std::to_string(24 - before) + ",vflip,hflip,negate[b];[a][b]concat' " + out);
}

std::string y4m_frames(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string header;
  std::getline(in, header);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TwoLavapipes::TwoLavapipes() {
  // The tests' environment names lavapipe's manifest (tests/CMakeLists.txt).
  const char* icd = std::getenv("VK_ICD_FILENAMES");
  if (icd) previous_ = icd;
  const std::filesystem::path lavapipe = icd ? icd : "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";
  std::string files;
  for (const char* name : {"lavapipe_a.json", "lavapipe_b.json"}) {
    std::filesystem::copy_file(lavapipe, manifests_ / name);
    files += (files.empty() ? "" : ":") + (manifests_ / name).string();
  }
  setenv("VK_ICD_FILENAMES", files.c_str(), 1);
}

TwoLavapipes::~TwoLavapipes() {
  if (previous_)
    setenv("VK_ICD_FILENAMES", previous_->c_str(), 1);
  else
    unsetenv("VK_ICD_FILENAMES");
}

void write_model(const Model& model, const std::filesystem::path& json_path) {
  nlohmann::json header;
  std::ofstream bin(std::filesystem::path(json_path).replace_extension(".bin"), std::ios::binary);
  std::int64_t offset = 0;
  for (const auto& [name, tensor] : model.tensors()) {
    header[name] = {{"shape", tensor.shape}, {"offset", offset}};
    bin.write(reinterpret_cast<const char*>(tensor.values.data()),
              std::streamsize(tensor.values.size() * sizeof(float)));  // little-endian hosts
    offset += std::int64_t(tensor.values.size());
  }
  header["__metadata__"] = nlohmann::json::parse(model.metadata_json());
  std::ofstream(json_path) << header.dump(1) << "\n";
  if (!bin) throw Error(ErrorKind::io, json_path.string() + ": cannot write the model");
}

std::filesystem::path tiny_model(const std::filesystem::path& dir) {
  const auto path = dir / "tiny.json";
  write_model(Model::random_classic(4, 8), path);
  return path;
}

video::Rational StreamProbe::first() const { return *std::min_element(pts.begin(), pts.end()); }
video::Rational StreamProbe::last_end() const { return *std::max_element(end.begin(), end.end()); }

const StreamProbe* FileProbe::find(AVMediaType type) const {
  for (const auto& s : streams)
    if (s.type == type) return &s;
  return nullptr;
}

FileProbe probe(const std::filesystem::path& path) {
  FileProbe result;
  const video::InputPtr input = open_input(path);
  if (!input) return result;
  result.container = input->iformat->name;
  if (const auto* title = av_dict_get(input->metadata, "title", nullptr, 0)) result.title = title->value;
  for (unsigned i = 0; i < input->nb_streams; ++i) {
    const AVStream& s = *input->streams[i];
    const AVCodecParameters& p = *s.codecpar;
    StreamProbe sp;
    sp.type = p.codec_type;
    sp.codec = avcodec_get_name(p.codec_id);
    sp.width = p.width;
    sp.height = p.height;
    sp.pixel_format = p.codec_type == AVMEDIA_TYPE_VIDEO ? AVPixelFormat(p.format) : AV_PIX_FMT_NONE;
    sp.profile = p.profile;
    sp.primaries = p.color_primaries;
    sp.transfer = p.color_trc;
    sp.matrix = p.color_space;
    sp.range = p.color_range;
    if (s.avg_frame_rate.num > 0) sp.frame_rate = video::to_rational(s.avg_frame_rate);
    if (const auto* language = av_dict_get(s.metadata, "language", nullptr, 0)) sp.language = language->value;
    if (const auto* matrix = av_stream_get_side_data(&s, AV_PKT_DATA_DISPLAYMATRIX, nullptr))
      sp.rotation = av_display_rotation_get(reinterpret_cast<const std::int32_t*>(matrix));
    result.streams.push_back(sp);
  }
  for (unsigned i = 0; i < input->nb_chapters; ++i) {
    const auto* title = av_dict_get(input->chapters[i]->metadata, "title", nullptr, 0);
    result.chapters.push_back(title ? title->value : "");
  }
  video::PacketPtr packet = video::alloc_packet();
  while (av_read_frame(input.get(), packet.get()) >= 0) {
    const AVStream& s = *input->streams[packet->stream_index];
    if (packet->pts != AV_NOPTS_VALUE) {
      auto& sp = result.streams[std::size_t(packet->stream_index)];
      sp.pts.push_back(seconds(packet->pts, s.time_base));
      sp.end.push_back(seconds(packet->pts + packet->duration, s.time_base));
    }
    av_packet_unref(packet.get());
  }
  return result;
}

std::vector<DecodedFrame> decode_video(const std::filesystem::path& path) {
  std::vector<DecodedFrame> frames;
  const video::InputPtr input = open_input(path);
  if (!input) return frames;
  const int index = av_find_best_stream(input.get(), AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
  if (index < 0) {
    ADD_FAILURE() << "no video in " << path;
    return frames;
  }
  const AVStream& stream = *input->streams[index];
  const AVCodec* codec = avcodec_find_decoder(stream.codecpar->codec_id);
  video::CodecContextPtr decoder = video::alloc_codec_context(codec);
  avcodec_parameters_to_context(decoder.get(), stream.codecpar);
  decoder->pkt_timebase = stream.time_base;
  if (avcodec_open2(decoder.get(), codec, nullptr) < 0) {
    ADD_FAILURE() << "cannot decode " << path;
    return frames;
  }
  video::PacketPtr packet = video::alloc_packet();
  video::AvFramePtr frame = video::alloc_frame();
  const auto receive = [&] {
    while (avcodec_receive_frame(decoder.get(), frame.get()) == 0) {
      DecodedFrame f;
      f.time = seconds(frame->best_effort_timestamp, stream.time_base);
      const bool wide = av_pix_fmt_desc_get(AVPixelFormat(frame->format))->comp[0].depth > 8;
      for (int y = 0; y < frame->height; ++y) {
        const std::uint8_t* row = frame->data[0] + std::ptrdiff_t(frame->linesize[0]) * y;
        for (int x = 0; x < frame->width; ++x)
          f.luma.push_back(wide ? reinterpret_cast<const std::uint16_t*>(row)[x] : row[x]);
      }
      frames.push_back(std::move(f));
      av_frame_unref(frame.get());
    }
  };
  while (av_read_frame(input.get(), packet.get()) >= 0) {
    if (packet->stream_index == index) avcodec_send_packet(decoder.get(), packet.get());
    av_packet_unref(packet.get());
    receive();
  }
  avcodec_send_packet(decoder.get(), nullptr);
  receive();
  return frames;
}

double luma_difference(const DecodedFrame& a, const DecodedFrame& b) {
  if (a.luma.size() != b.luma.size() || a.luma.empty()) return 1e9;
  double sum = 0.0;
  for (std::size_t i = 0; i < a.luma.size(); ++i) sum += std::abs(int(a.luma[i]) - int(b.luma[i]));
  return sum / double(a.luma.size());
}

std::vector<std::filesystem::path> shared_clips() {
  std::vector<std::filesystem::path> clips;
  const std::filesystem::path dir = std::filesystem::path(FRAMECAST_SHARED_DATA) / "clips";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.is_regular_file()) clips.push_back(entry.path());
  std::sort(clips.begin(), clips.end());
  return clips;
}

}  // namespace framecast::test
