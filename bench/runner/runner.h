#pragma once
// Runs a scenario into a results folder: warm-up per case, then repetitions
// round-robin over the cases (machine drift spreads over all of them),
// rewriting the results atomically after every run so an interrupted run
// keeps what finished and --resume continues it.
#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/runner/csv_table.h"
#include "bench/runner/scenario.h"
#include "bench/runner/sweep.h"

namespace pdbench::runner {

struct RunOptions {
  std::string out_dir;
  bool resume = false;
  Shard shard;
  size_t max_runs = 0;  // stop after this many measured runs (0: all): a time budget, or a test's interruption
  std::string command_line;
  // Set (to a signal number, by pdbench run's handlers) to stop: the run in
  // progress is abandoned, the finished ones are written, and the report
  // says why it stopped.
  const std::atomic<int>* stop = nullptr;
  // Set false once the first warm-up run is about to start: until then a
  // stop request may end the process at once (StopSignals), there being no
  // finished run to write.
  std::atomic<bool>* ending_at_once = nullptr;
  // Measure the machine's limits (sysinfo.h) when no fresh ones are
  // cached, so meta.json always has a roofline (pdbench run); false reads
  // the cache only (the tests: a measurement would time a busy machine).
  bool measure_limits = false;
  size_t decode_delay_us = 0;  // test-only: slows every decode step (compare's slowed-build check)
};

struct RunReport {
  size_t cases = 0;           // in this shard
  size_t cases_complete = 0;  // with every repetition, this session's or earlier
  size_t runs = 0;            // measured now
  size_t runs_reused = 0;     // found in the folder (--resume)
  bool complete = false;      // every case has every repetition
  int stopped_by = 0;         // the stop request's signal when it cut the run short
  Table summary;
};

// Every check a run makes before its first measurement, without loading
// any weights (a model file's header is read, a synthetic model's shape is
// its preset's): supported values, the scenario's size, and every case's
// context against its KV capacity; `run --list` makes the same. Returns
// this shard's cases.
std::vector<Case> checked_cases(const Scenario& scenario, Shard shard);

// The KV capacity a case runs with: kv_capacity, or else what the longest
// case of the run needs, at most the model's context length.
size_t longest_case(const std::vector<Case>& cases);
size_t case_capacity(const Case& c, size_t longest, size_t model_context_length);

// The corpus prompts come from when a scenario names none.
std::string bundled_corpus();

RunReport run_scenario(const Scenario& scenario, const RunOptions& options, std::FILE* progress);

}  // namespace pdbench::runner
