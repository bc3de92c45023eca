// framecast pair FRAME0 FRAME1 -o OUT [-t T[,T...]]: the frames between two images.
#include <cctype>
#include <cstdio>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "framecast/error.hpp"
#include "io/atomic_file.hpp"
#include "io/image.hpp"

namespace framecast::cli {
namespace {

struct PairOptions {
  std::string frame0, frame1, output;
  std::vector<float> ts = {0.5f};
  EngineOptions engine;
};

// The output names: OUT itself for one t; with several, OUT's one printf integer field
// (%d, %03d, ...) filled 1..N.
std::size_t integer_fields(const std::string& pattern) {
  std::size_t fields = 0;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') continue;
    std::size_t j = i + 1;
    while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j]))) ++j;
    if (j < pattern.size() && pattern[j] == 'd') ++fields;
  }
  return fields;
}

std::vector<std::string> output_names(const std::string& pattern, std::size_t count) {
  const std::size_t fields = integer_fields(pattern);
  if (fields > 1 || (count > 1 && fields == 0))
    throw Error(ErrorKind::invalid_argument,
                "with several t the output name needs one integer field such as mid_%02d.png (got '" +
                    pattern + "')");
  std::vector<std::string> names;
  for (std::size_t i = 1; i <= count; ++i) {
    if (fields == 0) {
      names.push_back(pattern);
      continue;
    }
    std::vector<char> buffer(pattern.size() + 32);
    std::snprintf(buffer.data(), buffer.size(), pattern.c_str(), int(i));
    names.emplace_back(buffer.data());
  }
  return names;
}

void run_pair(const PairOptions& options) {
  for (float t : options.ts)
    if (!(t >= 0.0f && t <= 1.0f))
      throw Error(ErrorKind::invalid_argument, "t = " + std::to_string(t) + " is outside [0, 1]");
  const auto names = output_names(options.output, options.ts.size());
  // Every output gets its temporary before any work, so an unwritable destination fails fast.
  std::vector<std::unique_ptr<io::AtomicFile>> outputs;
  for (const auto& name : names) outputs.push_back(std::make_unique<io::AtomicFile>(name));

  Frame frame0 = io::read_image(options.frame0);
  Frame frame1 = io::read_image(options.frame1);
  if (frame0.width() != frame1.width() || frame0.height() != frame1.height())
    throw Error(ErrorKind::invalid_argument,
                "the frames differ in size: " + options.frame0 + " is " +
                    std::to_string(frame0.width()) + "x" + std::to_string(frame0.height()) + ", " +
                    options.frame1 + " is " + std::to_string(frame1.width()) + "x" +
                    std::to_string(frame1.height()));
  // A 16-bit and an 8-bit image interpolate at 16 bits.
  if (frame0.depth() != frame1.depth()) {
    frame0 = frame0.converted(SampleDepth::u16);
    frame1 = frame1.converted(SampleDepth::u16);
  }
  Engine engine = make_engine(options.engine);
  throw_if_interrupted();
  const auto mids = engine.interpolate(frame0, frame1, options.ts);
  for (std::size_t i = 0; i < mids.size(); ++i) {
    throw_if_interrupted();
    io::encode_png(outputs[i]->temp_path(), mids[i]);
  }
  for (auto& out : outputs) out->commit();
}

}  // namespace

void add_pair_command(CLI::App& app) {
  auto options = std::make_shared<PairOptions>();
  auto* cmd = app.add_subcommand("pair", "synthesize the frame(s) between two images (PNG or JPEG in, PNG out)");
  cmd->add_option("FRAME0", options->frame0, "the first frame (t = 0)")->required();
  cmd->add_option("FRAME1", options->frame1, "the second frame (t = 1)")->required();
  cmd->add_option("-o,--output", options->output,
                  "output PNG; with several t a name with an integer field, e.g. mid_%02d.png")
      ->required();
  cmd->add_option("-t,--t", options->ts, "position(s) between the frames in [0, 1], comma-separated")
      ->delimiter(',')
      ->capture_default_str();
  add_engine_options(*cmd, options->engine);
  cmd->callback([options] { run_pair(*options); });
}

}  // namespace framecast::cli
