#pragma once
// A benchmark scenario: the model, how prompts are made, how to measure, and
// the sweep axes whose cartesian product is run. Read from TOML (keys in
// scenarios/README.md); every error names FILE:LINE and the key.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/runner/axis.h"
#include "bench/runner/load.h"
#include "bench/runner/rate_search.h"
#include "bench/runner/target.h"
#include "bench/runner/trace.h"
#include "engine/sampling/sampling_params.h"

namespace pdbench::runner {

enum class PromptSource { Corpus, Random };

// One cartesian product of axes: a scalar fixes a setting, an array sweeps it.
struct SweepAxes {
  Axis<size_t> prompt_tokens{{128}};
  Axis<size_t> output_tokens{{128}};
  Axis<size_t> context_depth{{0}};
  Axis<size_t> threads{{0}};  // 0: all cores
  Axis<size_t> batch{{1}};
  Axis<std::string> kv_type_k{{"f32"}};
  Axis<std::string> kv_type_v{{"f32"}};
  Axis<size_t> kv_block{{0}};     // 0: the engine's default block size (16 tokens)
  Axis<size_t> kv_capacity{{0}};  // 0: the model's context length
  Axis<std::string> kv_cache{{"on"}};
  Axis<std::string> weight_type{{"file"}};
  Axis<std::string> sampling{{"greedy"}};
  // The first N prompt tokens are common to every run, the rest differ per
  // run (0: every run repeats the case's one prompt).
  Axis<size_t> shared_prefix_tokens{{0}};
  // "on": a run reuses the cached K/V of the previous run's common prefix.
  Axis<std::string> prefix_sharing{{"off"}};
  LoadAxes load;  // serving-style load (load.h)
};

// [accuracy]: perplexity and KL divergence against a base, scored once for
// each (weight_type, kv_type_k, kv_type_v) the cases run (accuracy_run.h).
struct AccuracySpec {
  int line = 0;      // of the table, for errors
  std::string text;  // the text scored; empty: the bundled corpus
  size_t chunk = 128;              // tokens per chunk (llama-perplexity's -c)
  size_t max_chunks = 0;           // score at most this many chunks; 0: all
  std::string base = "reference";  // the model's own reference pass, or a model file's
};

// The scenario's own axes are [sweep], or the first of several [[sweep]]
// tables; the cases are the union of every table's product.
struct Scenario : SweepAxes {
  std::string path;  // the file as named, or "command line"
  std::string text;  // the file's bytes (hashed into meta.json)
  std::string name;
  std::string description;

  // [model]: a file, or a synthetic one `like` + `type` + `seed` (models.h).
  std::string model;  // resolved against the scenario's folder
  std::string tokenizer;
  std::string model_like;  // a synthetic_model_names() preset
  std::string model_type;  // a quant_mix_names() name
  uint64_t model_seed = 0;
  // (prompt, output) length pairs to replay, read when the scenario is: each
  // row is a case in place of the prompt_tokens x output_tokens axes.
  std::string trace;
  int trace_line = 0;
  Trace trace_rows;

  // [prompt]
  PromptSource prompt_source = PromptSource::Corpus;
  std::string corpus;  // empty: the bundled scenarios/corpus/stories.txt
  uint64_t prompt_seed = 1;

  // [target]: the in-process engine, or a server the requests go to.
  Target target;

  // [load], [sla] and [rate_search]
  LoadOptions load_options;
  Sla sla;
  std::optional<RateSearch> rate_search;

  // [measure]
  size_t repetitions = 9;
  size_t warmup_max = 10;
  size_t warmup_window = 3;
  double warmup_tolerance_pct = 5.0;

  std::optional<AccuracySpec> accuracy;

  // [[sweep]] tables after the first.
  std::vector<SweepAxes> more_sweeps;

  // This scenario's axes, then more_sweeps'.
  std::vector<const SweepAxes*> sweeps() const;
  std::vector<SweepAxes*> sweeps();

  // Built-in "greedy" and "default" (llama.cpp's) plus [sampling.NAME].
  std::map<std::string, SamplingParams> strategies;
};

// The built-in defaults with no file (for command-line runs).
Scenario default_scenario();

// Parses TOML text; `path` is used in messages and to resolve relative paths.
// Throws pdbench::Error "PATH:LINE: key 'K' ..." on unknown keys, wrong types
// and impossible values.
Scenario parse_scenario(const std::string& text, const std::string& path);
Scenario load_scenario(const std::string& path);

// Throws "PATH:LINE: key 'K' = V is not supported yet (...)" for the first
// axis value the engine cannot run yet, and for a shared prefix longer than
// a prompt. Run after command-line overrides.
void require_supported(const Scenario& scenario);

// "PATH:LINE" or "PATH" when line is 0.
std::string where(const Scenario& scenario, int line);

}  // namespace pdbench::runner
