#pragma once

#include <memory>

#include "framecast/backend.hpp"

namespace framecast::cpu {

enum class CpuPath {
  reference,  // plain loops with the seed's exact semantics: the oracle of every other path
  fast,       // oneDNN convolutions over all cores
};

std::unique_ptr<Backend> make_cpu_backend(CpuPath path);

}  // namespace framecast::cpu
