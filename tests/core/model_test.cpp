// Model files: both formats, every validation error named with file and tensor.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/test_support.hpp"
#include "framecast/engine.hpp"
#include "framecast/error.hpp"
#include "framecast/model.hpp"

namespace framecast {
namespace {

using testing::TempDir;

// Writes tensors as NAME.json + NAME.bin, optionally with a manifest edit before saving.
std::filesystem::path write_json_bin(const TempDir& dir, const std::map<std::string, Tensor>& tensors,
                                     const std::function<void(nlohmann::json&)>& edit = {}) {
  nlohmann::json manifest;
  std::vector<float> bin;
  for (const auto& [name, t] : tensors) {
    manifest[name] = {{"shape", t.shape}, {"offset", bin.size()}};
    bin.insert(bin.end(), t.values.begin(), t.values.end());
  }
  manifest["__metadata__"] = {{"name", "test model"}, {"version", 3}};
  if (edit) edit(manifest);
  const auto json_path = dir / "m.json";
  std::ofstream(json_path) << manifest.dump();
  std::ofstream(dir / "m.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(bin.data()), std::streamsize(bin.size() * 4));
  return json_path;
}

// The safetensors layout with the given dtype for every tensor (values converted from f32).
std::filesystem::path write_safetensors(const TempDir& dir, const std::map<std::string, Tensor>& tensors,
                                        const std::string& dtype) {
  nlohmann::json header;
  std::string data;
  for (const auto& [name, t] : tensors) {
    const std::size_t begin = data.size();
    for (float v : t.values) {
      std::uint32_t bits;
      std::memcpy(&bits, &v, 4);
      if (dtype == "F32") {
        data.append(reinterpret_cast<const char*>(&v), 4);
      } else {  // BF16 by truncation: exact for the values the test compares
        const std::uint16_t h = std::uint16_t(bits >> 16);
        data.append(reinterpret_cast<const char*>(&h), 2);
      }
    }
    header[name] = {{"dtype", dtype}, {"shape", t.shape}, {"data_offsets", {begin, data.size()}}};
  }
  header["__metadata__"] = {{"variant", "classic"}};
  const std::string text = header.dump();
  const std::uint64_t n = text.size();
  const auto path = dir / "m.safetensors";
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(&n), 8);
  out << text << data;
  return path;
}

std::map<std::string, Tensor> tensors_of(const Model& m) { return m.tensors(); }

// Asserts that loading fails with ErrorKind::model (or io) and a message holding every part.
void expect_load_error(const std::filesystem::path& path, std::vector<std::string> parts,
                       ErrorKind kind = ErrorKind::model) {
  try {
    Model::load(path);
    FAIL() << "loading " << path << " succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    for (const auto& part : parts) EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

const Model& sample_model() {
  static const Model m = Model::random_classic(8, 12, 7);
  return m;
}

TEST(Model, DetectsVariantsAndWidthsFromGoldenFiles) {
  const auto dir = testing::golden_dir();
  const Model classic = Model::load(dir / "classic_50x38_guard" / "model.json");
  EXPECT_EQ(classic.variant(), Variant::classic);
  EXPECT_EQ(classic.shape().c1, 6);
  EXPECT_EQ(classic.shape().c2, 16);
  EXPECT_EQ(classic.shape().input_channels, 7);
  const Model tfact = Model::load(dir / "tfact_48x32" / "model.json");
  EXPECT_EQ(tfact.variant(), Variant::tfact);
  EXPECT_EQ(tfact.shape().film_hidden, 5);
  EXPECT_EQ(tfact.shape().input_channels, 6);
  const Model tfact2 = Model::load(dir / "tfact2_50x38_bf16" / "model.safetensors");
  EXPECT_EQ(tfact2.variant(), Variant::tfact2);
  EXPECT_EQ(tfact2.shape().refine_width, 12);
  EXPECT_EQ(Model::load(dir / "classic_37x21_f16" / "model.safetensors").shape().c2, 20);
}

TEST(Model, JsonBinRoundTripKeepsValuesAndMetadata) {
  TempDir dir;
  const auto path = write_json_bin(dir, tensors_of(sample_model()));
  const Model m = Model::load(path);
  EXPECT_EQ(m.tensors().size(), sample_model().tensors().size());
  for (const auto& [name, t] : sample_model().tensors()) EXPECT_EQ(m.tensor(name).values, t.values) << name;
  EXPECT_NE(m.metadata_json().find("test model"), std::string::npos);
  EXPECT_EQ(m.parameter_count(), sample_model().parameter_count());
}

TEST(Model, SafetensorsF32AndBf16) {
  TempDir dir;
  const Model f32 = Model::load(write_safetensors(dir, tensors_of(sample_model()), "F32"));
  EXPECT_EQ(f32.tensor("block0.lastconv.weight").values, sample_model().tensor("block0.lastconv.weight").values);
  const Model bf16 = Model::load(write_safetensors(dir, tensors_of(sample_model()), "BF16"));
  const float a = sample_model().tensor("block0.conv0.0.0.weight").values[3];
  EXPECT_NEAR(bf16.tensor("block0.conv0.0.0.weight").values[3], a, std::abs(a) * 1e-2f);
  EXPECT_NE(bf16.metadata_json().find("classic"), std::string::npos);
}

TEST(Model, MissingTensorIsNamed) {
  TempDir dir;
  auto tensors = tensors_of(sample_model());
  tensors.erase("block0.convblock.3.1.weight");
  expect_load_error(write_json_bin(dir, tensors), {"m.json", "block0.convblock.3.1.weight", "missing"});
}

TEST(Model, InconsistentShapeIsNamed) {
  TempDir dir;
  auto tensors = tensors_of(sample_model());
  tensors["block0.convblock.5.0.bias"] = Tensor{{13}, std::vector<float>(13, 0.1f)};
  expect_load_error(write_json_bin(dir, tensors), {"block0.convblock.5.0.bias", "[13]", "[12]"});
}

TEST(Model, WrongInputChannelsForVariant) {
  TempDir dir;
  auto tensors = tensors_of(sample_model());
  auto& w = tensors["block0.conv0.0.0.weight"];
  w.shape = {8, 6, 3, 3};
  w.values.resize(8 * 6 * 9);
  expect_load_error(write_json_bin(dir, tensors), {"block0.conv0.0.0.weight", "needs 7"});
}

TEST(Model, OffsetOutsideBinIsNamed) {
  TempDir dir;
  const auto path = write_json_bin(dir, tensors_of(sample_model()), [](nlohmann::json& m) {
    m["block0.lastconv.bias"]["offset"] = 1 << 22;
  });
  expect_load_error(path, {"m.bin", "block0.lastconv.bias", "outside"});
}

TEST(Model, NonFiniteValueIsNamed) {
  TempDir dir;
  auto tensors = tensors_of(sample_model());
  tensors["block0.convblock.0.0.weight"].values[5] = std::nanf("");
  expect_load_error(write_json_bin(dir, tensors), {"block0.convblock.0.0.weight", "non-finite"});
}

TEST(Model, UnknownTensorIsNamed) {
  TempDir dir;
  auto tensors = tensors_of(sample_model());
  tensors["block0.decoder.weight"] = Tensor{{2}, {1.0f, 2.0f}};
  expect_load_error(write_json_bin(dir, tensors), {"block0.decoder.weight", "unknown"});
}

TEST(Model, IncompleteRefinementBlockIsNamed) {
  TempDir dir;
  auto tensors = tensors_of(sample_model());
  tensors["block1.conv0.0.0.weight"] = Tensor{{4, 18, 3, 3}, std::vector<float>(4 * 18 * 9, 0.01f)};
  expect_load_error(write_json_bin(dir, tensors), {"block1.conv0.1.0.weight", "missing"});
}

TEST(Model, RefinementBlocksAndTheirScales) {
  const auto dir = testing::golden_dir() / "k3_tfact2_50x38";
  const Model m = Model::load(dir / "model.json");
  ASSERT_EQ(m.shape().blocks.size(), 2u);
  EXPECT_EQ(m.shape().blocks[0].scale, 4);  // from the metadata's block_scales [4, 4, 2]
  EXPECT_EQ(m.shape().blocks[1].scale, 2);
  EXPECT_EQ(m.shape().blocks[0].input_channels, 17);
  EXPECT_EQ(m.shape().blocks[1].c2, 8);
  EXPECT_EQ(m.shape().blocks[1].film_hidden, 6);
  // Safetensors stores metadata as strings: the scales arrive as JSON text.
  const Model f16 = Model::load(testing::golden_dir() / "k3_classic_37x21_guard" / "model.safetensors");
  EXPECT_EQ(f16.shape().blocks[1].scale, 1);
  EXPECT_EQ(f16.shape().blocks[0].input_channels, 18);
  for (const char* bad : {R"({"block_scales": [4, 3, 2]})", R"({"block_scales": [4, 2]})",
                          R"({"block_scales": [2, 2, 1]})", R"({"block_scales": "[4, 2, 1.5]"})",
                          R"({"block_scales": [4, 4294967298, 4294967297]})"}) {
    try {
      Model::from_tensors(m.tensors(), bad, "edited");
      FAIL() << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("block_scales"), std::string::npos) << e.what();
    }
  }
}

// Convex models: every refinement block has an upmask of 9 f^2 logits, f = 2 * its scale;
// block0 may have one of 9 x 2^2.
TEST(Model, ConvexUpmasksAndTheirShapes) {
  const Model bilinear = Model::load(testing::golden_dir() / "k3_tfact2_50x38" / "model.json");
  EXPECT_FALSE(bilinear.shape().blocks[0].convex);
  auto convex = tensors_of(bilinear);  // blocks at scales 4 and 2, of widths c2 12 and 8
  convex["block1.upmask.weight"] = {{12, 576, 4, 4}, std::vector<float>(12 * 576 * 16, 0.1f)};
  convex["block1.upmask.bias"] = {{576}, std::vector<float>(576, 0.2f)};
  convex["block2.upmask.weight"] = {{8, 144, 4, 4}, std::vector<float>(8 * 144 * 16, 0.1f)};
  convex["block2.upmask.bias"] = {{144}, std::vector<float>(144, 0.2f)};
  const Model m = Model::from_tensors(convex, bilinear.metadata_json(), "convex");
  EXPECT_TRUE(m.shape().blocks[0].convex);
  EXPECT_EQ(m.shape().blocks[0].upsample_factor(), 8);
  EXPECT_TRUE(m.shape().blocks[1].convex);
  EXPECT_EQ(m.shape().blocks[1].upsample_factor(), 4);
  const auto expect_error = [&](const std::map<std::string, Tensor>& tensors,
                                const std::vector<std::string>& parts) {
    try {
      Model::from_tensors(tensors, bilinear.metadata_json(), "edited");
      FAIL() << parts[0];
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::model);
      for (const auto& part : parts)
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  auto tensors = convex;
  tensors.erase("block2.upmask.weight");
  tensors.erase("block2.upmask.bias");
  expect_error(tensors, {"block2.upmask.weight", "missing", "every refinement block"});
  tensors = convex;
  tensors.erase("block1.upmask.bias");
  expect_error(tensors, {"block1.upmask.bias", "missing"});
  tensors = convex;
  tensors["block1.upmask.weight"] = {{12, 144, 4, 4}, std::vector<float>(12 * 144 * 16, 0.1f)};
  expect_error(tensors, {"block1.upmask.weight", "[12, 144, 4, 4]", "expected [12, 576, 4, 4]"});
  tensors = convex;
  tensors["block2.upmask.bias"] = convex["block1.upmask.bias"];
  expect_error(tensors, {"block2.upmask.bias", "[576]", "expected [144]"});
  // A convex block0 upsamples by 2 alone: 36 logits, whatever the refinement blocks do.
  EXPECT_FALSE(m.shape().convex_block0);
  tensors = convex;
  tensors["block0.upmask.weight"] = {{12, 36, 4, 4}, std::vector<float>(12 * 36 * 16, 0.1f)};
  tensors["block0.upmask.bias"] = {{36}, std::vector<float>(36, 0.2f)};
  EXPECT_TRUE(Model::from_tensors(tensors, bilinear.metadata_json(), "c0").shape().convex_block0);
  tensors["block0.upmask.bias"] = convex["block1.upmask.bias"];
  expect_error(tensors, {"block0.upmask.bias", "[576]", "expected [36]"});
  tensors.erase("block0.upmask.weight");
  expect_error(tensors, {"block0.upmask.weight", "missing"});
}

TEST(Model, RefineWithoutFilmIsRejected) {
  const Model tfact2 = Model::load(testing::golden_dir() / "tfact2_37x21" / "model.json");
  auto tensors = tensors_of(tfact2);
  for (const char* n : {"film.0.weight", "film.0.bias", "film.2.weight", "film.2.bias"}) tensors.erase(n);
  EXPECT_THROW(Model::from_tensors(tensors, "{}", "edited"), Error);
}

TEST(Model, UnknownDtypeIsNamed) {
  TempDir dir;
  auto path = write_safetensors(dir, tensors_of(sample_model()), "F32");
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto at = bytes.find("\"F32\"");
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, 5, "\"I64\"");
  std::ofstream(path, std::ios::binary) << bytes;
  expect_load_error(path, {"m.safetensors", "unsupported dtype 'I64'"});
}

TEST(Model, TruncatedFilesAreReported) {
  TempDir dir;
  const auto json = write_json_bin(dir, tensors_of(sample_model()));
  std::filesystem::resize_file(dir / "m.bin", std::filesystem::file_size(dir / "m.bin") - 40);
  expect_load_error(json, {"m.bin", "outside"});
  const auto st = write_safetensors(dir, tensors_of(sample_model()), "F32");
  std::filesystem::resize_file(st, std::filesystem::file_size(st) - 40);
  expect_load_error(st, {"m.safetensors", "truncated"});
}

TEST(Model, MalformedJsonAndMissingFiles) {
  TempDir dir;
  std::ofstream(dir / "bad.json") << "{\"block0.conv0.0.0.weight\": {\"shape\": [1, 2";
  std::ofstream(dir / "bad.bin") << "";
  expect_load_error(dir / "bad.json", {"bad.json", "malformed JSON"});
  expect_load_error(dir / "absent.json", {"absent.json", "not found"}, ErrorKind::io);
  std::ofstream(dir / "model.onnx") << "x";
  expect_load_error(dir / "model.onnx", {"unknown model format"});
  std::ofstream(dir / "lonely.json") << "{}";
  expect_load_error(dir / "lonely.json", {"lonely.bin", "cannot open"}, ErrorKind::io);
}

// The models in assets/models load and validate under their shipped names, with the tiers'
// shapes: fast = tfact2 with one light refinement block, quality = block0 plus two
// refinement blocks; "default" = fast.
TEST(ShippedModels, LoadUnderTheirNames) {
  const Model fast = Model::load(resolve_model("fast"));
  EXPECT_EQ(fast.shape().variant, Variant::tfact2);
  EXPECT_EQ(fast.shape().blocks.size(), 1u);
  EXPECT_EQ(resolve_model("default"), resolve_model("fast"));
  const Model quality = Model::load(resolve_model("quality"));
  EXPECT_EQ(quality.shape().blocks.size(), 2u);
  const Model slim = Model::load(resolve_model("slim"));
  EXPECT_LT(slim.parameter_count(), fast.parameter_count());
  try {
    resolve_model("no-such-model");
    ADD_FAILURE() << "an unknown name resolved";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::model);
    EXPECT_NE(std::string(e.what()).find("framecast-no-such-model.safetensors"), std::string::npos);
  }
}

}  // namespace
}  // namespace framecast
