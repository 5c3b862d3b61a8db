#pragma once
// The table a run prints on stdout when it ends, as llama-bench's -o
// md|csv|json|jsonl: one row per case with the figures a reader compares
// first (medians with their spread, TTFT against decode, TPOT, E2E).
// Progress and notes stay on stderr, so `pdbench run ... > out.md` holds
// the table alone. The results folder keeps every column (docs/RESULTS.md).
#include <cstdio>
#include <string>
#include <vector>

#include "bench/runner/csv_table.h"

namespace pdbench::cli {

// "md", "csv", "json", "jsonl": the --format choices.
std::vector<std::string> results_formats();

// summary.csv's rows as `format` (one of results_formats()) on `out`.
void print_results(const runner::Table& summary, const std::string& format, std::FILE* out);

}  // namespace pdbench::cli
