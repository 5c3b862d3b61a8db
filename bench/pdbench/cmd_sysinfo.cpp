// pdbench sysinfo: this machine's fingerprint and measured limits.
#include <cstdio>
#include <iostream>
#include <memory>

#include "bench/pdbench/commands.h"
#include "bench/runner/sysinfo.h"

namespace pdbench::cli {

namespace {

struct SysinfoArgs {
  bool json = false;
  bool refresh = false;
};

void run(const SysinfoArgs& a) {
  const nlohmann::json facts = runner::system_facts();
  const std::optional<runner::Limits> limits =
      a.refresh ? runner::refresh_limits(facts) : runner::current_limits(facts);
  const nlohmann::json f = runner::fingerprint(facts, limits);
  if (a.json) {
    std::cout << f.dump(2) << "\n";
    return;
  }
  const auto& cpu = f["cpu"];
  std::printf("cpu:        %s\n", cpu.value("model", std::string("unknown")).c_str());
  std::printf("threads:    %zu logical, %zu physical cores\n", cpu.value("logical_cpus", size_t{0}),
              cpu.value("physical_cores", size_t{0}));
  for (const auto& c : f["caches"])
    std::printf("cache:      L%s %s %s\n", c["level"].get<std::string>().c_str(), c["type"].get<std::string>().c_str(),
                c["size"].get<std::string>().c_str());
  std::printf("memory:     %.1f GiB\n", f.value("memory_bytes", 0.0) / (1 << 30));
  std::printf("THP:        %s\n", f.value("transparent_hugepages", std::string("unknown")).c_str());
  std::printf("governor:   %s\n", f.value("governor", std::string("unknown")).c_str());
  std::printf("compiler:   %s [%s] %s\n", f["compiler"].get<std::string>().c_str(),
              f["build_type"].get<std::string>().c_str(), f["cxx_flags"].get<std::string>().c_str());
  std::printf("kernels:    oneDNN %s, GEMV %s\n", f["onednn"].get<std::string>().c_str(),
              f["gemv_isa"].get<std::string>().c_str());
  std::printf("L2 rows:    %s\n", f.value("grouped_row_pairs", std::string("unknown")).c_str());
  std::printf("L1 ahead:   %s\n", f.value("streamed_l1_prefetch", std::string("unknown")).c_str());
  std::printf("git commit: %s%s\n", f["git_commit"].get<std::string>().c_str(),
              f.value("git_dirty", false) ? " (with uncommitted changes)" : "");
  std::printf("read:       %.1f GB/s (1 thread), %.1f GB/s (all)\n", limits->read_gb_s_1t, limits->read_gb_s_all);
  std::printf("fp32 peak:  %.1f GFLOP/s (1 thread), %.1f GFLOP/s (all)\n", limits->fp32_gflop_s_1t,
              limits->fp32_gflop_s_all);
  std::printf("bf16 peak:  %.1f GFLOP/s (1 thread), %.1f GFLOP/s (all)\n", limits->bf16_gflop_s_1t,
              limits->bf16_gflop_s_all);
  std::printf("int8 peak:  %.1f GOP/s (1 thread), %.1f GOP/s (all)\n", limits->int8_gop_s_1t,
              limits->int8_gop_s_all);
  std::printf("measured:   %s\n", runner::limits_provenance(*limits).c_str());
  std::printf("method:     %s\n", limits->method.c_str());
}

}  // namespace

void register_sysinfo(CLI::App& app) {
  auto args = std::make_shared<SysinfoArgs>();
  CLI::App* cmd = app.add_subcommand("sysinfo", "Show this machine's fingerprint and measured limits");
  cmd->footer("Limits are measured once per machine and cached in ~/.cache/pdbench/sysinfo.json "
              "($XDG_CACHE_HOME/pdbench/, or PDBENCH_SYSINFO_CACHE=FILE), with the time and "
              "the load; measured again when a week old (pdbench run does the same).");
  cmd->add_flag("--json", args->json, "Print the fingerprint as JSON (as stored in every meta.json)");
  cmd->add_flag("--refresh", args->refresh, "Measure the limits again instead of using the cache");
  cmd->callback([args] { run(*args); });
}

}  // namespace pdbench::cli
