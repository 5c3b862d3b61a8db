#pragma once
// Results folders and pdbench runs for the history's tests.
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "bench/runner/csv_table.h"
#include "tests/compare/compare_test_util.h"

namespace pdbench::test {

// A results folder with samples.csv, summary.csv and meta.json of commit
// `commit`, measured on a machine with `cpu` (8 CPUs, 16 GiB).
inline void write_folder(const std::string& dir, const std::string& commit, const std::string& cpu = "Test CPU") {
  std::filesystem::create_directories(dir);
  compare::RunData run =
      compare::fixture::make_run("x", {{"decode_ms", compare::fixture::kQuiet}}, {"a", "b,with \"quotes\""});
  run.meta["fingerprint"]["git_commit"] = commit;
  run.meta["fingerprint"]["cpu"]["model"] = cpu;
  run.meta["fingerprint"]["cpu"]["logical_cpus"] = 8;
  run.meta["fingerprint"]["memory_bytes"] = int64_t{16} << 30;
  run.meta["scenario"] = {{"name", "fixture"}, {"sha256", "def"}};
  run.meta["started_at"] = "2024-01-01T00:00:00Z";
  run.meta["finished_at"] = nullptr;
  runner::write_csv(dir + "/samples.csv", run.samples);
  runner::Table summary{{"case_id", "samples", "decode_median_ms"}, {{"a", "9", "1"}, {"b,with \"quotes\"", "9", ""}}};
  runner::write_csv(dir + "/summary.csv", summary);
  std::ofstream(dir + "/meta.json") << run.meta.dump(2);
}

// The exit code of `pdbench ARGS`; its output goes to `log` for failure messages.
inline int exit_code(const std::string& args, std::string* log = nullptr) {
  FILE* pipe = popen((std::string(PDBENCH_BIN) + " " + args + " 2>&1").c_str(), "r");
  if (!pipe) return -1;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;)
    if (log) log->append(buf, n);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace pdbench::test
