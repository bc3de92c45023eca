// Model validation (Model::from_tensors): which tensors a graph needs, their shapes, and the
// metadata (block_scales). The input is a JSON object of tensor name -> shape plus an optional
// "__metadata__", so mutations act on names, shapes and metadata rather than on file framing;
// the tensors hold zeros. Anything invalid must end in framecast::Error.
#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "framecast/error.hpp"
#include "framecast/model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto doc = nlohmann::json::parse(data, data + size, nullptr, false);
  if (!doc.is_object()) return 0;
  std::map<std::string, framecast::Tensor> tensors;
  std::string metadata = "{}";
  std::size_t total = 0;
  for (const auto& [name, shape] : doc.items()) {
    if (name == "__metadata__") {
      metadata = shape.dump();
      continue;
    }
    if (!shape.is_array()) return 0;
    framecast::Tensor t;
    std::size_t n = 1;
    for (const auto& d : shape) {
      if (!d.is_number_integer() || d.get<std::int64_t>() < 1 || d.get<std::int64_t>() > 4096) return 0;
      t.shape.push_back(d.get<std::int64_t>());
      n *= std::size_t(d.get<std::int64_t>());
      if (n > (1u << 20)) return 0;  // the file readers bound sizes; this bounds memory
    }
    total += n;
    if (total > (1u << 22)) return 0;
    t.values.assign(n, 0.0f);
    tensors.emplace(name, std::move(t));
  }
  try {
    framecast::Model::from_tensors(std::move(tensors), metadata, "fuzz");
  } catch (const framecast::Error&) {
  }
  return 0;
}
