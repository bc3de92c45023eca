// The CLI's argument parsers. The first byte picks one, the rest is the argument's text:
// 0 --factor (rational), 1 --fps (frame rate), 2 --size, 3 -t list, 4 the pair command's
// output name pattern, 5 --segment K/N, 6 --frames B:E, 7 --device. Bad text must end in framecast::Error (or CLI11's ParseError for -t);
// what parses must be what the callers rely on.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "cli/arguments.hpp"
#include "framecast/error.hpp"
#include "video/rational.hpp"
#include "video/segment.hpp"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

void parse(std::uint8_t which, const std::string& text) {
  using namespace framecast;
  switch (which % 8) {
    case 0:
    case 1: {
      const video::Rational r = which % 8 == 0 ? video::parse_rational(text, "--factor")
                                               : video::parse_frame_rate(text, "--fps");
      check(r.num() > 0 && r.den() > 0);
      break;
    }
    case 2: {
      const auto [w, h] = cli::parse_size(text);
      check(w > 0 && h > 0 && w <= 16384 && h <= 16384);
      break;
    }
    case 3: {
      CLI::App app;
      std::vector<float> ts;
      cli::add_t_option(app, ts);
      app.parse(std::vector<std::string>{text, "-t"});  // CLI11 takes arguments in reverse
      cli::check_ts(ts);
      for (float t : ts) check(t >= 0.0f && t <= 1.0f);
      break;
    }
    case 4: {
      const std::size_t count = 1 + which / 8 % 4;
      const auto names = cli::output_names(text, count);
      check(names.size() == count);
      for (std::size_t i = 1; i < names.size(); ++i) check(names[i] != names[0]);
      break;
    }
    case 5: {
      const video::Segment segment = video::parse_segment(text, "--segment");
      check(segment.count >= 1 && segment.index >= 0 && segment.index < segment.count);
      break;
    }
    case 6: {
      const video::FrameRange range = video::parse_frame_range(text, "--frames");
      check(range.begin >= 0 && (!range.end || *range.end > range.begin));
      break;
    }
    case 7: {
      const cli::DeviceSelection selection = cli::parse_device_selection(text);
      check(selection.all == selection.indices.empty());
      for (std::size_t i = 0; i < selection.indices.size(); ++i)
        for (std::size_t j = 0; j < i; ++j) check(selection.indices[i] != selection.indices[j]);
      break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  try {
    parse(data[0], std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  } catch (const framecast::Error&) {
  } catch (const CLI::ParseError&) {
  }
  return 0;
}
