#include "bench/runner/accuracy_run.h"

#include <omp.h>

#include <algorithm>
#include <filesystem>

#include "bench/runner/perplexity.h"
#include "bench/runner/thread_count.h"
#include "engine/util/error.h"
#include "engine/util/regular_file.h"

namespace pdbench::runner {

namespace {

constexpr LogitsPath kPaths[] = {LogitsPath::Prefill, LogitsPath::Decode};

// The first max_chunks chunks (all when 0).
PerplexityChunks first_chunks(PerplexityChunks chunks, size_t max_chunks) {
  if (max_chunks > 0 && chunks.chunks.size() > max_chunks) chunks.chunks.resize(max_chunks);
  return chunks;
}

}  // namespace

const std::vector<std::string>& accuracy_columns() {
  static const std::vector<std::string> columns = {
      "weight_type", "kv_type_k", "kv_type_v", "path",     "forward",      "base",      "text",    "chunk",
      "chunks",      "tokens_scored", "ppl",   "base_ppl", "kld_mean", "kld_p99", "same_top_pct", "ppl_ratio"};
  return columns;
}

const std::vector<std::string>& accuracy_key_columns() {
  static const std::vector<std::string> columns = {"weight_type", "kv_type_k", "kv_type_v", "path"};
  return columns;
}

std::vector<AccuracyConfig> accuracy_configs(const std::vector<Case>& cases) {
  std::vector<AccuracyConfig> configs;
  for (const Case& c : cases) {
    const AccuracyConfig config{c.weight_type, c.kv_type_k, c.kv_type_v};
    if (std::find(configs.begin(), configs.end(), config) == configs.end()) configs.push_back(config);
  }
  return configs;
}

AccuracyRun::AccuracyRun(const Scenario& scenario, std::vector<AccuracyConfig> configs, EngineOf engine_of,
                         const std::string& bundled_corpus)
    : scenario_(scenario), configs_(std::move(configs)), engine_of_(std::move(engine_of)) {
  const AccuracySpec& spec = *scenario.accuracy;
  const std::string context = where(scenario, spec.line) + ": [accuracy] ";
  text_ = spec.text.empty() ? bundled_corpus : spec.text;
  const Engine& first = engine_of_(configs_.front().weight_type);
  try {
    check_chunk_size(spec.chunk, first.model().config().context_length, "chunk");
    chunks_ = first_chunks(cut_chunks(first.tokenizer().encode(read_regular_file(text_), true), spec.chunk,
                                      first.tokenizer().bos(), text_),
                           spec.max_chunks);
    if (spec.base != "reference") base_.emplace(Engine::load(spec.base, scenario.tokenizer));
    for (const AccuracyConfig& c : configs_) require_same_vocabulary(engine_of_(c.weight_type), base_ ? *base_ : first);
  } catch (const Error& e) {
    throw Error(context + e.what());
  }
}

void write_accuracy(const std::string& dir, const Table& table) {
  write_file_atomic((std::filesystem::path(dir) / kAccuracyFile).string(), to_csv(table));
}

std::optional<Table> read_accuracy(const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / kAccuracyFile).string();
  if (!std::filesystem::exists(path)) return std::nullopt;
  Table t = read_csv(path);
  if (t.columns != accuracy_columns()) fail_file(path, "columns differ from this version's (docs/RESULTS.md)");
  return t;
}

Table AccuracyRun::score(std::FILE* progress) const {
  const AccuracySpec& spec = *scenario_.accuracy;
  Table table{accuracy_columns(), {}};
  // On every core the process may use, whatever the last case's threads.
  const ThreadCount threads(omp_get_num_procs());
  for (const AccuracyConfig& c : configs_) {
    const Engine& engine = engine_of_(c.weight_type);
    ChunkLogits model(engine, ForwardKind::Fast, chunks_.chunk, parse_kv_type(c.kv_type_k), parse_kv_type(c.kv_type_v));
    ChunkLogits base(base_ ? *base_ : engine, ForwardKind::Reference, chunks_.chunk);
    const std::vector<AccuracyTotals> totals = score_chunks(chunks_, model, &base, kPaths);
    for (size_t p = 0; p < totals.size(); ++p) {
      const AccuracySummary s = totals[p].summary();
      table.rows.push_back({c.weight_type, c.kv_type_k, c.kv_type_v, std::string(logits_path_name(kPaths[p])),
                            "fast", spec.base, text_, std::to_string(chunks_.chunk),
                            std::to_string(chunks_.chunks.size()), std::to_string(s.tokens_scored),
                            csv_number(s.ppl), csv_number(s.base->base_ppl), csv_number(s.base->kld_mean),
                            csv_number(s.base->kld_p99), csv_number(s.base->same_top_pct),
                            csv_number(s.base->ppl_ratio)});
    }
    if (progress) {
      std::fprintf(progress, "accuracy %s KV %s/%s: KLD prefill %s, decode %s\n", c.weight_type.c_str(),
                   c.kv_type_k.c_str(), c.kv_type_v.c_str(), table.rows[table.rows.size() - 2][12].c_str(),
                   table.rows.back()[12].c_str());
      std::fflush(progress);
    }
  }
  return table;
}

}  // namespace pdbench::runner
