// The one exception type of the library: the library never prints and never exits; callers
// (the CLI, a player) turn an Error into a message and an exit code.
#pragma once

#include <stdexcept>
#include <string>

namespace framecast {

enum class ErrorKind {
  invalid_argument,  // a caller's value is out of range (t outside [0,1], sizes differ, ...)
  io,                // a file is missing, unreadable, unwritable, truncated, or the disk is full
  model,             // a model file is malformed or inconsistent
  unsupported,       // a format, codec or feature that Framecast does not handle
  device,            // no GPU, device lost, a shader that fails to build
  out_of_memory,     // host or device memory exhausted
  cancelled,         // the user interrupted the job
  internal,          // a broken invariant: a bug in Framecast
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

}  // namespace framecast
