// Readers of the two model file formats; both produce named f32 tensors for Model.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "engine/cancelled.hpp"
#include "framecast/model.hpp"

namespace framecast::model_files {

struct RawModel {
  std::map<std::string, Tensor> tensors;
  std::string metadata_json = "{}";
};

// NAME.json (tensor name -> {"shape", "offset" in f32 elements}) beside NAME.bin (LE f32).
RawModel read_json_bin(const std::filesystem::path& json_path, const Cancelled& cancelled = {});
// The safetensors format with F32, F16 or BF16 tensors.
RawModel read_safetensors(const std::filesystem::path& path, const Cancelled& cancelled = {});

// The same from bytes in memory (the readers above, and the fuzz targets); the paths only
// name the files in error messages.
RawModel parse_json_bin(std::string_view manifest, std::string_view bin,
                        const std::filesystem::path& json_path, const std::filesystem::path& bin_path);
RawModel parse_safetensors(std::string_view bytes, const std::filesystem::path& path);

}  // namespace framecast::model_files
