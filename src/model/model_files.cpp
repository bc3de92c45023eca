#include "model/model_files.hpp"

#include <bit>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/half.hpp"
#include "framecast/error.hpp"

namespace framecast::model_files {
namespace {

static_assert(std::endian::native == std::endian::little, "model files are little-endian");

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& what) {
  throw Error(ErrorKind::model, file.string() + ": " + what);
}

// Reads the file in chunks, asking `cancelled` before each, so that a large model on a slow
// disk does not hold up Ctrl-C.
std::string read_file(const std::filesystem::path& path, const Cancelled& cancelled) {
  constexpr std::size_t chunk = std::size_t(4) << 20;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::io, path.string() + ": cannot open model file");
  std::error_code ec;
  const std::uintmax_t expected = std::filesystem::file_size(path, ec);
  std::string bytes;
  if (!ec) bytes.reserve(std::size_t(expected));
  do {
    throw_if_cancelled(cancelled);
    const std::size_t done = bytes.size();
    bytes.resize(done + chunk);
    in.read(bytes.data() + done, std::streamsize(chunk));
    bytes.resize(done + std::size_t(in.gcount()));
  } while (in);
  if (in.bad()) throw Error(ErrorKind::io, path.string() + ": read error");
  return bytes;
}

nlohmann::json parse_json(const std::filesystem::path& file, std::string_view text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    fail(file, std::string("malformed JSON: ") + e.what());
  }
}

std::vector<std::int64_t> read_shape(const std::filesystem::path& file, const std::string& name,
                                     const nlohmann::json& entry) {
  if (!entry.is_object() || !entry.contains("shape") || !entry["shape"].is_array())
    fail(file, "tensor '" + name + "' has no shape array");
  std::vector<std::int64_t> shape;
  for (const auto& d : entry["shape"]) {
    if (!d.is_number_integer() || d.get<std::int64_t>() <= 0 || d.get<std::int64_t>() > (1 << 24))
      fail(file, "tensor '" + name + "' has an invalid dimension " + d.dump());
    shape.push_back(d.get<std::int64_t>());
  }
  return shape;
}

std::size_t element_count(const std::filesystem::path& file, const std::string& name,
                          const std::vector<std::int64_t>& shape) {
  std::size_t n = 1;
  for (auto d : shape) {
    n *= std::size_t(d);
    if (n > (std::size_t(1) << 32)) fail(file, "tensor '" + name + "' is implausibly large");
  }
  return n;
}

}  // namespace

RawModel read_json_bin(const std::filesystem::path& json_path, const Cancelled& cancelled) {
  const std::string manifest = read_file(json_path, cancelled);
  auto bin_path = json_path;
  bin_path.replace_extension(".bin");
  const std::string bin = read_file(bin_path, cancelled);
  throw_if_cancelled(cancelled);
  return parse_json_bin(manifest, bin, json_path, bin_path);
}

RawModel parse_json_bin(std::string_view manifest_text, std::string_view bin,
                        const std::filesystem::path& json_path,
                        const std::filesystem::path& bin_path) {
  const auto manifest = parse_json(json_path, manifest_text);
  if (!manifest.is_object()) fail(json_path, "the manifest is not a JSON object");
  if (bin.size() % 4 != 0) fail(bin_path, "size is not a multiple of 4 bytes (truncated?)");
  const std::size_t floats = bin.size() / 4;

  RawModel raw;
  for (const auto& [name, entry] : manifest.items()) {
    if (name == "__metadata__") {
      raw.metadata_json = entry.dump();
      continue;
    }
    Tensor t;
    t.shape = read_shape(json_path, name, entry);
    const std::size_t n = element_count(json_path, name, t.shape);
    if (!entry.contains("offset") || !entry["offset"].is_number_integer() ||
        entry["offset"].get<std::int64_t>() < 0)
      fail(json_path, "tensor '" + name + "' has no valid offset");
    const auto offset = entry["offset"].get<std::size_t>();
    if (offset > floats || n > floats - offset)
      fail(bin_path, "tensor '" + name + "' (offset " + std::to_string(offset) + ", " +
                         std::to_string(n) + " values) lies outside the file of " +
                         std::to_string(floats) + " values");
    t.values.resize(n);
    std::memcpy(t.values.data(), bin.data() + offset * 4, n * 4);
    raw.tensors.emplace(name, std::move(t));
  }
  return raw;
}

RawModel read_safetensors(const std::filesystem::path& path, const Cancelled& cancelled) {
  const std::string bytes = read_file(path, cancelled);
  throw_if_cancelled(cancelled);
  return parse_safetensors(bytes, path);
}

RawModel parse_safetensors(std::string_view bytes, const std::filesystem::path& path) {
  if (bytes.size() < 8) fail(path, "too short to be a safetensors file");
  std::uint64_t header_len;
  std::memcpy(&header_len, bytes.data(), 8);
  if (header_len > bytes.size() - 8) fail(path, "header length exceeds the file (truncated?)");
  const auto header = parse_json(path, std::string_view(bytes).substr(8, header_len));
  if (!header.is_object()) fail(path, "the header is not a JSON object");
  const std::size_t data_begin = 8 + header_len;
  const std::size_t data_size = bytes.size() - data_begin;

  RawModel raw;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      raw.metadata_json = entry.dump();
      continue;
    }
    Tensor t;
    t.shape = read_shape(path, name, entry);
    const std::size_t n = element_count(path, name, t.shape);
    const std::string dtype = entry.value("dtype", "");
    const std::size_t width = dtype == "F32" ? 4 : (dtype == "F16" || dtype == "BF16") ? 2 : 0;
    if (width == 0) fail(path, "tensor '" + name + "' has unsupported dtype '" + dtype + "'");
    const auto& offsets = entry.value("data_offsets", nlohmann::json());
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
        !offsets[1].is_number_unsigned())
      fail(path, "tensor '" + name + "' has no valid data_offsets");
    const auto begin = offsets[0].get<std::size_t>(), end = offsets[1].get<std::size_t>();
    if (begin > end || end > data_size)
      fail(path, "tensor '" + name + "' lies outside the file (truncated?)");
    if (end - begin != n * width)
      fail(path, "tensor '" + name + "' holds " + std::to_string(end - begin) +
                     " bytes, its shape needs " + std::to_string(n * width));
    const char* src = bytes.data() + data_begin + begin;
    t.values.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (width == 4) {
        std::memcpy(&t.values[i], src + 4 * i, 4);
      } else {
        std::uint16_t h;
        std::memcpy(&h, src + 2 * i, 2);
        t.values[i] = dtype == "F16" ? from_half(h)
                                     : std::bit_cast<float>(std::uint32_t(h) << 16);
      }
    }
    raw.tensors.emplace(name, std::move(t));
  }
  return raw;
}

}  // namespace framecast::model_files
