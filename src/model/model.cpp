#include "framecast/model.hpp"

#include <cmath>
#include <set>

#include "framecast/error.hpp"
#include "model/model_files.hpp"

namespace framecast {
namespace {

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// Checks tensors against the graph's expectations, one at a time, so that the first problem
// is reported with the tensor's name.
class Validator {
 public:
  Validator(const std::map<std::string, Tensor>& tensors, const std::string& source)
      : tensors_(tensors), source_(source) {}

  [[noreturn]] void fail(const std::string& name, const std::string& what) const {
    throw Error(ErrorKind::model, source_ + ": tensor '" + name + "' " + what);
  }

  const Tensor& get(const std::string& name) {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) fail(name, "is missing");
    seen_.insert(name);
    return it->second;
  }

  // The tensor must have `rank` dimensions; returns its shape for the caller to check.
  const std::vector<std::int64_t>& shape_of(const std::string& name, std::size_t rank) {
    const auto& shape = get(name).shape;
    if (shape.size() != rank)
      fail(name, "has shape " + shape_text(shape) + ", expected " + std::to_string(rank) +
                     " dimensions");
    return shape;
  }

  void expect(const std::string& name, const std::vector<std::int64_t>& expected) {
    const auto& shape = get(name).shape;
    if (shape != expected)
      fail(name, "has shape " + shape_text(shape) + ", expected " + shape_text(expected));
  }

  // conv3x3 weight [out, in, 3, 3], bias [out], and PReLU slopes [out] when `prelu` names them.
  void conv(const std::string& prefix, std::int64_t out, std::int64_t in,
            const std::string& prelu = {}) {
    expect(prefix + ".weight", {out, in, 3, 3});
    expect(prefix + ".bias", {out});
    if (!prelu.empty()) expect(prelu, {out});
  }

  void check_unused_and_finite() const {
    for (const auto& [name, tensor] : tensors_) {
      if (!seen_.count(name)) fail(name, "is not part of the graph (unknown tensor)");
      for (float v : tensor.values)
        if (!std::isfinite(v)) fail(name, "contains a non-finite value");
    }
  }

 private:
  const std::map<std::string, Tensor>& tensors_;
  const std::string& source_;
  std::set<std::string> seen_;
};

ModelShape validate(const std::map<std::string, Tensor>& tensors, const std::string& source) {
  Validator v(tensors, source);
  ModelShape s;
  const auto& a = v.shape_of("block0.conv0.0.0.weight", 4);
  s.c1 = int(a[0]);
  s.input_channels = int(a[1]);
  const auto& b = v.shape_of("block0.conv0.1.0.weight", 4);
  s.c2 = int(b[0]);
  const bool film = tensors.count("film.0.weight") || tensors.count("film.2.weight");
  const bool refine = tensors.count("refine.c0.weight") != 0;
  s.variant = refine ? Variant::tfact2 : film ? Variant::tfact : Variant::classic;
  const int expected_inputs = film ? 6 : 7;
  if (s.input_channels != expected_inputs)
    v.fail("block0.conv0.0.0.weight",
           "has " + std::to_string(s.input_channels) + " input channels; a " +
               (film ? "t-factored (film.*) model needs 6" : "classic model needs 7"));
  if (refine && !film) v.fail("refine.c0.weight", "needs the FiLM tensors film.* (tfact2)");

  v.conv("block0.conv0.0.0", s.c1, s.input_channels, "block0.conv0.0.1.weight");
  v.conv("block0.conv0.1.0", s.c2, s.c1, "block0.conv0.1.1.weight");
  for (int i = 0; i < 8; ++i) {
    const std::string p = "block0.convblock." + std::to_string(i);
    v.conv(p + ".0", s.c2, s.c2, p + ".1.weight");
  }
  v.expect("block0.lastconv.weight", {s.c2, 5, 4, 4});
  v.expect("block0.lastconv.bias", {5});
  if (film) {
    s.film_hidden = int(v.shape_of("film.0.weight", 2)[0]);
    v.expect("film.0.weight", {s.film_hidden, 1});
    v.expect("film.0.bias", {s.film_hidden});
    v.expect("film.2.weight", {2 * std::int64_t(s.c2), s.film_hidden});
    v.expect("film.2.bias", {2 * std::int64_t(s.c2)});
  }
  if (refine) {
    s.refine_width = int(v.shape_of("refine.c0.weight", 4)[0]);
    const std::int64_t r = s.refine_width;
    v.conv("refine.c0", r, 11, "refine.a0.weight");
    v.conv("refine.c1", r, r, "refine.a1.weight");
    v.conv("refine.c2", r, r, "refine.a2.weight");
    v.conv("refine.c3", 3, r);
  }
  v.check_unused_and_finite();
  return s;
}

}  // namespace

const char* variant_name(Variant v) {
  switch (v) {
    case Variant::classic: return "classic";
    case Variant::tfact: return "tfact";
    case Variant::tfact2: return "tfact2";
  }
  return "unknown";
}

Model Model::from_tensors(std::map<std::string, Tensor> tensors, std::string metadata_json,
                          std::string source) {
  Model m;
  m.shape_ = validate(tensors, source);
  m.tensors_ = std::move(tensors);
  m.metadata_json_ = std::move(metadata_json);
  m.source_ = std::move(source);
  return m;
}

Model Model::load(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw Error(ErrorKind::io, path.string() + ": model file not found");
  const auto ext = path.extension().string();
  model_files::RawModel raw;
  if (ext == ".safetensors") {
    raw = model_files::read_safetensors(path);
  } else if (ext == ".json") {
    raw = model_files::read_json_bin(path);
  } else {
    throw Error(ErrorKind::model,
                path.string() + ": unknown model format (expected .json with .bin, or .safetensors)");
  }
  return from_tensors(std::move(raw.tensors), std::move(raw.metadata_json), path.string());
}

const Tensor& Model::tensor(const std::string& name) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end())
    throw Error(ErrorKind::internal, source_ + ": tensor '" + name + "' requested but absent");
  return it->second;
}

std::int64_t Model::parameter_count() const {
  std::int64_t n = 0;
  for (const auto& [name, t] : tensors_) n += std::int64_t(t.numel());
  return n;
}

}  // namespace framecast
