#pragma once
// The machine a run was measured on, as the history groups runs: its
// hardware as the fingerprint in meta.json records it (CPU model, logical
// CPUs, caches, memory to the GiB), not its software (kernel, compiler,
// flags), which compare's fingerprint check weighs separately. Two
// instances of one cloud machine type share a machine id.
#include <string>

#include <nlohmann/json.hpp>

namespace pdbench::resultsdb {

struct Machine {
  std::string id;    // 12 hex digits of the SHA-256 of the hardware facts
  std::string name;  // "Intel(R) Xeon(R) Processor, 2 CPUs, 24 GiB"
};

Machine machine_of(const nlohmann::json& fingerprint);

}  // namespace pdbench::resultsdb
