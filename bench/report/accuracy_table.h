#pragma once
// accuracy.csv in a report: each configuration's KL divergence and top-1
// agreement beside the speed of the same configuration's cases.
#include "bench/report/tables.h"

namespace pdbench::report {

// One row per accuracy.csv row: weight type, KV K/V, path, PPL, mean and
// p99 KLD, same top %, and the fastest tokens/s that path reaches in the
// run's batch-1 cases of the same weight type and KV types ("-" when none).
// No rows when the run scored no accuracy.
TextTable accuracy_table(const RunData& run);

}  // namespace pdbench::report
