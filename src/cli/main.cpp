#include <csignal>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "framecast/error.hpp"

namespace {

int exit_code(framecast::ErrorKind kind) {
  switch (kind) {
    case framecast::ErrorKind::invalid_argument: return 2;
    case framecast::ErrorKind::cancelled: return 130;
    default: return 1;
  }
}

extern "C" void on_signal(int) { framecast::cli::interrupted = true; }

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  CLI::App app{"Framecast: synthesizes the frames between video frames with a learned optical-flow network."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "framecast " FRAMECAST_VERSION);
  // Usage errors, like every other error, are one line (CLI11 adds a second by default).
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "framecast: error: " + std::string(e.what()) + " (see --help)\n";
  });
  framecast::cli::add_pair_command(app);
  framecast::cli::add_info_command(app);
  framecast::cli::add_bench_command(app);
  framecast::cli::add_tune_command(app);
#ifdef FRAMECAST_HAVE_VIDEO
  framecast::cli::add_interpolate_command(app);
  framecast::cli::add_plan_command(app);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const framecast::Error& e) {
    std::cerr << "framecast: error: " << e.what() << "\n";
    return exit_code(e.kind());
  } catch (const std::bad_alloc&) {
    std::cerr << "framecast: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "framecast: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
