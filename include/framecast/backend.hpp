// The backend interface. A Backend creates Runtimes; a Runtime owns every buffer for one
// (model, frame size) and computes intermediate frames for one pair at a time.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "framecast/frame.hpp"
#include "framecast/model.hpp"

namespace framecast {

// Storage of activations and weights; arithmetic accumulates in f32. automatic: f16 on GPUs
// that have it, bf16 on CPUs with bfloat16 instructions (AVX512-BF16, AMX), f32 elsewhere.
enum class Precision { automatic, f32, f16, bf16 };

struct RuntimeOptions {
  Precision precision = Precision::automatic;
  bool static_guard = false;  // keep locally identical regions (text, logos) untouched
  bool profile = false;       // collect per-stage times (see Runtime::last_profile)
  // Test-time ensemble: each mid averages 1, 2 or 4 runs of the model on the pair as given,
  // rotated by 180 degrees and in reverse order. Backends that run it themselves say so
  // (Backend::runs_ensembles); for the others the Engine wraps their runtimes.
  int ensemble = 1;
  // The large-motion pass: block0 also runs on the frames resampled by 1/8, where motion is
  // half as long, and each mid keeps the flow under which the two frames agree better once
  // warped (RIFE's --scale 0.5, chosen per mid without the truth). Pads to multiples of 32.
  bool large_motion = false;
};

struct StageTime {
  std::string stage;
  double ms = 0.0;
};

class Runtime {
 public:
  virtual ~Runtime() = default;
  int width() const noexcept { return width_; }
  int height() const noexcept { return height_; }

  // Uploads the pair and runs the work that does not depend on t (for tfact models, the
  // whole trunk). Frames must have this runtime's size and one depth.
  virtual void prepare_pair(const Frame& frame0, const Frame& frame1) = 0;
  // prepare_pair(F, next), F being the second frame of the pair prepared last (an error
  // when there is none): a video's consecutive pairs share a frame, which the runtime keeps
  // (on the GPU: no second upload). `next` must have the pair's size and depth.
  virtual void prepare_next(const Frame& next) = 0;
  // The frame at position t in [0,1] between the prepared pair (0 = frame0), at their depth.
  virtual Frame mid(float t) = 0;
  // Many t for the prepared pair; backends batch them into one submission.
  virtual std::vector<Frame> mids(std::span<const float> ts);
  // mids(ts) in two halves, so that a video's pairs overlap: start_mids begins them and
  // take_mids returns them. In between, the next pair may be prepared (prepare_pair or
  // prepare_next): a GPU runtime then copies that pair in while these mids compute, and these
  // mids out while that pair's t-free work runs. One start_mids at a time: take its mids
  // before the next. The default computes the mids in start_mids.
  virtual void start_mids(std::span<const float> ts);
  virtual std::vector<Frame> take_mids();
  // Per-stage times when created with RuntimeOptions::profile: the pair's stages (once per
  // pair, from prepare_pair), then the last mid's (and its readback's).
  virtual std::vector<StageTime> last_profile() const { return {}; }
  // Device milliseconds of the work since the last prepare_pair that has completed (GPU
  // timestamp queries); after take_mids, of the pair those mids belong to, its mids
  // included. On a GPU whose copies run on a queue beside the kernels, the uploads and
  // readbacks are not in it (the profile still times them). Negative where the backend does
  // not measure it, as on the CPU.
  virtual double last_device_ms() const { return -1.0; }
  // Notes the user should hear once (an ignored tuning cache, ...); the library never prints.
  virtual std::vector<std::string> warnings() const { return {}; }
  // A short description for logs: backend, device, precision, kernel choices.
  virtual std::string describe() const = 0;

 protected:
  Runtime(int width, int height) : width_(width), height_(height) {}
  // Throws Error(invalid_argument) unless both frames match this runtime and each other.
  void check_pair(const Frame& frame0, const Frame& frame1) const;
  // For prepare_next: check_pair(next, next), and Error(internal) unless a pair of next's
  // depth is prepared (`prepared`, `pair_depth`: the runtime's own record of it).
  void check_next(const Frame& next, bool prepared, SampleDepth pair_depth) const;

 private:
  int width_;
  int height_;
  std::optional<std::vector<Frame>> started_;  // the default start_mids' mids
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Whether the work runs on a hardware GPU (not the CPU, not a software rasterizer): what
  // choosing the quality tier by default depends on.
  virtual bool hardware_gpu() const { return false; }
  // Whether create_runtime honours RuntimeOptions::ensemble (else it ignores it).
  virtual bool runs_ensembles() const { return false; }
  // The runtime keeps a reference to `model`, which must outlive it (Engine owns both).
  // Throws Error(model) when the backend cannot run this model, Error(device) on device
  // failures. Any frame size >= 1x1: sizes are padded internally to the network's multiple.
  virtual std::unique_ptr<Runtime> create_runtime(const Model& model, int width, int height,
                                                  const RuntimeOptions& options) = 0;
};

struct BackendRequest {
  // A constructor, so that {name, device} stays complete without `cancelled`.
  BackendRequest(std::string name_ = "auto", int device_ = -1,
                 std::function<bool()> cancelled_ = {})
      : name(std::move(name_)), device(device_), cancelled(std::move(cancelled_)) {}

  std::string name;  // auto | cpu | cpu-reference | vulkan
  int device;        // physical device index for GPU backends; -1 picks the best
  // Asked (from the calling thread) between the steps of creating a runtime: each GPU kernel
  // build, each CPU network's setup, which take seconds in all on some drivers; and by CPU
  // runtimes between the stages of a pair, seconds each on small CPUs. When it says true, the
  // call throws Error(cancelled), and a pair must be prepared again. Empty: never.
  std::function<bool()> cancelled;
};

struct BackendChoice {
  std::unique_ptr<Backend> backend;
  std::string warning;  // non-empty when `auto` fell back (the caller shows it once)
};

// Creates the requested backend. `auto` prefers the GPU and falls back to the CPU with a
// warning; an explicit backend that cannot start throws Error(device).
BackendChoice make_backend(const BackendRequest& request);
std::vector<std::string> backend_names();

// The devices `backend` runs on when asked for all of them (--device all): for "vulkan" every
// usable Vulkan device, for "auto" every usable hardware one; a backend without several
// devices (the CPU, or `auto` without a hardware GPU) gives {-1}, its own pick. Empty when
// "vulkan" has no usable device.
std::vector<int> all_devices(const std::string& backend);

}  // namespace framecast
