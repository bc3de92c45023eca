// A loaded, validated model: the tensors of the seed's 1-block IFNet student and what they
// say about the graph (variant and widths). Nothing here knows about devices.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace framecast {

enum class Variant {
  classic,  // 7 input channels: both frames and t; the whole graph runs per t
  tfact,    // 6 input channels; FiLM(t) before convblock 6, the trunk runs once per pair
  tfact2,   // tfact plus the quarter-resolution refine head
};

const char* variant_name(Variant v);

struct Tensor {
  std::vector<std::int64_t> shape;
  std::vector<float> values;
  std::size_t numel() const noexcept { return values.size(); }
};

// A refinement block k >= 1 (the quality tier, IFNet-style): it runs at input scale `scale`
// (its input is resampled by 1/scale), sees both frames, both frames warped by the current
// flow, t (classic) or FiLM(t) (t-factored), the mask and the flow, and adds a residual to the
// flow and the mask. The residual comes out at 1 / (2 * scale) and is upsampled to the grid
// bilinearly, or in convex models by RAFT's convex upsampling.
struct RefinementBlock {
  int index = 1;           // k in block{k}.*
  int scale = 2;           // 4, 2 or 1: block0 runs at 4
  int input_channels = 0;  // 18 classic (with t), 17 t-factored
  int c1 = 0;
  int c2 = 0;
  int film_hidden = 0;     // t-factored models: block{k}.film.*
  // Convex models: block{k}.upmask.*, a second deconv of the trunk giving 9 f^2 softmax
  // logits per coarse pixel for convex upsampling by f = upsample_factor().
  bool convex = false;
  int upsample_factor() const noexcept { return 2 * scale; }
};

// The widths of the graph, all read from the tensor shapes.
struct ModelShape {
  Variant variant = Variant::classic;
  int input_channels = 7;  // 7 classic, 6 tfact
  int c1 = 0;              // conv0a output width
  int c2 = 0;              // trunk width
  int film_hidden = 0;     // FiLM MLP hidden width (tfact, tfact2)
  int refine_width = 0;    // refine head width (tfact2)
  // block0.upmask.*: block0's output is upsampled by block0_convex_factor by convex
  // upsampling (9 f^2 = 36 logits per coarse pixel) and bilinearly from there; one factor
  // serves the large-motion pass's two scales.
  bool convex_block0 = false;
  static constexpr int block0_convex_factor = 2;
  std::vector<RefinementBlock> blocks;  // after block0; empty for the seed's 1-block student
};

class Model {
 public:
  // Reads NAME.json + NAME.bin (the .json path is given) or NAME.safetensors, and validates
  // every tensor before any compute. Throws Error(model or io) naming the file and tensor.
  // `cancelled`, polled between chunks of the file and before parsing and validation, gives up
  // with Error(cancelled) when it returns true.
  static Model load(const std::filesystem::path& path, const std::function<bool()>& cancelled = {});
  // Validates tensors from memory; `source` names them in error messages.
  static Model from_tensors(std::map<std::string, Tensor> tensors, std::string metadata_json,
                            std::string source);
  // A classic model of the given widths with deterministic random weights that produce
  // plausible flows: for benchmarks and tests, never for interpolation.
  static Model random_classic(int c1, int c2, std::uint32_t seed = 1);

  const ModelShape& shape() const noexcept { return shape_; }
  Variant variant() const noexcept { return shape_.variant; }
  const Tensor& tensor(const std::string& name) const;
  bool has(const std::string& name) const { return tensors_.count(name) != 0; }
  const std::map<std::string, Tensor>& tensors() const noexcept { return tensors_; }
  // The free-form "__metadata__" object as JSON text ("{}" when absent); the graph ignores it.
  const std::string& metadata_json() const noexcept { return metadata_json_; }
  // Where the model came from (a path, or a description for generated models).
  const std::string& source() const noexcept { return source_; }
  std::int64_t parameter_count() const;

 private:
  std::map<std::string, Tensor> tensors_;
  std::string metadata_json_ = "{}";
  std::string source_;
  ModelShape shape_;
};

}  // namespace framecast
