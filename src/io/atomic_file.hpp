// Output files appear complete or not at all: writers fill a temporary file beside the
// destination, and commit() renames it into place. An AtomicFile destroyed without commit()
// (an error, Ctrl-C unwinding) removes its temporary, so nothing half-written is left.
#pragma once

#include <filesystem>

namespace framecast::io {

class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path destination);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Where to write: same folder and extension as the destination, a hidden unique name.
  const std::filesystem::path& temp_path() const noexcept { return temp_; }
  const std::filesystem::path& destination() const noexcept { return destination_; }
  // Moves the finished temporary onto the destination. Throws Error(io).
  void commit();

 private:
  std::filesystem::path destination_;
  std::filesystem::path temp_;
  bool committed_ = false;
};

}  // namespace framecast::io
