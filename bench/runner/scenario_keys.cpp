#include "bench/runner/scenario_keys.h"

#include <map>

#include "bench/runner/load.h"

namespace pdbench::runner {

namespace {

std::vector<std::string> sweep_keys() {
  std::vector<std::string> keys = {"prompt_tokens", "output_tokens", "context_depth", "threads", "batch",
                                   "kv_type_k", "kv_type_v", "kv_block", "kv_capacity", "kv_cache",
                                   "weight_type", "sampling", "shared_prefix_tokens", "prefix_sharing"};
  keys.insert(keys.end(), load_axis_keys().begin(), load_axis_keys().end());
  return keys;
}

const std::map<std::string, std::vector<std::string>>& keys_by_table() {
  static const std::map<std::string, std::vector<std::string>> tables = {
      {"", {"name", "description", "trace", "model", "prompt", "measure", "sweep", "sampling", "load", "sla",
            "rate_search", "accuracy", "target"}},
      {"model", {"path", "tokenizer", "like", "type", "seed"}},
      {"prompt", {"source", "corpus", "seed"}},
      {"measure", {"repetitions", "warmup_max", "warmup_window", "warmup_tolerance_pct"}},
      {"sweep", sweep_keys()},
      {"accuracy", {"text", "chunk", "chunks", "base"}},
      {"sampling.NAME",
       {"temperature", "top_k", "top_p", "min_p", "repeat_penalty", "frequency_penalty", "presence_penalty",
        "penalty_last_n", "seed"}},
      {"load", {"seed", "timing"}},
      {"sla", {"ttft_p99_ms", "tpot_p99_ms"}},
      {"rate_search", {"low", "high", "probes"}},
      {"target", {"kind", "url", "model", "timeout_s"}},
  };
  return tables;
}

}  // namespace

const std::vector<std::string>& scenario_tables() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& [name, keys] : keys_by_table()) out.push_back(name);
    return out;
  }();
  return names;
}

const std::vector<std::string>& scenario_keys(const std::string& table) { return keys_by_table().at(table); }

}  // namespace pdbench::runner
