#include "bench/resultsdb/machine.h"

#include <cmath>

#include "bench/runner/sha256.h"

namespace pdbench::resultsdb {

Machine machine_of(const nlohmann::json& fingerprint) {
  const nlohmann::json cpu = fingerprint.value("cpu", nlohmann::json::object());
  const std::string model = cpu.value("model", std::string("unknown CPU"));
  const auto cpus = cpu.value("logical_cpus", int64_t{0});
  // MemTotal moves by a few MiB between kernels; the installed GiB do not.
  const auto gib = static_cast<int64_t>(std::llround(fingerprint.value("memory_bytes", 0.0) / (1024.0 * 1024 * 1024)));
  const nlohmann::json hardware{{"cpu_model", model},
                                {"logical_cpus", cpus},
                                {"caches", fingerprint.value("caches", nlohmann::json::array())},
                                {"memory_gib", gib}};
  return {runner::sha256_hex(hardware.dump()).substr(0, 12),
          model + ", " + std::to_string(cpus) + " CPUs, " + std::to_string(gib) + " GiB"};
}

}  // namespace pdbench::resultsdb
