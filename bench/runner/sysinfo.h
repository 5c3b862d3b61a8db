#pragma once
// This machine's fingerprint (CPU, caches, memory, compiler, commit) and its
// measured limits (read bandwidth, FP32/BF16/INT8 peaks), cached per machine
// in ~/.cache/pdbench/sysinfo.json (docs/RESULTS.md: where else) so runs can
// state fractions of them.
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engine/kernels/onednn_gemm.h"

namespace pdbench::runner {

struct Limits {
  double read_gb_s_1t = 0;   // one thread streaming a 1 GiB buffer
  double read_gb_s_all = 0;  // all cores
  double fp32_gflop_s_1t = 0;  // FMA loop
  double fp32_gflop_s_all = 0;
  // oneDNN GEMMs (gemm_peak.h); 0 in a cache written before they were measured.
  double bf16_gflop_s_1t = 0;
  double bf16_gflop_s_all = 0;
  double int8_gop_s_1t = 0;
  double int8_gop_s_all = 0;
  std::string method;  // how the peaks were measured (ISA used)
  // When and under what load: a cache from before these were kept has
  // measured_unix_s 0. Other processes' CPUs averaged over the measurement
  // (machine_load.h): above kBusyOtherCpus the limits read low.
  int64_t measured_unix_s = 0;
  double loadavg_1m = 0;
  double other_cpus = 0;

  // The limits that apply to a run on `threads` threads (0: all).
  double read_gb_s(size_t threads) const { return threads == 1 ? read_gb_s_1t : read_gb_s_all; }
  double fp32_gflop_s(size_t threads) const { return threads == 1 ? fp32_gflop_s_1t : fp32_gflop_s_all; }
  // The roof of work done in `precision`: itself when its peak was
  // measured, else FP32 (a cache from before the GEMM peaks).
  GemmPrecision roof_precision(GemmPrecision precision) const;
  double peak_gflop_s(size_t threads, GemmPrecision precision) const;  // that roof's peak
  bool has_gemm_peaks() const { return bf16_gflop_s_all > 0 && int8_gop_s_all > 0; }
};

// The name a roofline point of a whole phase (all its ops) goes by.
inline constexpr std::string_view kWholePhase = "whole phase";
// The compute roof an operator (op_profile.h's names, or kWholePhase) is
// held to: the weight matmuls run at the precision of the weights' GEMMs
// (onednn_gemm.h: f32 weights in FP32, f16/bf16 in BF16, q8_0/q4_0 in INT8),
// everything else in FP32, and a whole phase, dominated by the matmuls, at
// the weights' precision.
GemmPrecision op_compute_precision(std::string_view op, GemmPrecision weights);

// CPU model and flags, cores, caches, memory, THP, governor, compiler and
// flags, git commit and whether the tree was dirty, oneDNN version and ISA
// ("onednn": "2.6.3 avx512_core"), the ISA of pdbench's own kernels ("gemv_isa"),
// the GEMM for BF16 files, which formats' rows prefill pairs from L2 and
// how far ahead streamed rows are prefetched into L1 ("bf16_weights_gemm",
// "grouped_row_pairs", "streamed_l1_prefetch": measured choices).
// Fields that cannot be read are absent.
nlohmann::json system_facts();

// The cache key: CPU model and logical core count.
std::string machine_key(const nlohmann::json& facts);

Limits measure_limits();
// Limits cached for this machine, if measured before.
std::optional<Limits> cached_limits(const nlohmann::json& facts);
// Measures and stores the limits in the cache.
Limits refresh_limits(const nlohmann::json& facts);

// Cached limits are measured again after this long, or when they lack a
// field this version measures (the GEMM peaks, the time of measurement).
inline constexpr int64_t kLimitsMaxAgeSeconds = 7 * 24 * 3600;
int64_t unix_now();  // seconds since 1970, as measured_unix_s
bool limits_stale(const Limits& limits, int64_t now_unix_s);
// The cached limits when fresh, else measured now (seconds; a line on
// stderr says so) and cached: what `pdbench sysinfo` and `pdbench run` use.
Limits current_limits(const nlohmann::json& facts);
// When and under what load: "2026-12-02 13:40 UTC, load 0.40, other processes 0.10 CPUs".
std::string limits_provenance(const Limits& limits);

nlohmann::json to_json(const Limits& limits);
Limits limits_from_json(const nlohmann::json& json);  // missing fields read as 0
// The fingerprint every result carries: facts plus limits when known.
nlohmann::json fingerprint(const nlohmann::json& facts, const std::optional<Limits>& limits);

}  // namespace pdbench::runner
