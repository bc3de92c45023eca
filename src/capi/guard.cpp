#include "capi/guard.hpp"

#include <cstdio>
#include <string>

namespace framecast::capi {
namespace {

thread_local char last_error[1024] = "";

}  // namespace

framecast_status fail(framecast_status status, const char* function, const char* message) {
  std::snprintf(last_error, sizeof last_error, "%s: %s", function, message);
  for (char* c = last_error; *c; ++c)
    if (*c == '\n' || *c == '\r') *c = ' ';
  return status;
}

framecast_status status_of(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::invalid_argument: return FRAMECAST_ERROR_INVALID_ARGUMENT;
    case ErrorKind::io: return FRAMECAST_ERROR_IO;
    case ErrorKind::model: return FRAMECAST_ERROR_MODEL;
    case ErrorKind::unsupported: return FRAMECAST_ERROR_UNSUPPORTED;
    case ErrorKind::device: return FRAMECAST_ERROR_DEVICE;
    case ErrorKind::out_of_memory: return FRAMECAST_ERROR_OUT_OF_MEMORY;
    case ErrorKind::cancelled:  // nothing behind the C API can be cancelled
    case ErrorKind::internal: break;
  }
  return FRAMECAST_ERROR_INTERNAL;
}

void require(const void* pointer, const char* what) {
  if (!pointer) throw Error(ErrorKind::invalid_argument, std::string(what) + " is NULL");
}

}  // namespace framecast::capi

extern "C" const char* framecast_last_error(void) { return framecast::capi::last_error; }
