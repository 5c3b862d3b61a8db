#pragma once
// The results folder: samples.csv (one row per case x repetition),
// steps.csv (each decode step against its KV length), ops.csv (per-op time,
// FLOPs and bytes per phase), requests.csv (every request of a load case's
// runs), batch_steps.csv (every forward step of a load case's runs),
// summary.csv (statistics per case) and meta.json. Column lists live here only; docs/RESULTS.md documents them
// and a test checks the two agree.
#include <optional>
#include <string>
#include <vector>

#include "bench/runner/csv_table.h"
#include "bench/runner/measure.h"
#include "bench/runner/sweep.h"
#include "bench/runner/sysinfo.h"

namespace pdbench::runner {

// The columns that say which case a row is (the sweep axes and what they
// resolve to), first in samples.csv and summary.csv: case_index, case_id, then the axes.
const std::vector<std::string>& case_columns();
// The axis a case column describes as it ran rather than as asked
// (threads_used: threads; weights: weight_type; model_sha256: model), or
// the column itself: compare keys such a column with its axis.
std::string described_axis(const std::string& column);

// The model a case ran, as results name it.
struct ModelColumns {
  std::string file;    // the file name, without its folder
  std::string sha256;  // the first 12 hex digits of the file's (meta.json has all 64)
  std::string weights;  // its weight types (weight_types_label): "q8_0", "q4_k_m"
};
const std::vector<std::string>& samples_columns();
const std::vector<std::string>& steps_columns();
const std::vector<std::string>& ops_columns();
const std::vector<std::string>& requests_columns();
const std::vector<std::string>& summary_columns();

struct Results {
  Table samples;
  Table steps;
  Table ops;
  Table requests;
  Table batch_steps;
};

// The tables samples.csv indexes, with their file names.
struct IndexedTable {
  Table Results::*table;
  const char* file;
};
inline constexpr IndexedTable kIndexedTables[] = {{&Results::steps, "steps.csv"},
                                                  {&Results::ops, "ops.csv"},
                                                  {&Results::requests, "requests.csv"},
                                                  {&Results::batch_steps, "batch_steps.csv"}};

Results empty_results();
// What a previous (interrupted) run in `dir` left; throws if the columns
// differ from this version's.
Results load_results(const std::string& dir);

struct RunContext {
  ModelColumns model;
  size_t weights_bytes = 0;
  GemmPrecision weights_precision = GemmPrecision::F32;  // picks the compute roof of the weight matmuls
  long peak_rss_kib = 0;
  MemoryPeaks memory;  // this case's probe (probe_memory)
  std::optional<Limits> limits;
  Sla sla;  // a load case's goodput counts the requests within it
};
void append_run(Results& results, const PreparedCase& c, size_t rep, const WarmUp& warmup, const RunResult& run,
                const RunContext& context);

// Statistics per case from the raw samples, steps and requests, ordered by
// case_index. A load case's latencies pool every request of every run.
Table summary_table(const Table& samples, const Table& steps, const Table& requests);

// Writes the six CSV files, each atomically, samples.csv after the tables
// it indexes.
void write_results(const std::string& dir, const Results& results);
// Deletes the temporary files (NAME.tmp.XXXXXX) of results files that a
// process killed while writing left in dir.
void remove_stale_temporaries(const std::string& dir);

// (case_id, rep) pairs already in the samples.
bool has_sample(const Table& samples, const std::string& case_id, size_t rep);

}  // namespace pdbench::runner
