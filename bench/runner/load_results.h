#pragma once
// The results columns of load cases (docs/RESULTS.md): their settings in
// every file's case columns, per-run throughput and goodput in
// samples.csv, every request in requests.csv, and the summary's request
// rates and SLA verdict. Empty cells for a case that is not a load case.
#include <string>
#include <vector>

#include "bench/runner/csv_table.h"
#include "bench/runner/measure.h"
#include "bench/runner/sweep.h"

namespace pdbench::runner {

const std::vector<std::string>& load_case_columns();
std::vector<std::string> load_case_cells(const Case& c);

const std::vector<std::string>& load_sample_columns();
std::vector<std::string> load_sample_cells(const Case& c, const RunResult& run, const Sla& sla);

// requests.csv: (case_index, case_id, rep, request) and then these.
const std::vector<std::string>& requests_value_columns();
void append_requests(Table& requests, const Case& c, size_t rep, const RunResult& run, const Sla& sla);

// batch_steps.csv: every forward step of a load case run in-process, what
// it ran (prompt and decode tokens), the KV blocks in use after it and the
// requests waiting for a slot or cache room when it started.
const std::vector<std::string>& batch_steps_columns();
void append_batch_steps(Table& batch_steps, const Case& c, size_t rep, const RunResult& run);

// The summary's load columns for one case, from its samples rows and the
// p99 TTFT and TPOT pooled over its requests (empty when it has none).
const std::vector<std::string>& load_summary_columns();
std::vector<std::string> load_summary_cells(const Table& samples, const std::vector<const std::vector<std::string>*>& rows,
                                            const std::string& ttft_p99, const std::string& tpot_p99);

}  // namespace pdbench::runner
