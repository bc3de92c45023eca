#include "framecast/model.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "engine/cancelled.hpp"
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

// Block k's input scale: "block_scales" in the metadata (block0's 4 first; a JSON array, or
// its text where the format stores strings, as safetensors does), else 4, 2, 1, 1, ...
std::vector<int> block_scales(const std::string& metadata_json, std::size_t blocks,
                              const std::string& source) {
  std::vector<int> scales;
  for (std::size_t k = 0; k < blocks; ++k) scales.push_back(std::max(1, 4 >> k));
  const auto metadata = nlohmann::json::parse(metadata_json, nullptr, false);
  if (!metadata.is_object() || !metadata.contains("block_scales")) return scales;
  auto given = metadata["block_scales"];
  if (given.is_string()) given = nlohmann::json::parse(given.get<std::string>(), nullptr, false);
  const auto bad = [&](const std::string& why) {
    throw Error(ErrorKind::model, source + ": metadata block_scales " + why);
  };
  if (!given.is_array() || given.size() != blocks)
    bad("must list one scale per block (" + std::to_string(blocks) + ")");
  for (std::size_t k = 0; k < blocks; ++k) {
    if (!given[k].is_number_integer()) bad("holds a non-integer");
    // Compared before narrowing: 4294967300 as an int would be 4.
    if (given[k] != 1 && given[k] != 2 && given[k] != 4) bad("allows 4, 2 and 1 only");
    scales[k] = given[k].get<int>();
  }
  if (scales[0] != 4) bad("must start with 4 (block0's scale)");
  return scales;
}

// One block's convolution tensors; returns {c1, c2}.
std::pair<int, int> validate_block(Validator& v, const std::string& block, int input_channels) {
  const auto& a = v.shape_of(block + ".conv0.0.0.weight", 4);
  const int c1 = int(a[0]);
  if (a[1] != input_channels)
    v.fail(block + ".conv0.0.0.weight", "has " + std::to_string(a[1]) +
                                            " input channels, this block needs " +
                                            std::to_string(input_channels));
  const int c2 = int(v.shape_of(block + ".conv0.1.0.weight", 4)[0]);
  v.conv(block + ".conv0.0.0", c1, input_channels, block + ".conv0.0.1.weight");
  v.conv(block + ".conv0.1.0", c2, c1, block + ".conv0.1.1.weight");
  for (int i = 0; i < 8; ++i) {
    const std::string p = block + ".convblock." + std::to_string(i);
    v.conv(p + ".0", c2, c2, p + ".1.weight");
  }
  v.expect(block + ".lastconv.weight", {c2, 5, 4, 4});
  v.expect(block + ".lastconv.bias", {5});
  return {c1, c2};
}

// The FiLM MLP under `prefix` (film or block{k}.film) for a trunk of width c2; its hidden width.
int validate_film(Validator& v, const std::string& prefix, int c2) {
  const int hidden = int(v.shape_of(prefix + ".0.weight", 2)[0]);
  v.expect(prefix + ".0.weight", {hidden, 1});
  v.expect(prefix + ".0.bias", {hidden});
  v.expect(prefix + ".2.weight", {2 * std::int64_t(c2), hidden});
  v.expect(prefix + ".2.bias", {2 * std::int64_t(c2)});
  return hidden;
}

ModelShape validate(const std::map<std::string, Tensor>& tensors, const std::string& metadata_json,
                    const std::string& source) {
  Validator v(tensors, source);
  ModelShape s;
  const auto& conv0a = v.shape_of("block0.conv0.0.0.weight", 4);
  s.c1 = int(conv0a[0]);
  s.input_channels = int(conv0a[1]);
  s.c2 = int(v.shape_of("block0.conv0.1.0.weight", 4)[0]);
  const bool film = tensors.count("film.0.weight") || tensors.count("film.2.weight");
  const bool refine = tensors.count("refine.c0.weight") != 0;
  s.variant = refine ? Variant::tfact2 : film ? Variant::tfact : Variant::classic;
  const int expected_inputs = film ? 6 : 7;
  if (s.input_channels != expected_inputs)
    v.fail("block0.conv0.0.0.weight",
           "has " + std::to_string(s.input_channels) + " input channels; a " +
               (film ? "t-factored (film.*) model needs 6" : "classic model needs 7"));
  if (refine && !film) v.fail("refine.c0.weight", "needs the FiLM tensors film.* (tfact2)");

  validate_block(v, "block0", s.input_channels);
  if (film) s.film_hidden = validate_film(v, "film", s.c2);
  // Refinement blocks: both frames, both warped frames, [t,] mask and flow.
  for (int k = 1; tensors.count("block" + std::to_string(k) + ".conv0.0.0.weight"); ++k) {
    const std::string block = "block" + std::to_string(k);
    RefinementBlock rb;
    rb.index = k;
    rb.input_channels = film ? 17 : 18;
    std::tie(rb.c1, rb.c2) = validate_block(v, block, rb.input_channels);
    if (film) rb.film_hidden = validate_film(v, block + ".film", rb.c2);
    s.blocks.push_back(rb);
  }
  const auto scales = block_scales(metadata_json, s.blocks.size() + 1, source);
  // Convex models give every refinement block an upmask (the reference's convex_up), whose
  // 9 f^2 logits per coarse pixel depend on the block's upsampling factor f = 2 * scale.
  const auto upmask = [](const RefinementBlock& rb) {
    return "block" + std::to_string(rb.index) + ".upmask";
  };
  const bool convex = std::any_of(s.blocks.begin(), s.blocks.end(), [&](const auto& rb) {
    return tensors.count(upmask(rb) + ".weight") || tensors.count(upmask(rb) + ".bias");
  });
  for (auto& rb : s.blocks) {
    rb.scale = scales[rb.index];
    if (!convex) continue;
    const std::string p = upmask(rb);
    if (!tensors.count(p + ".weight") && !tensors.count(p + ".bias"))
      v.fail(p + ".weight", "is missing: a convex model has an upmask in every refinement block");
    const std::int64_t f = rb.upsample_factor();
    v.expect(p + ".weight", {rb.c2, 9 * f * f, 4, 4});
    v.expect(p + ".bias", {9 * f * f});
    rb.convex = true;
  }
  if (tensors.count("block0.upmask.weight") || tensors.count("block0.upmask.bias")) {
    const std::int64_t f = ModelShape::block0_convex_factor;
    v.expect("block0.upmask.weight", {s.c2, 9 * f * f, 4, 4});
    v.expect("block0.upmask.bias", {9 * f * f});
    s.convex_block0 = true;
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
  m.shape_ = validate(tensors, metadata_json, source);
  m.tensors_ = std::move(tensors);
  m.metadata_json_ = std::move(metadata_json);
  m.source_ = std::move(source);
  return m;
}

Model Model::load(const std::filesystem::path& path, const std::function<bool()>& cancelled) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw Error(ErrorKind::io, path.string() + ": model file not found");
  const auto ext = path.extension().string();
  model_files::RawModel raw;
  if (ext == ".safetensors") {
    raw = model_files::read_safetensors(path, cancelled);
  } else if (ext == ".json") {
    raw = model_files::read_json_bin(path, cancelled);
  } else {
    throw Error(ErrorKind::model,
                path.string() + ": unknown model format (expected .json with .bin, or .safetensors)");
  }
  throw_if_cancelled(cancelled);
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
