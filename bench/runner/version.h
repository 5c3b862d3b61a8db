#pragma once
// What this binary is: pdbench's version, the commit it was built from and
// the oneDNN it runs, for `pdbench --version` and every meta.json.
#include <string>

namespace pdbench::runner {

const char* pdbench_version();  // the CMake project version, "0.1.0"

// "pdbench 0.1.0 (commit 8c35c93a1b2c, oneDNN 2.6.3)"; "-dirty" follows a
// commit whose tracked files differed from it at build time.
std::string version_line();

}  // namespace pdbench::runner
