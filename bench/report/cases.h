#pragma once
// What charts, sentences and tables share: a case's settings, the label of
// the settings that tell cases apart, and per-op and per-step medians over
// repetitions (rates are derived from median times, never averaged).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/report/results_reader.h"
#include "bench/runner/sysinfo.h"

namespace pdbench::report {

using Row = std::vector<std::string>;

// The sweep axes in a results table's leading columns (docs/RESULTS.md).
const std::vector<std::string>& case_axes();

// Axes whose value differs between any two cases of any run.
std::vector<std::string> varying_axes(const std::vector<RunData>& runs);

// A case's axes as JSON (numbers as numbers), plus "kv": "K/V" types.
nlohmann::json case_settings(const runner::Table& table, const Row& row);

// "depth 128 · 2 threads": the varying axes except `leave_out`, in axis
// order; `always` are named even when they do not vary. "all cases" when
// nothing is left to name.
std::string series_label(const nlohmann::json& settings, const std::vector<std::string>& varying,
                         const std::vector<std::string>& leave_out, const std::vector<std::string>& always = {});

// "1 thread", "all cores" (threads = 0), "4 threads".
std::string threads_label(long threads);

// The summary row of a case, or nullptr.
const Row* summary_row(const RunData& run, const std::string& case_id);

struct OpMedian {
  std::string case_id;
  std::string phase;  // "prefill" or "decode"
  std::string op;
  double ms = 0;      // per run of the phase (the whole decode: every step)
  double gflop = 0;
  double gbyte = 0;
  double calls = 0;
};
// Median over repetitions per (case, phase, op), in the order ops.csv lists them.
std::vector<OpMedian> op_medians(const runner::Table& ops);
// The ops below `min_share_pct` of their (case, phase)'s time summed into
// one op named kOtherOps, placed last in that group; others keep their order.
inline constexpr const char* kOtherOps = "other";
std::vector<OpMedian> group_small_ops(const std::vector<OpMedian>& ops, double min_share_pct);

struct PhaseTotals {
  double ms = 0;
  double gflop = 0;
  double gbyte = 0;
};
// Sums of the medians of one case's phase, over the ops `keep` accepts.
template <class Keep>
PhaseTotals phase_totals(const std::vector<OpMedian>& ops, const std::string& case_id, const std::string& phase,
                         Keep keep) {
  PhaseTotals t;
  for (const auto& o : ops)
    if (o.case_id == case_id && o.phase == phase && keep(o)) {
      t.ms += o.ms;
      t.gflop += o.gflop;
      t.gbyte += o.gbyte;
    }
  return t;
}

struct StepMedian {
  std::string case_id;
  double step = 0;
  double kv_length = 0;
  double step_ms = 0;
  double forward_ms = 0;
};
// Median over repetitions per (case, step).
std::vector<StepMedian> step_medians(const runner::Table& steps);

// The measured limits in meta.json's fingerprint; nullopt until measured.
std::optional<runner::Limits> run_limits(const RunData& run);
// The precision of the prefill GEMMs of the model a case's weight_type ran
// (meta.json `models.TYPE` or `model`, `gemm_precision`): which compute roof
// applies. F32 for results from before it was recorded; an Error naming
// meta.json and the field for a name the engine does not know.
GemmPrecision weights_precision(const RunData& run, const std::string& weight_type);

}  // namespace pdbench::report
