#include <cmath>
#include <random>

#include "framecast/model.hpp"

namespace framecast {

Model Model::random_classic(int c1, int c2, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::map<std::string, Tensor> tensors;
  // He-like scale keeps activations in range through the trunk, so timings and numerics
  // resemble a trained model's rather than a collapsed or exploding one.
  auto add = [&](const std::string& name, std::vector<std::int64_t> shape, float stddev,
                 float mean = 0.0f) {
    Tensor t;
    std::size_t n = 1;
    for (auto d : shape) n *= std::size_t(d);
    t.shape = std::move(shape);
    std::normal_distribution<float> dist(mean, stddev);
    t.values.resize(n);
    for (auto& v : t.values) v = dist(rng);
    tensors.emplace(name, std::move(t));
  };
  auto conv = [&](const std::string& prefix, const std::string& prelu, int out, int in) {
    add(prefix + ".weight", {out, in, 3, 3}, std::sqrt(1.0f / float(in * 9)));
    add(prefix + ".bias", {out}, 0.01f);
    add(prelu, {out}, 0.02f, 0.25f);
  };
  conv("block0.conv0.0.0", "block0.conv0.0.1.weight", c1, 7);
  conv("block0.conv0.1.0", "block0.conv0.1.1.weight", c2, c1);
  for (int i = 0; i < 8; ++i) {
    const std::string p = "block0.convblock." + std::to_string(i);
    conv(p + ".0", p + ".1.weight", c2, c2);
  }
  add("block0.lastconv.weight", {c2, 5, 4, 4}, std::sqrt(0.25f / float(c2 * 4)));
  add("block0.lastconv.bias", {5}, 0.1f);
  return from_tensors(std::move(tensors), R"({"name":"random"})",
                      "random classic model (C1=" + std::to_string(c1) +
                          ", C2=" + std::to_string(c2) + ")");
}

}  // namespace framecast
