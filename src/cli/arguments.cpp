#include "cli/arguments.hpp"

#include <algorithm>
#include <cctype>

#include "framecast/error.hpp"

namespace framecast::cli {
namespace {

Error bad_pattern(const std::string& pattern, const std::string& why) {
  return Error(ErrorKind::invalid_argument, "output name '" + pattern + "': " + why);
}

Error bad_devices(const std::string& text, const std::string& why) {
  return Error(ErrorKind::invalid_argument, "--device '" + text + "': " + why);
}

// A device index of a list: digits only, below a bound no machine reaches.
int parse_device_index(const std::string& item, const std::string& text) {
  const bool digits = !item.empty() && item.size() <= 4 &&
                      std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits)
    throw bad_devices(text, (item.empty() ? std::string("an empty entry") : "'" + item + "'") +
                                " is not a device index (expected -1, an index, a list such as 0,1, "
                                "or all)");
  return std::stoi(item);
}

}  // namespace

DeviceSelection parse_device_selection(const std::string& text) {
  if (text == "all") return {true, {}};
  if (text == "-1") return {false, {-1}};
  DeviceSelection selection;
  std::size_t from = 0;
  for (;;) {
    const std::size_t comma = text.find(',', from);
    const int index = parse_device_index(text.substr(from, comma - from), text);
    if (std::find(selection.indices.begin(), selection.indices.end(), index) != selection.indices.end())
      throw bad_devices(text, "device " + std::to_string(index) + " is listed twice");
    selection.indices.push_back(index);
    if (comma == std::string::npos) return selection;
    from = comma + 1;
  }
}

std::pair<int, int> parse_size(const std::string& text) {
  const auto x = text.find('x');
  try {
    std::size_t used_w = 0, used_h = 0;
    const int w = std::stoi(text.substr(0, x), &used_w);
    const int h = std::stoi(text.substr(x + 1), &used_h);
    if (x != std::string::npos && used_w == x && used_h == text.size() - x - 1 && w > 0 && h > 0 &&
        w <= 16384 && h <= 16384)
      return {w, h};
  } catch (const std::logic_error&) {
  }
  throw Error(ErrorKind::invalid_argument, "invalid size '" + text + "' (expected WxH, e.g. 1920x1080)");
}

CLI::Option* add_t_option(CLI::App& command, std::vector<float>& ts) {
  ts = {0.5f};
  return command.add_option("-t,--t", ts, "position(s) between the frames in [0, 1], comma-separated")
      ->delimiter(',')
      ->capture_default_str();
}

void check_ts(const std::vector<float>& ts) {
  for (float t : ts)
    if (!(t >= 0.0f && t <= 1.0f))
      throw Error(ErrorKind::invalid_argument, "t = " + std::to_string(t) + " is outside [0, 1]");
}

std::vector<std::string> output_names(const std::string& pattern, std::size_t count) {
  // The pattern is expanded here, never handed to printf: a file name is not a format string.
  std::string before, after;
  int fields = 0, width = 0;
  bool zero_pad = false, stray_percent = false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    std::string& out = fields ? after : before;
    if (pattern[i] != '%') {
      out += pattern[i];
      continue;
    }
    if (i + 1 < pattern.size() && pattern[i + 1] == '%') {
      out += '%';
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    const bool zero = j < pattern.size() && pattern[j] == '0';
    int w = 0;
    for (j += zero; j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j])); ++j)
      w = std::min(w * 10 + (pattern[j] - '0'), 1000);
    if (j >= pattern.size() || pattern[j] != 'd') {
      stray_percent = true;
      out += '%';
      continue;
    }
    if (++fields > 1) throw bad_pattern(pattern, "it has more than one integer field");
    if (w > 32) throw bad_pattern(pattern, "its integer field is wider than 32");
    zero_pad = zero;
    width = w;
    i = j;
  }
  // Without a field the name is used as it is, % and all.
  if (fields == 0 && count == 1) return {pattern};
  if (fields == 0)
    throw Error(ErrorKind::invalid_argument,
                "with several t the output name needs one integer field such as mid_%02d.png (got '" +
                    pattern + "')");
  if (stray_percent)
    throw bad_pattern(pattern, "a % other than its integer field must be written %%");
  std::vector<std::string> names;
  for (std::size_t n = 1; n <= count; ++n) {
    std::string number = std::to_string(n);
    if (number.size() < std::size_t(width))
      number.insert(0, std::size_t(width) - number.size(), zero_pad ? '0' : ' ');
    names.push_back(before + number + after);
  }
  return names;
}

}  // namespace framecast::cli
