// The CLI's parsers of argument text: sizes, t lists, output name patterns. No engine here, so
// the fuzz targets (fuzz/) link these alone.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

namespace framecast::cli {

// "1280x720" -> {1280, 720}; throws Error(invalid_argument).
std::pair<int, int> parse_size(const std::string& text);

// --device as typed: "-1" (the backend picks one device), "N", a list "N,M,..." (no index
// twice) or "all". Throws Error(invalid_argument) naming what is wrong.
struct DeviceSelection {
  bool all = false;
  std::vector<int> indices;  // empty with `all`; {-1} for the backend's pick
};
DeviceSelection parse_device_selection(const std::string& text);

// `-t T[,T...]` on `command`: positions between two frames, default 0.5.
CLI::Option* add_t_option(CLI::App& command, std::vector<float>& ts);
// Throws Error(invalid_argument) for a t outside [0, 1] (or NaN).
void check_ts(const std::vector<float>& ts);

// The output names of `count` mids: `pattern` itself for one (without a field), else its one
// printf integer field (%d, %2d, %03d; %% is a literal %) filled 1..count. Any other %
// conversion, or none with several mids, throws Error(invalid_argument).
std::vector<std::string> output_names(const std::string& pattern, std::size_t count);

}  // namespace framecast::cli
