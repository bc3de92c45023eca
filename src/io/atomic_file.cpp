#include "io/atomic_file.hpp"

#include <unistd.h>

#include <atomic>

#include "framecast/error.hpp"

namespace framecast::io {

AtomicFile::AtomicFile(std::filesystem::path destination) : destination_(std::move(destination)) {
  static std::atomic<int> counter{0};
  const auto dir = destination_.parent_path();
  std::error_code ec;
  if (!dir.empty() && !std::filesystem::is_directory(dir, ec))
    throw Error(ErrorKind::io, destination_.string() + ": the folder " + dir.string() +
                                   " does not exist");
  if (std::filesystem::is_directory(destination_, ec))
    throw Error(ErrorKind::io, destination_.string() + ": is a folder, not a file name");
  // Built by appending: GCC 12 warns falsely (-Wrestrict) on a chain of operator+ here.
  std::string name = ".";
  name += destination_.stem().string();
  name += ".partial-";
  name += std::to_string(getpid());
  name += '-';
  name += std::to_string(counter++);
  name += destination_.extension().string();
  temp_ = dir / name;
}

AtomicFile::~AtomicFile() {
  if (!committed_) {
    std::error_code ec;
    std::filesystem::remove(temp_, ec);
  }
}

void AtomicFile::commit() {
  std::error_code ec;
  std::filesystem::rename(temp_, destination_, ec);
  if (ec)
    throw Error(ErrorKind::io, destination_.string() + ": cannot move the finished file into place (" +
                                   ec.message() + ")");
  committed_ = true;
}

}  // namespace framecast::io
