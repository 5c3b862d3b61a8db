#include "bench/runner/version.h"

#include "bench/runner/build_commit.h"
#include "engine/kernels/onednn_gemm.h"

namespace pdbench::runner {

const char* pdbench_version() { return PDBENCH_VERSION; }

std::string version_line() {
  return std::string("pdbench ") + pdbench_version() + " (commit " + build_git_commit() +
         (build_git_dirty() ? "-dirty" : "") + ", oneDNN " + onednn_version() + ")";
}

}  // namespace pdbench::runner
