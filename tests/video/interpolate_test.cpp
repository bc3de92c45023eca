// `framecast interpolate` end to end, as a user runs it, on clips made here with ffmpeg;
// results read back through libavformat.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/test_support.hpp"
#include "video/video_support.hpp"

namespace framecast::test {
namespace {

using video::Rational;

const Rational ntsc_film(24000, 1001);

// The final JSON report in a run's stderr (--progress json): its last line.
nlohmann::json final_report(const RunResult& r) {
  const auto from = r.err.rfind('\n', r.err.size() - 2);
  const std::string line = r.err.substr(from == std::string::npos ? 0 : from + 1);
  return line.rfind('{', 0) == 0 ? nlohmann::json::parse(line) : nlohmann::json();
}

class Interpolate : public ::testing::Test {
 protected:
  // framecast interpolate with the tiny model on the CPU (no fallback warning), quietly but
  // for the final JSON report.
  RunResult interpolate(const std::string& args) {
    return run_framecast("interpolate --model " + model_.string() + " --backend cpu --progress json " + args);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  bool leftovers() const {  // anything but the inputs: outputs or temporary files
    for (const auto& e : std::filesystem::directory_iterator(dir_.path()))
      if (e.path().filename().string().rfind("in", 0) != 0 && e.path() != model_ &&
          e.path() != std::filesystem::path(model_).replace_extension(".bin"))
        return true;
    return false;
  }

  ScratchDir dir_;
  std::filesystem::path model_ = tiny_model(dir_.path());
};

TEST_F(Interpolate, DoublesAClipKeepingAudioSubtitlesTagsAndSync) {
  std::ofstream(path("in.srt")) << "1\n00:00:00,500 --> 00:00:01,200\nHello\n\n"
                                   "2\n00:00:01,300 --> 00:00:01,900\nWorld\n";
  std::ofstream(path("in.meta")) << ";FFMETADATA1\ntitle=Clip\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\n"
                                     "END=1000\ntitle=One\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=1000\nEND=2000\ntitle=Two\n";
  make_clip("-f lavfi -i testsrc2=s=322x182:r=24000/1001:d=2 -f lavfi -i sine=f=440:d=2 -i " +
            path("in.srt") + " -map 0 -map 1 -map 2 -c:v libx264 -pix_fmt yuv420p -color_primaries bt709 "
            "-color_trc bt709 -colorspace bt709 -color_range tv -c:a aac -c:s mov_text "
            "-metadata:s:a:0 language=fra " + path("in-streams.mp4"));
  // Chapters, a title and a rotation (a display matrix) added without re-encoding.
  make_clip("-i " + path("in-streams.mp4") + " -i " + path("in.meta") + " -map 0 -map_metadata 1 -map_chapters 1 "
            "-c copy -metadata:s:v:0 rotate=90 " + path("in.mp4"));
  const RunResult r = interpolate("-i " + path("in.mp4") + " -o " + path("out.mp4") + " --factor 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;

  const FileProbe in = probe(path("in.mp4")), out = probe(path("out.mp4"));
  const StreamProbe* v = out.find(AVMEDIA_TYPE_VIDEO);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->codec, "h264");
  EXPECT_EQ(v->width, 322);
  EXPECT_EQ(v->height, 182);
  EXPECT_EQ(v->frame_rate, ntsc_film * Rational(2));
  ASSERT_EQ(v->pts.size(), 96u);  // 48 frames of 1001/24000 s at twice the rate
  std::vector<Rational> times = v->pts;
  std::sort(times.begin(), times.end());
  const Rational start = in.find(AVMEDIA_TYPE_VIDEO)->first();
  for (std::size_t i = 0; i < times.size(); ++i)
    EXPECT_EQ(times[i], start + Rational(std::int64_t(i)) / (ntsc_film * Rational(2))) << i;
  EXPECT_EQ(v->last_end() - v->first(),
            in.find(AVMEDIA_TYPE_VIDEO)->last_end() - in.find(AVMEDIA_TYPE_VIDEO)->first());
  EXPECT_EQ(v->primaries, AVCOL_PRI_BT709);
  EXPECT_EQ(v->transfer, AVCOL_TRC_BT709);
  EXPECT_EQ(v->matrix, AVCOL_SPC_BT709);
  EXPECT_EQ(v->range, AVCOL_RANGE_MPEG);

  // Audio and subtitles: the same packets at the same times, so still in sync.
  for (AVMediaType type : {AVMEDIA_TYPE_AUDIO, AVMEDIA_TYPE_SUBTITLE}) {
    const StreamProbe* a = in.find(type);
    const StreamProbe* b = out.find(type);
    ASSERT_TRUE(a && b) << av_get_media_type_string(type);
    EXPECT_EQ(a->codec, b->codec);
    EXPECT_EQ(a->pts, b->pts) << av_get_media_type_string(type);
  }
  EXPECT_EQ(out.find(AVMEDIA_TYPE_AUDIO)->language, "fra");
  EXPECT_EQ(out.title, "Clip");
  EXPECT_EQ(out.chapters, (std::vector<std::string>{"One", "Two"}));
  ASSERT_TRUE(v->rotation.has_value());
  EXPECT_DOUBLE_EQ(std::abs(*v->rotation), 90.0);

  // The first JSON object names the model and backend; the last one reports the job.
  const auto first = nlohmann::json::parse(r.err.substr(0, r.err.find('\n')));
  EXPECT_EQ(first["model"], model_.filename().string());
  EXPECT_EQ(first["flow_blocks"], 1);
  EXPECT_EQ(first["large_motion"], true);  // the CLI's default
  EXPECT_EQ(first["ensemble"], 1);
  EXPECT_EQ(first["backend"], "cpu");
  const auto report = final_report(r);
  EXPECT_EQ(report["frames"], 96);
  EXPECT_EQ(report["synthesized"], 47);  // the last frame is held, not blended
  EXPECT_EQ(report["scene_cuts"], 0);
}

TEST_F(Interpolate, TenBitVideoStaysTenBitAtAnyRate) {
  make_clip("-f lavfi -i testsrc2=s=160x90:r=24000/1001:d=1 -pix_fmt yuv420p10le -c:v libx264 "
            "-color_primaries bt2020 -color_trc smpte2084 -colorspace bt2020nc " + path("in.mkv"));
  const RunResult r = interpolate("-i " + path("in.mkv") + " -o " + path("out.mkv") + " --fps 59.94");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const FileProbe out = probe(path("out.mkv"));
  const StreamProbe* v = out.find(AVMEDIA_TYPE_VIDEO);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->pixel_format, AV_PIX_FMT_YUV420P10LE);
  EXPECT_EQ(v->profile, FF_PROFILE_H264_HIGH_10);
  EXPECT_EQ(v->primaries, AVCOL_PRI_BT2020);
  EXPECT_EQ(v->transfer, AVCOL_TRC_SMPTE2084);
  EXPECT_EQ(v->matrix, AVCOL_SPC_BT2020_NCL);
  EXPECT_EQ(v->pts.size(), 60u);  // 24 frames of 1001/24000 s = 1.001 s at 59.94 fps
}

TEST_F(Interpolate, TenBitLevelsSurviveTheRoundTrip) {
  // A 10-bit ramp with one level per column, written losslessly (y4m): the frames the
  // engine passes through unchanged come back with every level, not 8-bit steps.
  make_clip("-f lavfi -i nullsrc=s=256x16:r=24:d=0.25 -vf format=yuv420p10le,geq=lum='300+X':cb=512:cr=512 "
            "-strict -1 " + path("in.y4m"));
  const RunResult r = interpolate("-i " + path("in.y4m") + " -o " + path("out.y4m") + " --factor 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto in = decode_video(path("in.y4m"));
  const auto out = decode_video(path("out.y4m"));
  ASSERT_EQ(out.size(), 2 * in.size());
  for (std::size_t i = 0; i < in[0].luma.size(); ++i)
    ASSERT_NEAR(out[0].luma[i], in[0].luma[i], 1) << i;
}

TEST_F(Interpolate, OddSizesKeepTheirSize) {
  make_clip("-f lavfi -i testsrc2=s=320x180:r=25:d=0.4,scale=321:181 -pix_fmt yuv444p " + path("in.y4m"));
  const RunResult r = interpolate("-i " + path("in.y4m") + " -o " + path("out.mp4") + " --factor 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const FileProbe out = probe(path("out.mp4"));
  const StreamProbe* v = out.find(AVMEDIA_TYPE_VIDEO);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->width, 321);
  EXPECT_EQ(v->height, 181);
  EXPECT_EQ(v->pixel_format, AV_PIX_FMT_YUV444P);
  EXPECT_EQ(v->pts.size(), 30u);
}

// Without --model the tier follows the hardware: on the CPU (and on a software Vulkan device)
// the shipped fast model, named in the plain progress output.
TEST_F(Interpolate, WithoutAModelTheCpuUsesTheFastModel) {
  make_clip("-f lavfi -i testsrc2=s=96x64:r=24:d=0.25 -pix_fmt yuv420p " + path("in.y4m"));
  const RunResult r = run_framecast("interpolate --backend cpu --progress plain -i " + path("in.y4m") +
                                    " -o " + path("out.y4m") + " --factor 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("model framecast-fast.safetensors (2 flow blocks, large-motion pass) on the "
                       "cpu backend"),
            std::string::npos) << r.err;
  EXPECT_EQ(probe(path("out.y4m")).find(AVMEDIA_TYPE_VIDEO)->pts.size(), 12u);
}

TEST_F(Interpolate, AtASceneCutTheFrameBeforeItIsRepeated) {
  make_cut_clip(path("in.y4m"));
  const RunResult r = interpolate("-i " + path("in.y4m") + " -o " + path("out.y4m") + " --factor 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(final_report(r)["scene_cuts"], 1);
  const auto out = decode_video(path("out.y4m"));
  ASSERT_EQ(out.size(), 48u);
  EXPECT_EQ(luma_difference(out[22], out[23]), 0.0);  // source frame 11, then its repeat
  EXPECT_GT(luma_difference(out[20], out[21]), 0.0);  // blended inside the scene

  const RunResult blended = interpolate("-i " + path("in.y4m") + " -o " + path("blend.y4m") +
                                        " --factor 2 --no-scene-detect");
  ASSERT_EQ(blended.exit_code, 0) << blended.err;
  EXPECT_EQ(final_report(blended)["scene_cuts"], 0);
  const auto morphed = decode_video(path("blend.y4m"));
  ASSERT_EQ(morphed.size(), 48u);
  EXPECT_GT(luma_difference(morphed[22], morphed[23]), 1.0);
}

// 24 frames doubled: segments of 3 are output frames 0-15, 16-31 and 32-47. Each clip is run
// whole and in segments, to yuv4mpeg (frames compared byte for byte) and to FFV1 in Matroska
// (timestamps compared); the segments joined must be the whole run.
TEST_F(Interpolate, SegmentsJoinToTheWholeRun) {
  // A cut between source frames 11 and 12 (inside segment 1), 7 and 8 (output frame 16, the
  // first of segment 1), 14 and 15 (output frames 29-30, just before segment 2's start).
  for (int before : {12, 8, 15}) {
    SCOPED_TRACE("cut after source frame " + std::to_string(before - 1));
    make_cut_clip(path("in.y4m"), before);
    const std::string args = "-i " + path("in.y4m") + " --factor 2";
    const RunResult whole = interpolate(args + " -o " + path("whole.y4m"));
    ASSERT_EQ(whole.exit_code, 0) << whole.err;
    EXPECT_EQ(final_report(whole)["scene_cuts"], 1);
    ASSERT_EQ(interpolate(args + " -o " + path("whole.mkv") + " --codec ffv1").exit_code, 0);
    std::string joined;
    std::vector<Rational> times;
    for (int k = 0; k < 3; ++k) {
      const std::string part = path("part" + std::to_string(k));
      const std::string segment = " --segment " + std::to_string(k) + "/3";
      const RunResult r = interpolate(args + segment + " -o " + part + ".y4m");
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(final_report(r)["frames"], 16) << k;
      ASSERT_EQ(interpolate(args + segment + " -o " + part + ".mkv --codec ffv1").exit_code, 0);
      joined += y4m_frames(part + ".y4m");
      const auto pts = probe(part + ".mkv").find(AVMEDIA_TYPE_VIDEO)->pts;  // intra-only: in order
      times.insert(times.end(), pts.begin(), pts.end());
    }
    const std::string expected = y4m_frames(path("whole.y4m"));
    EXPECT_EQ(probe(path("whole.y4m")).find(AVMEDIA_TYPE_VIDEO)->pts.size(), 48u);
    EXPECT_EQ(joined.size(), expected.size());
    EXPECT_TRUE(joined == expected);  // not EXPECT_EQ: no dump of the frames
    EXPECT_EQ(times, probe(path("whole.mkv")).find(AVMEDIA_TYPE_VIDEO)->pts);
  }
}

// A segment starts decoding at a keyframe before its first frame, not at the file's start:
// H.264 with a keyframe every 8 frames and B-frames, a cut after source frame 29; four
// segments of 24 output frames joined are the whole run, and the later ones decode less.
TEST_F(Interpolate, SegmentsDecodeFromAKeyframeBeforeThem) {
  make_clip("-f lavfi -i testsrc2=s=160x90:r=24:d=2 -f lavfi -i testsrc2=s=160x90:r=24:d=2 "
            "-filter_complex '[0]trim=end_frame=30[a];[1]trim=end_frame=18,vflip,negate[b];[a][b]concat' "
            "-c:v libx264 -g 8 -keyint_min 8 -sc_threshold 0 -bf 2 -pix_fmt yuv420p " + path("in.mp4"));
  const std::string args = "-i " + path("in.mp4") + " --factor 2";
  const RunResult whole = interpolate(args + " -o " + path("whole.y4m"));
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_EQ(final_report(whole)["scene_cuts"], 1);
  EXPECT_EQ(final_report(whole)["decoded"], 48);
  std::string joined;
  for (int k = 0; k < 4; ++k) {
    const std::string part = path("part" + std::to_string(k) + ".y4m");
    const RunResult r = interpolate(args + " --segment " + std::to_string(k) + "/4 -o " + part);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(final_report(r)["frames"], 24) << k;
    // Segment k needs source frames from 12k - 8 on (keyframes at multiples of 8) up to the
    // decoder's look-ahead past 12k + 12.
    const int decoded = final_report(r)["decoded"];
    if (k >= 2) {
      EXPECT_LE(decoded, 48 - (12 * k - 8) / 8 * 8) << k;
    }
    joined += y4m_frames(part);
  }
  const std::string expected = y4m_frames(path("whole.y4m"));
  EXPECT_EQ(joined.size(), expected.size());
  EXPECT_TRUE(joined == expected);
}

// `framecast plan` moves a boundary to just after a key frame where one is near the equal
// split: 4 s at 24 fps with a key frame every 12 frames, doubled, in 2 parts. The equal split
// (output frame 96) would decode from key frame 36 and drop 4 frames more than the lead of 8;
// the planned boundary, output frame 88 (source frame 44 = 36 + 8), wastes none. The parts made
// with --frames join to the whole run.
TEST_F(Interpolate, PlannedPartsStartJustAfterAKeyFrame) {
  make_clip("-f lavfi -i testsrc2=s=160x90:r=24:d=4 -c:v libx264 -g 12 -keyint_min 12 "
            "-sc_threshold 0 -bf 2 -pix_fmt yuv420p " + path("in.mp4"));
  const RunResult plan =
      run_framecast("plan -i " + path("in.mp4") + " --factor 2 --segments 2 > " + path("plan.json"));
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  const auto j = nlohmann::json::parse(std::ifstream(path("plan.json")));
  EXPECT_EQ(j["rate"], "48");
  EXPECT_EQ(j["frames"], 192);
  EXPECT_EQ(j["key_frames"], 8);
  ASSERT_EQ(j["parts"].size(), 2u);
  EXPECT_EQ(j["parts"][0]["frames"], "0:88");
  EXPECT_EQ(j["parts"][1]["frames"], "88:");
  EXPECT_TRUE(j["parts"][1]["end"].is_null());

  const std::string args = "-i " + path("in.mp4") + " --factor 2";
  ASSERT_EQ(interpolate(args + " -o " + path("whole.y4m")).exit_code, 0);
  std::string joined;
  for (int k = 0; k < 2; ++k) {
    const std::string part = path("part" + std::to_string(k) + ".y4m");
    const RunResult r = interpolate(args + " --frames " + j["parts"][k]["frames"].get<std::string>() +
                                    " -o " + part);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(final_report(r)["frames"], k == 0 ? 88 : 104);
    joined += y4m_frames(part);
  }
  EXPECT_EQ(final_report(interpolate(args + " --frames 88: -o " + path("again.y4m")))["decoded"], 96 - 36);
  const std::string expected = y4m_frames(path("whole.y4m"));
  EXPECT_EQ(joined.size(), expected.size());
  EXPECT_TRUE(joined == expected);
}

// The README's join: FFV1 parts concatenated by stream copy, the input's audio muxed once.
TEST_F(Interpolate, SegmentsJoinByStreamCopy) {
  make_clip("-f lavfi -i testsrc2=s=160x90:r=24:d=1 -f lavfi -i sine=d=1 -c:v ffv1 -c:a flac " +
            path("in.mkv"));
  const std::string args = "-i " + path("in.mkv") + " --factor 2 --codec ffv1";
  ASSERT_EQ(interpolate(args + " -o " + path("whole.mkv")).exit_code, 0);
  std::string list;
  for (int k = 0; k < 3; ++k) {
    const std::string part = path("part" + std::to_string(k) + ".mkv");
    const RunResult r = interpolate(args + " --segment " + std::to_string(k) + "/3 -o " + part);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(probe(part).find(AVMEDIA_TYPE_AUDIO));  // video only
    list += "file '" + part + "'\n" + (k < 2 ? "duration 0.333333333\n" : "");  // 16 of 48 fps
  }
  std::ofstream(path("parts.txt")) << list;
  const Rational start = probe(path("in.mkv")).find(AVMEDIA_TYPE_VIDEO)->first();
  make_clip("-f concat -safe 0 -i " + path("parts.txt") + " -i " + path("in.mkv") +
            " -map 0:v -map 1:a -c copy -output_ts_offset " + std::to_string(start.to_double()) + " " +
            path("joined.mkv"));
  const auto whole = decode_video(path("whole.mkv")), joined = decode_video(path("joined.mkv"));
  ASSERT_EQ(joined.size(), whole.size());
  for (std::size_t i = 0; i < whole.size(); ++i) {
    EXPECT_EQ(joined[i].time, whole[i].time) << i;
    EXPECT_TRUE(joined[i].luma == whole[i].luma) << i;
  }
  EXPECT_EQ(probe(path("joined.mkv")).find(AVMEDIA_TYPE_AUDIO)->pts,
            probe(path("whole.mkv")).find(AVMEDIA_TYPE_AUDIO)->pts);
}

TEST_F(Interpolate, BadSegmentsAreOneLine) {
  make_clip("-f lavfi -i testsrc2=s=160x90:r=24:d=0.5 " + path("in.y4m"));
  const std::string io = "-i " + path("in.y4m") + " -o " + path("out.y4m") + " --factor 2";
  for (const std::string segment : {"3/3", "4/3", "0/0", "-1/3", "1", "x/3"}) {
    const RunResult r = interpolate(io + " --segment " + segment);
    EXPECT_EQ(r.exit_code, 2) << segment;
    EXPECT_NE(r.err.find("--segment must be K/N"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  for (const std::string frames : {"5:3", "4:4", "x:", "7"}) {
    const RunResult r = interpolate(io + " --frames " + frames);
    EXPECT_EQ(r.exit_code, 2) << frames;
    EXPECT_NE(r.err.find("--frames must be B:E or B:"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_NE(interpolate(io + " --frames 0:4 --segment 0/2").exit_code, 0);  // one or the other
  const RunResult many = interpolate(io + " --segment 0/25");  // 24 output frames
  EXPECT_EQ(many.exit_code, 2);
  EXPECT_NE(many.err.find("cannot cut 24 output frames into 25 segments"), std::string::npos) << many.err;
  EXPECT_EQ(std::count(many.err.begin(), many.err.end(), '\n'), 1) << many.err;
  EXPECT_FALSE(leftovers());
}

// 12 drawings a second shown on twos at 24 fps, the last one's repeat included. With --dedup
// the repeats go, each drawing keeps its time, and the frames between are interpolated; the
// output lasts as long as the source.
TEST_F(Interpolate, DedupInterpolatesAcrossRepeatedFrames) {
  make_clip("-f lavfi -i testsrc2=s=160x90:r=12:d=1 -vf fps=24 " + path("in.y4m"));
  const RunResult as_is = interpolate("-i " + path("in.y4m") + " -o " + path("as_is.y4m") + " --factor 1");
  ASSERT_EQ(as_is.exit_code, 0) << as_is.err;
  EXPECT_EQ(final_report(as_is)["repeats_dropped"], 0);
  const auto judder = decode_video(path("as_is.y4m"));
  ASSERT_EQ(judder.size(), 24u);
  EXPECT_EQ(luma_difference(judder[2], judder[3]), 0.0);

  const RunResult r = interpolate("-i " + path("in.y4m") + " -o " + path("out.y4m") + " --factor 2 --dedup");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = final_report(r);
  EXPECT_EQ(report["repeats_dropped"], 12);
  EXPECT_EQ(report["decoded"], 24);
  const auto out = decode_video(path("out.y4m"));
  ASSERT_EQ(out.size(), 48u);
  // Drawings 0-11 at output frames 0, 4, ..., 44; three made between each two, then the
  // last drawing repeated to the end.
  for (std::size_t i = 0; i + 1 < 45; ++i)
    EXPECT_GT(luma_difference(out[i], out[i + 1]), 0.0) << i;
  for (std::size_t i = 45; i < 48; ++i) EXPECT_EQ(luma_difference(out[44], out[i]), 0.0) << i;
  EXPECT_EQ(out[4].luma, judder[2].luma);  // drawing 1 itself
}

TEST_F(Interpolate, DedupIsForWholeRuns) {
  make_clip("-f lavfi -i testsrc2=s=160x90:r=12:d=1 -vf fps=24 " + path("in.y4m"));
  const std::string io = "-i " + path("in.y4m") + " -o " + path("out.y4m") + " --factor 2 --dedup";
  const RunResult segment = interpolate(io + " --segment 1/2");
  EXPECT_EQ(segment.exit_code, 2);
  EXPECT_NE(segment.err.find("--dedup applies to whole runs only"), std::string::npos) << segment.err;
  EXPECT_EQ(interpolate(io + " --frames 4:8").exit_code, 2);
  EXPECT_EQ(interpolate(io + " --dedup-threshold 0").exit_code, 2);
  EXPECT_EQ(interpolate(io + " --dedup-run 0").exit_code, 2);
  EXPECT_FALSE(leftovers());
}

TEST_F(Interpolate, FadesAndFlashesAreNotCuts) {
  // Fade out to black, fade in, and a one-frame flash, on moving content.
  make_clip("-f lavfi -i testsrc2=s=160x90:r=24:d=3 -vf '"
            "fade=out:st=0.5:d=0.5,fade=in:st=1.0:d=0.5,"
            "lutyuv=y=min(val*2.5+40\\,235):enable=eq(n\\,50)' " + path("in.mkv"));
  const RunResult r = interpolate("-i " + path("in.mkv") + " -o " + path("out.mkv") + " --factor 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(final_report(r)["scene_cuts"], 0);
}

TEST_F(Interpolate, VariableFrameRateInputGivesEvenlySpacedOutput) {
  // 24 fps for half a second, then 8 fps: the gaps are bridged at their real positions.
  make_clip("-f lavfi -i testsrc2=s=160x90:r=24:d=1 -vf 'setpts=if(lt(N\\,12)\\,N/24\\,0.5+(N-12)/8)/TB' "
            "-fps_mode passthrough -c:v libx264 " + path("in.mkv"));
  const RunResult r = interpolate("-i " + path("in.mkv") + " -o " + path("out.mkv") + " --fps 24");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const FileProbe in = probe(path("in.mkv"));
  const FileProbe out = probe(path("out.mkv"));
  const StreamProbe* v = out.find(AVMEDIA_TYPE_VIDEO);
  ASSERT_TRUE(v);
  std::vector<Rational> times = v->pts;
  std::sort(times.begin(), times.end());
  const Rational duration = in.find(AVMEDIA_TYPE_VIDEO)->last_end() - in.find(AVMEDIA_TYPE_VIDEO)->first();
  EXPECT_EQ(std::int64_t(times.size()), (duration * Rational(24)).round());
  for (std::size_t i = 0; i < times.size(); ++i)  // Matroska rounds to milliseconds
    EXPECT_LE(std::abs(((times[i] - times[0]) * Rational(1000)).to_double() - double(i) * 1000.0 / 24.0), 0.5)
        << i << ": " << times[i].str();
}

TEST_F(Interpolate, PipesCarryYuv4mpegBothWays) {
  make_clip("-f lavfi -i testsrc2=s=160x90:r=24:d=0.5 -c:v libx264 " + path("in.mkv"));
  const RunResult r = run_shell("ffmpeg -nostdin -v error -i " + path("in.mkv") + " -f yuv4mpegpipe - | " +
                                FRAMECAST_BINARY + " interpolate -i - -o - --factor 2 --progress none --model " +
                                model_.string() + " | ffmpeg -v error -y -i - " + path("out.mkv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(decode_video(path("out.mkv")).size(), 24u);
}

// Through pipes (PipeIo: non-blocking, waiting in poll) the frames are the file job's, byte for
// byte; the clip is many times a pipe's 64 KiB, so both ends fill and drain repeatedly.
TEST_F(Interpolate, PipesCarryTheFileJobsBytes) {
  make_clip("-f lavfi -i testsrc2=s=320x180:r=24:d=1 -pix_fmt yuv420p -f yuv4mpegpipe " + path("in.y4m"));
  const std::string job = std::string(FRAMECAST_BINARY) + " interpolate --factor 2 --progress none --model " +
                          model_.string();
  ASSERT_EQ(run_shell(job + " -i " + path("in.y4m") + " -o " + path("file.y4m")).exit_code, 0);
  const RunResult r = run_shell("cat " + path("in.y4m") + " | " + job + " -i - -o - | cat > " + path("pipe.y4m"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string frames = y4m_frames(path("file.y4m"));
  EXPECT_GT(frames.size(), std::size_t(40) * 320 * 180);
  EXPECT_TRUE(frames == y4m_frames(path("pipe.y4m")));
}

TEST_F(Interpolate, WebmGetsVp9AndKeepsOpusAudio) {
  make_clip("-f lavfi -i testsrc2=s=160x90:r=24:d=0.5 -f lavfi -i sine=d=0.5 -c:v libvpx-vp9 -c:a libopus " +
            path("in.webm"));
  const RunResult r = interpolate("-i " + path("in.webm") + " -o " + path("out.webm") + " --factor 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const FileProbe out = probe(path("out.webm"));
  ASSERT_TRUE(out.find(AVMEDIA_TYPE_VIDEO) && out.find(AVMEDIA_TYPE_AUDIO));
  EXPECT_EQ(out.find(AVMEDIA_TYPE_VIDEO)->codec, "vp9");
  EXPECT_EQ(out.find(AVMEDIA_TYPE_AUDIO)->codec, "opus");
  EXPECT_EQ(out.find(AVMEDIA_TYPE_VIDEO)->pts.size(), 24u);
}

TEST_F(Interpolate, RealClipsFromSharedData) {
  const auto clips = shared_clips();
  if (clips.empty()) GTEST_SKIP() << "no clips in " << FRAMECAST_SHARED_DATA << "/clips";
  for (const auto& clip : clips) {
    const auto in = decode_video(clip);
    const RunResult r = interpolate("-i " + clip.string() + " -o " + path("out.mkv") + " --factor 2");
    ASSERT_EQ(r.exit_code, 0) << clip << "\n" << r.err;
    EXPECT_EQ(decode_video(path("out.mkv")).size(), 2 * in.size()) << clip;
  }
}

// Failures: one clear line, a non-zero exit and nothing left under the output name.

void corrupt_middle(const std::string& from, const std::string& to, bool truncate) {
  std::ifstream in(from, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (truncate) {
    bytes.resize(bytes.size() / 2);
  } else {
    for (std::size_t i = bytes.size() / 2; i < bytes.size() / 2 + 2000; ++i) bytes[i] = char(bytes[i] ^ 0x5a);
  }
  std::ofstream(to, std::ios::binary) << bytes;
}

TEST_F(Interpolate, MissingInput) {
  const RunResult r = interpolate("-i " + path("in-missing.mp4") + " -o " + path("out.mp4") + " --factor 2");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("in-missing.mp4: no such file"), std::string::npos) << r.err;
  EXPECT_FALSE(leftovers());
}

TEST_F(Interpolate, TruncatedInput) {
  make_clip("-f lavfi -i testsrc2=s=160x90:r=24:d=4 -c:v libx264 " + path("in-full.mp4"));
  corrupt_middle(path("in-full.mp4"), path("in-cut.mp4"), true);  // the index (moov) is at the end
  RunResult r = interpolate("-i " + path("in-cut.mp4") + " -o " + path("out.mp4") + " --factor 2");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("moov atom not found"), std::string::npos) << r.err;
  EXPECT_FALSE(leftovers());

  make_clip("-i " + path("in-full.mp4") + " -c copy -movflags +faststart " + path("in-fast.mp4"));
  corrupt_middle(path("in-fast.mp4"), path("in-fastcut.mp4"), true);  // index first, data cut
  r = interpolate("-i " + path("in-fastcut.mp4") + " -o " + path("out.mp4") + " --factor 2");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("truncated"), std::string::npos) << r.err;
  EXPECT_FALSE(leftovers());
}

TEST_F(Interpolate, DamagedFramesAreBridgedUnlessStrict) {
  make_clip("-f lavfi -i testsrc2=s=160x90:r=24:d=4 -c:v libx264 -g 24 " + path("in-full.mp4"));
  corrupt_middle(path("in-full.mp4"), path("in-bad.mp4"), false);
  RunResult r = interpolate("-i " + path("in-bad.mp4") + " -o " + path("out.mp4") + " --factor 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("neighbours bridge the gap"), std::string::npos) << r.err;
  EXPECT_GT(final_report(r)["damaged"].get<int>(), 0);
  EXPECT_EQ(probe(path("out.mp4")).find(AVMEDIA_TYPE_VIDEO)->pts.size(), 192u);  // full length

  std::filesystem::remove(path("out.mp4"));
  r = interpolate("-i " + path("in-bad.mp4") + " -o " + path("out.mp4") + " --factor 2 --strict");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--strict"), std::string::npos) << r.err;
  EXPECT_FALSE(leftovers());
}

TEST_F(Interpolate, UnwritableOutput) {
  make_clip("-f lavfi -i testsrc2=s=160x90:r=24:d=0.2 " + path("in.y4m"));
  RunResult r = interpolate("-i " + path("in.y4m") + " -o " + path("no-such-dir/out.mp4") + " --factor 2");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
  r = interpolate("-i " + path("in.y4m") + " -o " + path("in.y4m/out.mp4") + " --factor 2");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_FALSE(leftovers());
}

TEST_F(Interpolate, UnsupportedCodecsAndContainers) {
  make_clip("-f lavfi -i testsrc2=s=160x90:r=24:d=0.2 -f lavfi -i sine=d=0.2 -c:v libx264 -c:a aac " +
            path("in.mp4"));
  for (const std::string& args : {"-o " + path("out.xyz"), "-o " + path("out.mp4") + " --codec no-such-codec",
                                  "-o " + path("out.webm") + " --codec libx264",
                                  "-o " + path("out.webm")}) {  // AAC cannot be copied into WebM
    const RunResult r = interpolate("-i " + path("in.mp4") + " --factor 2 " + args);
    EXPECT_EQ(r.exit_code, 1) << args;
    EXPECT_NE(r.err.find("framecast: error: "), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  make_clip("-f lavfi -i sine=d=0.2 " + path("in-audio.wav"));
  const RunResult r = interpolate("-i " + path("in-audio.wav") + " -o " + path("out.mp4") + " --factor 2");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("has no video stream"), std::string::npos) << r.err;
  EXPECT_FALSE(leftovers());
}

TEST_F(Interpolate, AWriteFailureMidwayLeavesNothing) {
  // A file size limit stands in for a full disk: writes fail part way through.
  make_clip("-f lavfi -i testsrc2=s=160x90:r=24:d=2 " + path("in.y4m"));
  const RunResult r = run_shell("ulimit -f 100; trap '' XFSZ; " + std::string(FRAMECAST_BINARY) +
                                " interpolate --progress none --model " + model_.string() + " -i " +
                                path("in.y4m") + " -o " + path("out.y4m") + " --factor 2");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("out.y4m: cannot write"), std::string::npos) << r.err;
  EXPECT_FALSE(leftovers());
}

TEST_F(Interpolate, InterruptLeavesNothing) {
  make_clip("-f lavfi -i testsrc2=s=160x90:r=24:d=30 -c:v libx264 -preset ultrafast " + path("in.mp4"));
  const RunResult r = run_shell(std::string(FRAMECAST_BINARY) + " interpolate --progress none --model " +
                                model_.string() + " -i " + path("in.mp4") + " -o " + path("out.mp4") +
                                " --factor 2 & pid=$!; sleep 1.5; kill -INT $pid; wait $pid");
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_NE(r.err.find("interrupted"), std::string::npos) << r.err;
  EXPECT_FALSE(leftovers());
}

// SIGINT while the model loads (as TerminateWhileTheModelLoadsLeavesNothing for pair).
TEST_F(Interpolate, InterruptWhileTheModelLoadsLeavesNothing) {
  make_clip("-f lavfi -i testsrc2=s=160x90:r=24:d=0.5 " + path("in.y4m"));
  testing::write_large_non_model(path("in-large.safetensors"));
  const std::string job = std::string(FRAMECAST_BINARY) + " interpolate --progress none --backend cpu --model " +
                          path("in-large.safetensors") + " -i " + path("in.y4m") + " -o " + path("out.mp4") +
                          " --factor 2";
  const RunResult r = run_shell(testing::signal_when_open(job, "in-large.safetensors", "INT", path("in-took-ms")));
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_EQ(r.err, "framecast: error: interrupted\n");
  const int took_ms = testing::read_int(path("in-took-ms"));
  EXPECT_GE(took_ms, 0);
  EXPECT_LT(took_ms, 1000);
  EXPECT_FALSE(leftovers());
}

TEST_F(Interpolate, AClosedOrFullOutputPipeIsOneLine) {
  make_clip("-f lavfi -i testsrc2=s=160x90:r=24:d=2 " + path("in.y4m"));
  const std::string job = std::string(FRAMECAST_BINARY) + " interpolate --progress none --backend cpu --model " +
                          model_.string() + " -i " + path("in.y4m") + " -o - --factor 2";
  // The reader goes away after 1000 bytes (sh has no PIPESTATUS: the status goes via a file).
  RunResult r = run_shell("(" + job + "; echo $? > " + path("status") + ") | head -c 1000 > /dev/null; exit $(cat " +
                          path("status") + ")");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("stdout: cannot write (Broken pipe)"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  std::filesystem::remove(path("status"));
  r = run_shell(job + " > /dev/full");  // a full disk under stdout
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("stdout: cannot write: the disk is full"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(leftovers());
}

// SIGTERM while the job waits on a pipe: for input that has not come (the yuv4mpeg header),
// and for a reader that does not read. The other end, a sleep, stays open for 4 s; the job
// must end long before that, as interrupted.
TEST_F(Interpolate, TerminateWhileWaitingOnAPipe) {
  make_clip("-f lavfi -i testsrc2=s=160x90:r=24:d=2 " + path("in.y4m"));
  const std::string job = std::string(FRAMECAST_BINARY) + " interpolate --progress none --backend cpu --model " +
                          model_.string() + " --factor 2 ";
  const std::string fifo = path("fifo");
  for (const std::string& ends :
       {"sleep 4 > " + fifo + " 2>/dev/null & " + job + "-i - -o " + path("out.y4m") + " < " + fifo,
        "sleep 4 < " + fifo + " > /dev/null 2>&1 & " + job + "-i " + path("in.y4m") + " -o - > " + fifo}) {
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    const auto start = std::chrono::steady_clock::now();
    const RunResult r = run_shell(ends + " & pid=$!; sleep 1; kill -TERM $pid; wait $pid");
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(r.exit_code, 130) << ends << "\n" << r.err;
    EXPECT_NE(r.err.find("interrupted"), std::string::npos) << r.err;
    EXPECT_LT(took.count(), 3.0) << ends;
    std::filesystem::remove(fifo);
  }
  EXPECT_FALSE(leftovers());
}

TEST_F(Interpolate, UsageErrors) {
  make_clip("-f lavfi -i testsrc2=s=160x90:r=24:d=0.2 " + path("in.y4m"));
  const std::string io = "-i " + path("in.y4m") + " -o " + path("out.mp4");
  EXPECT_EQ(interpolate(io).exit_code, 2);                              // neither --factor nor --fps
  EXPECT_EQ(interpolate(io + " --factor fast").exit_code, 2);           // not a number
  EXPECT_EQ(interpolate(io + " --fps 0").exit_code, 2);                 // not positive
  EXPECT_EQ(interpolate(io + " --factor 2 --scene-threshold 3").exit_code, 2);
  EXPECT_EQ(interpolate("-i " + path("in.y4m") + " -o " + path("out.mkv") + " --factor 2 --preset slow --codec ffv1")
                .exit_code, 2);
  EXPECT_NE(interpolate(io + " --factor 2 --fps 60").exit_code, 0);     // both
  EXPECT_FALSE(leftovers());
}

}  // namespace
}  // namespace framecast::test
