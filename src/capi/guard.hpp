// The C API's boundary: every exported function runs its body through `guarded`, which turns
// any C++ exception into a status and the thread's one-line last error.
#pragma once

#include <cstring>
#include <exception>
#include <new>
#include <type_traits>

#include "framecast/error.hpp"
#include "framecast/framecast.h"

namespace framecast::capi {

// Records `message` (on one line, truncated to a fixed buffer: recording never allocates, so
// it works when memory is exhausted) as this thread's last error and returns `status`.
framecast_status fail(framecast_status status, const char* function, const char* message);
framecast_status status_of(ErrorKind kind);

// Runs body(); an exception becomes `function`'s error status.
template <class Body>
framecast_status guarded(const char* function, Body&& body) noexcept {
  try {
    body();
    return FRAMECAST_OK;
  } catch (const Error& e) {
    return fail(status_of(e.kind()), function, e.what());
  } catch (const std::bad_alloc&) {
    return fail(FRAMECAST_ERROR_OUT_OF_MEMORY, function, "out of memory");
  } catch (const std::exception& e) {
    return fail(FRAMECAST_ERROR_INTERNAL, function, e.what());
  } catch (...) {
    return fail(FRAMECAST_ERROR_INTERNAL, function, "an unknown exception");
  }
}

// A C enum as its number. C callers may store any number in it, which C++ must not read as
// the enum (its range is only the named values); the bytes are read instead.
template <class Enum>
std::underlying_type_t<Enum> enum_number(const Enum& value) {
  std::underlying_type_t<Enum> number;
  std::memcpy(&number, &value, sizeof number);
  return number;
}

// Throws Error(invalid_argument) naming `what` when `pointer` is NULL.
void require(const void* pointer, const char* what);

}  // namespace framecast::capi
