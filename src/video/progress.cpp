#include "video/progress.hpp"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "video/rational.hpp"

namespace framecast::video {
namespace {

std::string duration_text(double seconds) {
  const std::string text = clock_text(Rational(std::llround(std::max(0.0, seconds))));
  return text.substr(0, text.size() - 4);  // whole seconds: without ".000"
}

std::string fixed(double value, int decimals) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// Divides by a power of ten so that JSON shows 9.79, not 9.790000000000001.
double round_to(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

}  // namespace

std::int64_t expected_total(std::int64_t estimate, std::int64_t done, bool finished) noexcept {
  if (estimate <= 0) return 0;
  return finished ? done : std::max(estimate, done);
}

double Progress::eta_s() const noexcept {
  if (total <= 0 || done <= 0 || elapsed_s <= 0.0) return -1.0;
  return double(std::max<std::int64_t>(0, total - done)) * elapsed_s / double(done);
}

// Lines are built by appending: GCC 12 warns falsely (-Wrestrict) on chains of operator+.
std::string progress_line(const Progress& p) {
  std::string line = "frame ";
  line += std::to_string(p.done);
  if (p.total > 0) {
    line += '/';
    line += std::to_string(p.total);
    line += " (";
    line += std::to_string(std::min<std::int64_t>(100, p.done * 100 / p.total));
    line += "%)";
  }
  line += "  ";
  line += fixed(p.fps(), 1);
  line += " fps";
  if (const double eta = p.eta_s(); eta >= 0.0) {
    line += "  ETA ";
    line += duration_text(eta);
  }
  return line;
}

std::string summary_line(const Progress& p) {
  std::string line = std::to_string(p.done);
  line += " frames in ";
  line += duration_text(p.elapsed_s);
  line += " (";
  line += fixed(p.fps(), 1);
  line += " fps); ";
  line += std::to_string(p.scene_cuts);
  line += p.scene_cuts == 1 ? " scene cut" : " scene cuts";
  if (p.repeats > 0) {
    line += "; ";
    line += std::to_string(p.repeats);
    line += p.repeats == 1 ? " repeated frame dropped" : " repeated frames dropped";
  }
  if (p.damaged > 0) {
    line += "; ";
    line += std::to_string(p.damaged);
    line += " damaged frames skipped";
  }
  return line;
}

std::string progress_json(const Progress& p) {
  nlohmann::json j = {{"frames", p.done},
                      {"total", p.total > 0 ? nlohmann::json(p.total) : nlohmann::json(nullptr)},
                      {"fps", round_to(p.fps(), 2)},
                      {"elapsed_s", round_to(p.elapsed_s, 2)}};
  if (p.total > 0) j["percent"] = round_to(100.0 * double(p.done) / double(p.total), 1);
  if (const double eta = p.eta_s(); eta >= 0.0) j["eta_s"] = round_to(eta, 1);
  if (p.finished) {
    j["finished"] = true;
    j["decoded"] = p.decode.frames;
    j["synthesized"] = p.synthesized;
    j["scene_cuts"] = p.scene_cuts;
    j["repeats_dropped"] = p.repeats;
    j["damaged"] = p.damaged;
    j["stage_fps"] = {{"decode", round_to(p.decode.fps(), 2)},
                      {"interpolate", round_to(p.interpolate.fps(), 2)},
                      {"encode", round_to(p.encode.fps(), 2)}};
  }
  return j.dump();
}

}  // namespace framecast::video
