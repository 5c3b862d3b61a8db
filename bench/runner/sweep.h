#pragma once
// The cartesian product of a scenario's axes, as an ordered list of cases.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "bench/runner/scenario.h"

namespace pdbench::runner {

struct Case {
  size_t index = 0;  // position in the expansion: shards pick by it
  std::string id;    // stable name built from the values (see case_id)
  size_t prompt_tokens = 0;
  size_t output_tokens = 0;
  size_t context_depth = 0;
  size_t threads = 0;
  size_t batch = 1;
  std::string kv_type_k;
  std::string kv_type_v;
  size_t kv_block = 0;
  size_t kv_capacity = 0;
  std::string kv_cache;
  std::string weight_type;
  std::string sampling;
  size_t shared_prefix_tokens = 0;  // prompt tokens common to every run (0: every run repeats one prompt)
  std::string prefix_sharing;       // "on": reuse the previous run's cached prefix
  size_t trace_row = 0;  // the trace's CSV line this case replays; 0 without a trace
  std::optional<double> trace_arrival_ms;  // that row's arrival from the trace's earliest; none without a column
  // A load case's requests, arrivals and slots (load.h); for one, prompt and
  // output_tokens are the lengths' centre, or with a timed trace the
  // longest row's.
  LoadSetting load;

  bool is_load() const { return load.active(); }
};

// The most positions one request of the case can need: depth + the
// longest prompt + the longest output its distributions draw.
size_t case_tokens(const Case& c);

// Axes in the order of Case's fields; the last one varies fastest. With a
// trace, its rows (in file order) replace prompt_tokens x output_tokens, or
// with [load] timing make one load case of all the rows.
// Several [[sweep]] tables: their products in order, each case once (a
// case_id already made by an earlier table is skipped).
std::vector<Case> expand(const Scenario& scenario);

// "p128_n64_d0_t2_greedy" plus a part for each setting off its default
// (b4, kf16, vf16, blk16, cap4096, nocache, wq8_0, pre48, share, then a
// load case's load_id: q64_r2_c4 ...), led by "r7_" for
// a trace's line 7 (rows may repeat lengths); the same values
// always give the same id, whatever else the scenario sweeps.
std::string case_id(const Case& c);

// Cases this shard runs: index % n == k - 1 (k in 1..n).
struct Shard {
  size_t k = 1;
  size_t n = 1;
};
Shard parse_shard(const std::string& text);  // "k/n"
std::vector<Case> select_shard(const std::vector<Case>& cases, Shard shard);

}  // namespace pdbench::runner
