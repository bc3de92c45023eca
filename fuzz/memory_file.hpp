// The fuzz input in a memory file (memfd), for targets whose code under test opens a path.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace fuzz {

// Replaces the contents of one memory file, made on the first call, with the input; returns its
// descriptor, at offset 0 (/proc/self/fd/N opens it by name).
inline int memory_file(const std::uint8_t* data, std::size_t size) {
  static const int memory = memfd_create("fuzz-input", 0);
  if (memory < 0 || ftruncate(memory, 0) != 0) std::abort();
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = pwrite(memory, data + done, size - done, off_t(done));
    if (n <= 0) std::abort();
    done += std::size_t(n);
  }
  if (lseek(memory, 0, SEEK_SET) != 0) std::abort();
  return memory;
}

}  // namespace fuzz
