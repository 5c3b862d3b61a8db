#pragma once
// Synthetic runs for compare's tests: known samples, a plain meta.json.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/compare/compare_table.h"

namespace pdbench::compare::fixture {

// Nine repetitions around 1 with a spread of about 1.4% (CV).
inline const std::vector<double> kQuiet = {1.00, 1.01, 0.99, 1.02, 0.98, 1.005, 0.995, 1.015, 0.985};

inline std::vector<double> scaled(const std::vector<double>& v, double factor) {
  std::vector<double> out;
  for (double x : v) out.push_back(x * factor);
  return out;
}

inline nlohmann::json plain_meta() {
  return {{"model", {{"sha256", "abc"}}},
          {"fingerprint",
           {{"cpu", {{"model", "Test CPU"}, {"logical_cpus", 2}, {"flags", "fpu sse2 avx2"}}},
            {"openmp_max_threads", 2},
            {"compiler", "GNU 12.2.0"},
            {"build_type", "RelWithDebInfo"},
            {"git_commit", "0123456789ab"}}}};
}

// Every case gets the same samples per column: column -> samples.
inline RunData make_run(const std::string& label, const std::map<std::string, std::vector<double>>& columns,
                        const std::vector<std::string>& cases = {"c0"}) {
  RunData run{label, plain_meta(), {}, std::nullopt};
  run.samples.columns = {"case_id", "rep"};
  for (const auto& [name, values] : columns) run.samples.columns.push_back(name);
  const size_t reps = columns.begin()->second.size();
  for (const auto& id : cases)
    for (size_t rep = 0; rep < reps; ++rep) {
      std::vector<std::string> row = {id, std::to_string(rep)};
      for (const auto& [name, values] : columns) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.9g", values[rep]);
        row.push_back(buf);
      }
      run.samples.rows.push_back(std::move(row));
    }
  return run;
}

}  // namespace pdbench::compare::fixture
