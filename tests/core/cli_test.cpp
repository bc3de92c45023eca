// `framecast pair` as a user runs it: outputs, and every error case with one line on stderr,
// a non-zero exit and no file left behind.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/test_support.hpp"
#include "io/image.hpp"
#include "io/test_pattern.hpp"

namespace framecast {
namespace {

using testing::TempDir;

struct Result {
  int exit_code;
  std::string err;
};

Result run(const TempDir& dir, const std::string& args) {
  const auto err_path = dir.path().parent_path() / (dir.path().filename().string() + ".stderr");
  const std::string cmd = std::string(FRAMECAST_BINARY) + " " + args + " 2>" + err_path.string() + " >/dev/null";
  const int status = std::system(cmd.c_str());
  std::ifstream in(err_path);
  std::string err((std::istreambuf_iterator<char>(in)), {});
  std::filesystem::remove(err_path);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, err};
}

class PairCli : public ::testing::Test {
 protected:
  void SetUp() override {
    io::write_png(dir / "a.png", io::test_pattern(50, 38, 0.0f));
    io::write_png(dir / "b.png", io::test_pattern(50, 38, 3.0f));
    model = (testing::golden_dir() / "classic_50x38_guard" / "model.json").string();
  }
  std::string pair(const std::string& rest) const {
    return "pair " + (dir / "a.png").string() + " " + (dir / "b.png").string() + " --backend cpu --model " +
           model + " " + rest;
  }
  // The command fails with one line naming `part`, and the folder holds only the inputs.
  void expect_failure(const std::string& args, const std::string& part) {
    const Result r = run(dir, args);
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_NE(r.err.find(part), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(dir.files(), (std::vector<std::string>{"a.png", "b.png"})) << args;
  }
  TempDir dir;
  std::string model;
};

TEST_F(PairCli, WritesOneMid) {
  const Result r = run(dir, pair("-o " + (dir / "mid.png").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Frame mid = io::read_image(dir / "mid.png");
  EXPECT_EQ(mid.width(), 50);
  EXPECT_EQ(mid.height(), 38);
}

TEST_F(PairCli, SeveralTFillTheIntegerField) {
  const Result r = run(dir, pair("-t 0.25,0.5,0.75 --static-guard --ensemble 4 -o " +
                                  (dir / "mid_%02d.png").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(dir.files(), (std::vector<std::string>{"a.png", "b.png", "mid_01.png", "mid_02.png", "mid_03.png"}));
}

// The name is expanded by Framecast, never used as a printf format: "%s" once crashed it,
// and "%%d" wrote every mid to the same file.
TEST_F(PairCli, OutputNamesAreNotFormatStrings) {
  const auto quoted = [&](const std::string& name) { return " -o '" + (dir / name).string() + "'"; };
  expect_failure(pair("-t 0.3" + quoted("x_%s_%d.png")), "must be written %%");
  expect_failure(pair("-t 0.3,0.6" + quoted("x_%n%d.png")), "must be written %%");
  expect_failure(pair("-t 0.3,0.6" + quoted("mid_%%d.png")), "integer field");
  expect_failure(pair("-t 0.3,0.6" + quoted("mid_%d_%d.png")), "more than one integer field");
  Result r = run(dir, pair("-t 0.25,0.5" + quoted("mid_%%_%3d.png")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run(dir, pair("-t 0.5" + quoted("100%.png")));  // one mid, no field: the name as it is
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(dir.files(), (std::vector<std::string>{"100%.png", "a.png", "b.png", "mid_%_  1.png", "mid_%_  2.png"}));
}

TEST_F(PairCli, ErrorsAreOneLineAndLeaveNothing) {
  const auto out = " -o " + (dir / "mid.png").string();
  expect_failure(pair("-t 1.5" + out), "outside [0, 1]");
  expect_failure(pair("-t 0.2,0.4" + out), "integer field");
  expect_failure("pair " + (dir / "a.png").string() + " " + (dir / "nope.png").string() +
                     " --backend cpu --model " + model + out,
                 "nope.png");
  expect_failure("pair " + (dir / "a.png").string() + " " + (dir / "b.png").string() +
                     " --backend cpu --model " + (dir / "none.json").string() + out,
                 "none.json");
  expect_failure(pair("--backend warp-drive" + out), "unknown backend");
  expect_failure(pair("--precision f8" + out), "unknown precision");
  expect_failure(pair("--ensemble 3" + out), "ensemble of 3 passes");
  expect_failure(pair("--large-motion maybe" + out), "--large-motion");
  expect_failure(pair("--no-such-option" + out), "--no-such-option");  // a usage error
  expect_failure(pair("--ensemble two" + out), "--ensemble");
  expect_failure(pair("-o " + (dir / "missing-folder" / "mid.png").string()), "does not exist");
}

TEST_F(PairCli, DifferentSizesAndBadModelsFail) {
  io::write_png(dir / "small.png", io::test_pattern(20, 20, 0.0f));
  const Result r = run(dir, "pair " + (dir / "a.png").string() + " " + (dir / "small.png").string() +
                                " --backend cpu --model " + model + " -o " + (dir / "mid.png").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("differ in size"), std::string::npos) << r.err;
  std::filesystem::remove(dir / "small.png");

  std::ofstream(dir / "bad.json") << "{\"block0.conv0.0.0.weight\": 3}";
  std::ofstream(dir / "bad.bin") << "";
  const Result bad = run(dir, pair("--model " + (dir / "bad.json").string() + " -o " + (dir / "mid.png").string()));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("bad.json"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "mid.png"));
}

// SIGTERM while the model loads, sent as soon as the job has the file open. Before the fix the
// job read all of it and then reported the model's error (exit 1); now it stops within a 4 MiB
// chunk, with exit 130, one line, and nothing left under or beside the output's name.
TEST_F(PairCli, TerminateWhileTheModelLoadsLeavesNothing) {
  TempDir models;
  testing::write_large_non_model(models / "large.safetensors");
  const std::string job = std::string(FRAMECAST_BINARY) + " " +
                          pair("--model " + (models / "large.safetensors").string() + " -o " +
                               (dir / "mid.png").string()) + " 2>" + (models / "stderr").string();
  const int status =
      std::system(testing::signal_when_open(job, "large.safetensors", "TERM", models / "took-ms").c_str());
  std::ifstream err(models / "stderr");
  const std::string message((std::istreambuf_iterator<char>(err)), {});
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 130) << message;
  EXPECT_EQ(message, "framecast: error: interrupted\n");
  const int took_ms = testing::read_int(models / "took-ms");
  EXPECT_GE(took_ms, 0);
  EXPECT_LT(took_ms, 1000);
  EXPECT_EQ(dir.files(), (std::vector<std::string>{"a.png", "b.png"}));
}

// SIGTERM while `pair` waits for a frame from a FIFO whose writer stays silent for 4 s. Before
// the fix it waited for the writer to close, then said "empty file" (exit 1).
TEST_F(PairCli, TerminateWhileWaitingForAFrameOnAFifo) {
  TempDir fifos;
  const auto fifo = fifos / "frame0.png";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string job = std::string(FRAMECAST_BINARY) + " pair " + fifo.string() + " " +
                          (dir / "b.png").string() + " --backend cpu --model " + model + " -o " +
                          (dir / "mid.png").string() + " 2>" + (fifos / "stderr").string();
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(("sleep 4 > " + fifo.string() + " 2>/dev/null & " + job +
                                  " & pid=$!; sleep 1; kill -TERM $pid; wait $pid").c_str());
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // lets `sleep` go if it waits
  if (reader >= 0) ::close(reader);
  std::ifstream err(fifos / "stderr");
  const std::string message((std::istreambuf_iterator<char>(err)), {});
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 130) << message;
  EXPECT_EQ(message, "framecast: error: interrupted\n");
  EXPECT_LT(took.count(), 3.0);
  EXPECT_EQ(dir.files(), (std::vector<std::string>{"a.png", "b.png"}));
}

TEST(InfoCli, ListsBackends) {
  TempDir dir;
  const Result r = run(dir, "info");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

std::string stdout_of(const std::string& args) {
  FILE* pipe = popen((std::string(FRAMECAST_BINARY) + " " + args).c_str(), "r");
  EXPECT_TRUE(pipe);
  if (!pipe) return "";
  std::string text;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) text.append(buffer, n);
  EXPECT_EQ(pclose(pipe), 0) << args;
  return text;
}

// One version, the project's (CMake's project()), wherever the tool shows it.
TEST(InfoCli, VersionIsTheProjects) {
  const std::string version = FRAMECAST_VERSION;
  EXPECT_EQ(stdout_of("--version"), "framecast " + version + "\n");
  EXPECT_EQ(stdout_of("info").rfind("Framecast " + version + "\n", 0), 0u);
  EXPECT_EQ(nlohmann::json::parse(stdout_of("info --json"))["version"], version);
}

// tools/farm's workers count their GPUs from this object.
TEST(InfoCli, JsonListsDevicesAndModels) {
  const auto info = nlohmann::json::parse(stdout_of("info --json"));
  EXPECT_GE(info["cpu"]["threads"].get<int>(), 1);
  EXPECT_NE(std::find(info["backends"].begin(), info["backends"].end(), "cpu"), info["backends"].end());
  ASSERT_TRUE(info["vulkan"]["devices"].is_array());
  for (const auto& d : info["vulkan"]["devices"]) {
    EXPECT_TRUE(d["hardware"].is_boolean());
    EXPECT_TRUE(d["usable"].is_boolean());
    EXPECT_TRUE(d["index"].is_number_integer());
  }
  EXPECT_EQ(info["models"]["slim"]["variant"], "classic");
  EXPECT_EQ(info["models"]["quality"]["flow_blocks"], 3);
}

}  // namespace
}  // namespace framecast
