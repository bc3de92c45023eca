#include <dlfcn.h>

#include <vector>

#include "framecast/engine.hpp"
#include "framecast/error.hpp"

namespace framecast {
namespace {

std::filesystem::path executable_dir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path();
}

// The file this code was loaded from: libframecast.so for programs that link it, which may
// live anywhere; the executable itself when the library is linked in statically.
std::filesystem::path library_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&resolve_model), &info) == 0 || !info.dli_fname) return {};
  std::error_code ec;
  const auto file = std::filesystem::canonical(info.dli_fname, ec);
  return ec ? std::filesystem::path() : file.parent_path();
}

}  // namespace

std::filesystem::path resolve_model(const std::string& name_or_path) {
  // A shipped name has no extension and no directory part; anything else is a path.
  const std::filesystem::path arg(name_or_path);
  if (arg.has_extension() || arg.has_parent_path()) {
    if (!std::filesystem::exists(arg))
      throw Error(ErrorKind::io, name_or_path + ": model file not found");
    return arg;
  }
  // "default" names the 1-block fast model, the one that suits every backend.
  const std::string name = name_or_path == "default" ? "fast" : name_or_path;
  const std::string file = "framecast-" + name + ".safetensors";
  const auto exe = executable_dir();
  std::vector<std::filesystem::path> places = {
      exe / "models",                                        // beside an unpacked binary
      exe.parent_path() / "assets" / "models",               // a build tree inside the source tree
      exe.parent_path() / "share" / "framecast" / "models",  // an installed prefix
  };
  // The prefix libframecast.so is installed in, wherever that was moved (cmake --install
  // --prefix); then the prefix it was built for.
  if (const auto lib = library_dir(); !lib.empty() && lib != exe)
    places.push_back((lib / FRAMECAST_LIBRARY_TO_MODELS).lexically_normal());
  places.push_back(FRAMECAST_INSTALL_MODELS);
  places.push_back(FRAMECAST_SOURCE_MODELS);  // the source tree this binary came from
  std::string searched;
  for (const auto& dir : places) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(dir / file, ec)) return dir / file;
    searched += (searched.empty() ? "" : ", ") + dir.string();
  }
  throw Error(ErrorKind::model, "no model named '" + name_or_path + "' (" + file +
                                    ") in " + searched + "; pass --model FILE");
}

}  // namespace framecast
