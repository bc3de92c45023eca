#pragma once

#include <functional>
#include <memory>

#include "framecast/backend.hpp"

namespace framecast::cpu {

enum class CpuPath {
  reference,  // plain loops with the seed's exact semantics: the oracle of every other path
  fast,       // oneDNN convolutions over all cores
};

// `cancelled` is asked before each network of its runtimes is set up
// (BackendRequest::cancelled).
std::unique_ptr<Backend> make_cpu_backend(CpuPath path, std::function<bool()> cancelled = {});

}  // namespace framecast::cpu
