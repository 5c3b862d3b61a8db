#include "bench/runner/sysinfo.h"

#include <immintrin.h>
#include <omp.h>
#include <sys/utsname.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include "bench/runner/build_commit.h"
#include "bench/runner/csv_table.h"
#include "bench/runner/gemm_peak.h"
#include "bench/runner/machine_load.h"
#include "bench/runner/models.h"
#include "engine/kernels/float_gemm_choice.h"
#include "engine/kernels/gemv.h"
#include "engine/kernels/onednn_gemm.h"
#include "engine/kernels/row_pairing.h"
#include "engine/kernels/stream_prefetch.h"
#include "engine/kernels/weight_format.h"
#include "engine/profile/op_profile.h"
#include "engine/util/aligned_vector.h"

namespace pdbench::runner {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

nlohmann::json cpu_facts() {
  std::ifstream in("/proc/cpuinfo");
  nlohmann::json cpu;
  std::set<std::pair<std::string, std::string>> cores;  // (physical id, core id)
  std::set<std::string> sockets;
  std::string physical = "0";
  size_t logical = 0;
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon));
    const std::string value = trim(line.substr(colon + 1));
    if (key == "processor") ++logical;
    if (key == "model name" && !cpu.contains("model")) cpu["model"] = value;
    if (key == "flags" && !cpu.contains("flags")) cpu["flags"] = value;
    if (key == "physical id") {
      physical = value;
      sockets.insert(value);
    }
    if (key == "core id") cores.insert({physical, value});
  }
  cpu["logical_cpus"] = logical;
  if (!cores.empty()) cpu["physical_cores"] = cores.size();
  if (!sockets.empty()) cpu["sockets"] = sockets.size();
  return cpu;
}

nlohmann::json cache_facts() {
  nlohmann::json caches = nlohmann::json::array();
  const fs::path base = "/sys/devices/system/cpu/cpu0/cache";
  std::error_code ec;
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(base, ec))
    if (entry.path().filename().string().starts_with("index")) dirs.push_back(entry.path());
  std::sort(dirs.begin(), dirs.end());
  for (const auto& d : dirs)
    caches.push_back({{"level", read_first_line(d / "level")},
                      {"type", read_first_line(d / "type")},
                      {"size", read_first_line(d / "size")},
                      {"shared_cpu_list", read_first_line(d / "shared_cpu_list")}});
  return caches;
}

// Best-of-passes read bandwidth over a 1 GiB buffer, in GB/s, read by the
// GEMV kernels' own read loop (gemv's read_sum: their widest loads and
// accumulators), so decode's GB/s is compared with a read as good as its own.
double read_bandwidth(const float* data, size_t n, int threads) {
  double best = 0;
  volatile float sink = 0;
  for (int pass = 0; pass < 3; ++pass) {
    const auto t0 = Clock::now();
    float total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total)
    {
      const RowRange mine = gemv_thread_rows(static_cast<int64_t>(n), omp_get_thread_num(), omp_get_num_threads());
      total += read_sum(data + mine.begin, static_cast<size_t>(mine.end - mine.begin));
    }
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    sink = sink + total;
    best = std::max(best, static_cast<double>(n * sizeof(float)) / s / 1e9);
  }
  return best;
}

// FMA throughput loops: many independent accumulators hide the FMA latency.
// Each returns the FLOPs done; the ISA is chosen at run time. The inner loops
// must be unrolled: rolled, GCC -O2 keeps the accumulators in memory and
// the loop measures store-to-load forwarding (a third of the FMA rate).
__attribute__((target("avx512f"))) double fma_avx512(size_t iters, float* out) {
  // Loads and stores rather than set1/reduce: GCC 12's versions of those
  // trip -Wuninitialized inside its own header.
  alignas(64) float lanes[16];
  std::fill(std::begin(lanes), std::end(lanes), 0.999999f);
  const __m512 a = _mm512_load_ps(lanes);
  std::fill(std::begin(lanes), std::end(lanes), 1e-7f);
  const __m512 b = _mm512_load_ps(lanes);
  __m512 acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = b;
  for (size_t it = 0; it < iters; ++it)
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  __m512 sum = acc[0];
  for (int i = 1; i < 16; ++i) sum = _mm512_add_ps(sum, acc[i]);
  _mm512_store_ps(lanes, sum);
  *out = lanes[0] + lanes[15];
  return static_cast<double>(iters) * 16 * 16 * 2;
}

__attribute__((target("avx2,fma"))) double fma_avx2(size_t iters, float* out) {
  __m256 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (size_t it = 0; it < iters; ++it)
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  __m256 sum = acc[0];
  for (int i = 1; i < 12; ++i) sum = _mm256_add_ps(sum, acc[i]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  *out = lanes[0] + lanes[7];
  return static_cast<double>(iters) * 12 * 8 * 2;
}

double fma_sse(size_t iters, float* out) {
  __m128 acc[8];
  for (int i = 0; i < 8; ++i) acc[i] = _mm_set1_ps(static_cast<float>(i));
  const __m128 a = _mm_set1_ps(0.999999f), b = _mm_set1_ps(1e-7f);
  for (size_t it = 0; it < iters; ++it)
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) acc[i] = _mm_add_ps(_mm_mul_ps(acc[i], a), b);
  __m128 sum = acc[0];
  for (int i = 1; i < 8; ++i) sum = _mm_add_ps(sum, acc[i]);
  *out = _mm_cvtss_f32(sum);
  return static_cast<double>(iters) * 8 * 4 * 2;
}

struct PeakKernel {
  double (*run)(size_t, float*);
  const char* name;
};

PeakKernel peak_kernel() {
  if (__builtin_cpu_supports("avx512f")) return {fma_avx512, "avx512f fma, 16 accumulators"};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return {fma_avx2, "avx2 fma, 12 accumulators"};
  return {fma_sse, "sse mul+add, 8 accumulators"};
}

// Best-of-passes FP32 GFLOP/s on `threads` threads.
double fp32_peak(const PeakKernel& kernel, int threads) {
  constexpr size_t kIters = 20'000'000;
  double best = 0;
  for (int pass = 0; pass < 3; ++pass) {
    double flops = 0;
    std::vector<float> out(static_cast<size_t>(threads));
    const auto t0 = Clock::now();
#pragma omp parallel num_threads(threads) reduction(+ : flops)
    flops += kernel.run(kIters, &out[static_cast<size_t>(omp_get_thread_num())]);
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    best = std::max(best, flops / s / 1e9);
  }
  return best;
}

// PDBENCH_SYSINFO_CACHE, else sysinfo.json in pdbench's cache folder
// (models.h); none without one.
fs::path cache_path() {
  const char* set = std::getenv("PDBENCH_SYSINFO_CACHE");
  if (set && *set) return set;
  const std::string dir = pdbench_cache_dir();
  return dir.empty() ? fs::path() : fs::path(dir) / "sysinfo.json";
}

nlohmann::json read_cache() {
  const fs::path path = cache_path();
  std::ifstream in(path);
  if (path.empty() || !in) return nlohmann::json::object();
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  return j.is_object() ? j : nlohmann::json::object();
}

// "pairs: q8_0 q4_0 ...; one: q5_K (measured)": how gemm_rows reads each
// format's rows from L2 here (row_pairing.h), or "none" on an ISA without
// paired kernels.
std::string grouped_row_pairs() {
  std::string pairs, one, source;
  for (const WeightFormat& format : weight_formats()) {
    if (!can_pair_rows(format.type)) continue;
    const RowPairing choice = row_pairing(selected_isa(), format.type);
    (choice.pairs ? pairs : one) += " " + std::string(traits(format.type).name);
    source = choice.source;
  }
  if (source.empty()) return "none";
  return "pairs:" + (pairs.empty() ? " none" : pairs) + "; one:" + (one.empty() ? " none" : one) + " (" + source + ")";
}

}  // namespace

nlohmann::json system_facts() {
  nlohmann::json f;
  f["cpu"] = cpu_facts();
  f["caches"] = cache_facts();
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);)
    if (line.starts_with("MemTotal:")) {
      std::istringstream fields(line.substr(9));
      size_t kib = 0;
      fields >> kib;
      f["memory_bytes"] = kib * 1024;
    }
  // The bracketed word is the active setting: "always [madvise] never".
  const std::string thp = read_first_line("/sys/kernel/mm/transparent_hugepage/enabled");
  const auto open = thp.find('['), close = thp.find(']');
  if (open != std::string::npos && close > open) f["transparent_hugepages"] = thp.substr(open + 1, close - open - 1);
  const std::string governor = read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  if (!governor.empty()) f["governor"] = governor;
  utsname u{};
  if (uname(&u) == 0) f["kernel"] = std::string(u.sysname) + " " + u.release;
  f["compiler"] = PDBENCH_COMPILER;
  f["cxx_flags"] = PDBENCH_CXX_FLAGS;
  f["build_type"] = PDBENCH_BUILD_TYPE;
  f["git_commit"] = build_git_commit();
  f["git_dirty"] = build_git_dirty();
  f["openmp_max_threads"] = omp_get_max_threads();
  // The kernels this build runs here: oneDNN (prefill GEMMs) and pdbench's
  // own (decode GEMV, activations, attention), whose ISA PDBENCH_ISA can
  // lower. The key keeps its first name so older results still compare.
  f["onednn"] = onednn_version() + " " + onednn_cpu_isa();
  f["gemv_isa"] = std::string(isa_name(selected_isa()));
  const FloatGemmChoice bf16_files = float_gemm_choice();
  f["bf16_weights_gemm"] = std::string(gemm_precision_name(bf16_files.precision)) + " (" + bf16_files.source + ")";
  f["grouped_row_pairs"] = grouped_row_pairs();
  const StreamPrefetch l1 = stream_prefetch(selected_isa());
  char probe[64] = "";
  if (l1.near_ms > 0) std::snprintf(probe, sizeof probe, ": near %.2f ms, far %.2f ms", l1.near_ms, l1.far_ms);
  f["streamed_l1_prefetch"] = std::string(l1.far_l1 ? "far" : "near") + " (" + l1.source + probe + ")";
  return f;
}

std::string machine_key(const nlohmann::json& facts) {
  const auto& cpu = facts.at("cpu");
  return cpu.value("model", std::string("unknown cpu")) + " x" + std::to_string(cpu.value("logical_cpus", size_t{0}));
}

Limits measure_limits() {
  Limits l;
  const CpuReading before = read_cpu();
  const int all = omp_get_num_procs();
  constexpr size_t kBytes = size_t{1} << 30;
  const size_t n = kBytes / sizeof(float);
  // On huge pages, as the weights decode streams are (aligned_vector.h):
  // through 4 KiB pages the page walks, not the memory, set the rate.
  const auto release = [n](float* p) { AlignedAllocator<float>().deallocate(p, n); };
  const std::unique_ptr<float[], decltype(release)> buf(AlignedAllocator<float>().allocate(n), release);
  // First touch from the threads that read it later (NUMA placement).
#pragma omp parallel for num_threads(all) schedule(static)
  for (size_t i = 0; i < n; ++i) buf[i] = 1.0f;
  l.read_gb_s_1t = read_bandwidth(buf.get(), n, 1);
  l.read_gb_s_all = read_bandwidth(buf.get(), n, all);
  const PeakKernel kernel = peak_kernel();
  l.fp32_gflop_s_1t = fp32_peak(kernel, 1);
  l.fp32_gflop_s_all = fp32_peak(kernel, all);
  l.bf16_gflop_s_1t = onednn_gemm_peak(GemmPrecision::BF16, 1);
  l.bf16_gflop_s_all = onednn_gemm_peak(GemmPrecision::BF16, all);
  l.int8_gop_s_1t = onednn_gemm_peak(GemmPrecision::Int8, 1);
  l.int8_gop_s_all = onednn_gemm_peak(GemmPrecision::Int8, all);
  const std::string gemm = std::to_string(kPeakGemmSize);
  l.method = std::string("read: gemv read_sum over 1 GiB, best of 3; fp32: ") + kernel.name +
             ", best of 3; bf16, int8: oneDNN " + onednn_version() + " " + onednn_cpu_isa() + " matmul, M=N=K=" +
             gemm + ", best of 3";
  const CpuReading after = read_cpu();
  l.measured_unix_s = unix_now();
  l.loadavg_1m = after.loadavg_1m;
  l.other_cpus = other_cpus(before, after);
  return l;
}

GemmPrecision Limits::roof_precision(GemmPrecision precision) const {
  const bool measured = precision == GemmPrecision::BF16 ? bf16_gflop_s_all > 0 : int8_gop_s_all > 0;
  return precision == GemmPrecision::F32 || !measured ? GemmPrecision::F32 : precision;
}

double Limits::peak_gflop_s(size_t threads, GemmPrecision precision) const {
  const bool one = threads == 1;
  switch (roof_precision(precision)) {
    case GemmPrecision::BF16: return one ? bf16_gflop_s_1t : bf16_gflop_s_all;
    case GemmPrecision::Int8: return one ? int8_gop_s_1t : int8_gop_s_all;
    case GemmPrecision::F32: break;
  }
  return fp32_gflop_s(threads);
}

GemmPrecision op_compute_precision(std::string_view op, GemmPrecision weights) {
  if (op == kWholePhase) return weights;
  const std::optional<Op> known = op_from_name(op);
  return known && is_weight_matmul(*known) ? weights : GemmPrecision::F32;
}

nlohmann::json to_json(const Limits& l) {
  return {{"read_gb_s_1t", l.read_gb_s_1t},         {"read_gb_s_all", l.read_gb_s_all},
          {"fp32_gflop_s_1t", l.fp32_gflop_s_1t}, {"fp32_gflop_s_all", l.fp32_gflop_s_all},
          {"bf16_gflop_s_1t", l.bf16_gflop_s_1t}, {"bf16_gflop_s_all", l.bf16_gflop_s_all},
          {"int8_gop_s_1t", l.int8_gop_s_1t},     {"int8_gop_s_all", l.int8_gop_s_all},
          {"method", l.method},
          {"measured_unix_s", l.measured_unix_s},
          {"loadavg_1m", l.loadavg_1m},
          {"other_cpus", l.other_cpus}};
}

Limits limits_from_json(const nlohmann::json& j) {
  Limits l;
  l.read_gb_s_1t = j.value("read_gb_s_1t", 0.0);
  l.read_gb_s_all = j.value("read_gb_s_all", 0.0);
  l.fp32_gflop_s_1t = j.value("fp32_gflop_s_1t", 0.0);
  l.fp32_gflop_s_all = j.value("fp32_gflop_s_all", 0.0);
  l.bf16_gflop_s_1t = j.value("bf16_gflop_s_1t", 0.0);
  l.bf16_gflop_s_all = j.value("bf16_gflop_s_all", 0.0);
  l.int8_gop_s_1t = j.value("int8_gop_s_1t", 0.0);
  l.int8_gop_s_all = j.value("int8_gop_s_all", 0.0);
  l.method = j.value("method", std::string());
  l.measured_unix_s = j.value("measured_unix_s", int64_t{0});
  l.loadavg_1m = j.value("loadavg_1m", 0.0);
  l.other_cpus = j.value("other_cpus", 0.0);
  return l;
}

std::optional<Limits> cached_limits(const nlohmann::json& facts) {
  const nlohmann::json cache = read_cache();
  const auto it = cache.find(machine_key(facts));
  if (it == cache.end() || !it->is_object()) return std::nullopt;
  return limits_from_json(*it);
}

Limits refresh_limits(const nlohmann::json& facts) {
  const Limits l = measure_limits();
  const fs::path path = cache_path();
  if (!path.empty()) {
    nlohmann::json cache = read_cache();
    cache[machine_key(facts)] = to_json(l);
    fs::create_directories(path.parent_path());
    write_file_atomic(path.string(), cache.dump(2) + "\n");
  }
  return l;
}

int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

bool limits_stale(const Limits& limits, int64_t now_unix_s) {
  return !limits.has_gemm_peaks() || limits.measured_unix_s <= 0 ||
         now_unix_s - limits.measured_unix_s > kLimitsMaxAgeSeconds;
}

Limits current_limits(const nlohmann::json& facts) {
  const std::optional<Limits> cached = cached_limits(facts);
  if (cached && !limits_stale(*cached, unix_now())) return *cached;
  std::fprintf(stderr, "measuring this machine's read bandwidth and FP32, BF16 and INT8 peaks (%s; a few seconds)...\n",
               cached ? "the cached ones are over a week old or incomplete" : "none cached");
  return refresh_limits(facts);
}

std::string limits_provenance(const Limits& l) {
  if (l.measured_unix_s <= 0) return "at an unrecorded time and load";
  const auto when = static_cast<std::time_t>(l.measured_unix_s);
  std::tm utc{};
  gmtime_r(&when, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M UTC", &utc);
  char load[64];
  std::snprintf(load, sizeof load, ", load %.2f, other processes %.2f CPUs", l.loadavg_1m, l.other_cpus);
  const bool busy = l.other_cpus >= kBusyOtherCpus;
  return stamp + std::string(load) + (busy ? " (busy: the limits may read low; sysinfo --refresh when quiet)" : "");
}

nlohmann::json fingerprint(const nlohmann::json& facts, const std::optional<Limits>& limits) {
  nlohmann::json f = facts;
  f["limits"] = limits ? to_json(*limits) : nlohmann::json(nullptr);
  return f;
}

}  // namespace pdbench::runner
