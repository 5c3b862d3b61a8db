#pragma once
// A scenario's [accuracy] case: the perplexity and KL divergence of each
// configuration its cases run (weight_type, kv_type_k, kv_type_v; the fast
// pass, as the cases), on both paths, against a base (the model's own
// reference pass or another file's), written to accuracy.csv so a report
// shows them beside the same configuration's speed and compare judges them.
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/runner/csv_table.h"
#include "bench/runner/perplexity_chunks.h"
#include "bench/runner/scenario.h"
#include "bench/runner/sweep.h"
#include "engine/runtime/engine.h"

namespace pdbench::runner {

// accuracy.csv's columns (docs/RESULTS.md); a configuration and a path per row.
const std::vector<std::string>& accuracy_columns();
// The columns that say which configuration and path a row is.
const std::vector<std::string>& accuracy_key_columns();

struct AccuracyConfig {
  std::string weight_type, kv_type_k, kv_type_v;
  bool operator==(const AccuracyConfig&) const = default;
};

// The configurations of `cases`, in order of first appearance.
std::vector<AccuracyConfig> accuracy_configs(const std::vector<Case>& cases);

// The engine a weight_type's cases run.
using EngineOf = std::function<const Engine&(const std::string& weight_type)>;

inline constexpr const char* kAccuracyFile = "accuracy.csv";

// Writes DIR/accuracy.csv atomically.
void write_accuracy(const std::string& dir, const Table& table);
// DIR/accuracy.csv, or nullopt when the run scored none; throws Error
// naming the file when its columns are not accuracy_columns().
std::optional<Table> read_accuracy(const std::string& dir);

class AccuracyRun {
 public:
  // Every check a user can act on, before any timing: the text read and cut
  // (long enough for two chunks), the chunk within the model's context, a
  // base file loaded with the same vocabulary. Errors name the scenario's
  // [accuracy] line.
  AccuracyRun(const Scenario& scenario, std::vector<AccuracyConfig> configs, EngineOf engine_of,
              const std::string& bundled_corpus);

  // Scores every configuration, a line per configuration on `progress`.
  Table score(std::FILE* progress) const;

 private:
  const Scenario& scenario_;
  std::vector<AccuracyConfig> configs_;
  EngineOf engine_of_;
  PerplexityChunks chunks_;
  std::string text_;              // the text file, as recorded
  std::optional<Engine> base_;    // a base file's engine; none: each model's reference pass
};

}  // namespace pdbench::runner
