// framecast pair FRAME0 FRAME1 -o OUT [-t T[,T...]]: the frames between two images.
#include <memory>

#include "cli/arguments.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "framecast/error.hpp"
#include "io/atomic_file.hpp"
#include "io/image.hpp"

namespace framecast::cli {
namespace {

struct PairOptions {
  std::string frame0, frame1, output;
  std::vector<float> ts;
  EngineOptions engine;
};

void run_pair(const PairOptions& options) {
  check_ts(options.ts);
  const auto names = output_names(options.output, options.ts.size());
  // Every output gets its temporary before any work, so an unwritable destination fails fast.
  std::vector<std::unique_ptr<io::AtomicFile>> outputs;
  for (const auto& name : names) outputs.push_back(std::make_unique<io::AtomicFile>(name));

  const auto cancelled = [] { return interrupted.load(); };
  Frame frame0 = io::read_image(options.frame0, cancelled);
  Frame frame1 = io::read_image(options.frame1, cancelled);
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
  add_t_option(*cmd, options->ts);
  add_engine_options(*cmd, options->engine);
  cmd->callback([options] { run_pair(*options); });
}

}  // namespace framecast::cli
