#pragma once
// This machine's fingerprint (CPU, caches, memory, compiler, commit) and its
// measured limits (read bandwidth, FP32 peak), cached per machine in
// ~/.cache/pdbench/sysinfo.json so runs can state fractions of them.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace pdbench::runner {

struct Limits {
  double read_gb_s_1t = 0;   // one thread streaming a 1 GiB buffer
  double read_gb_s_all = 0;  // all cores
  double fp32_gflop_s_1t = 0;
  double fp32_gflop_s_all = 0;
  std::string method;  // how the peaks were measured (ISA used)

  // The limits that apply to a run on `threads` threads (0: all).
  double read_gb_s(size_t threads) const { return threads == 1 ? read_gb_s_1t : read_gb_s_all; }
  double fp32_gflop_s(size_t threads) const { return threads == 1 ? fp32_gflop_s_1t : fp32_gflop_s_all; }
};

// CPU model and flags, cores, caches, memory, THP, governor, compiler and
// flags, git commit, oneDNN version and ISA ("onednn": "2.6.3 avx512_core"),
// the GEMV kernels' ISA ("gemv_isa"). Fields that cannot be read are absent.
nlohmann::json system_facts();

// The cache key: CPU model and logical core count.
std::string machine_key(const nlohmann::json& facts);

Limits measure_limits();
// Limits cached for this machine, if measured before.
std::optional<Limits> cached_limits(const nlohmann::json& facts);
// Measures and stores the limits in the cache.
Limits refresh_limits(const nlohmann::json& facts);

nlohmann::json to_json(const Limits& limits);
// The fingerprint every result carries: facts plus limits when known.
nlohmann::json fingerprint(const nlohmann::json& facts, const std::optional<Limits>& limits);

}  // namespace pdbench::runner
