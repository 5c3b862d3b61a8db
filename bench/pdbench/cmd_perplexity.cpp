// pdbench perplexity: a model's perplexity over a text and, against a base,
// how far its next-token distributions move (llama-perplexity's figures).
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/pdbench/commands.h"
#include "bench/pdbench/options.h"
#include "bench/runner/csv_table.h"
#include "bench/runner/perplexity.h"
#include "bench/runner/progress.h"
#include "engine/util/error.h"

namespace pdbench::cli {

namespace {

using runner::AccuracySummary;
using runner::LogitsPath;

struct PerplexityArgs {
  ModelOptions model;
  std::string text_file;
  size_t chunk = 0;  // 0: runner::default_chunk_size
  std::string paths = "both";
  std::string base;  // a model file, "reference", or empty: no KL divergence
  std::string base_forward = "reference";
  std::string cache_type_k = "f32", cache_type_v = "f32";  // -m's cache; the base's is f32
  bool json = false;
  bool csv = false;
};

// What was measured, for each output format.
struct Measured {
  std::string model, forward, text_file, cache_type_k, cache_type_v;
  std::string base_model, base_forward;  // empty without a base
  const runner::PerplexityChunks& text;
  std::vector<std::pair<LogitsPath, AccuracySummary>> paths;
};

std::vector<LogitsPath> chosen_paths(const std::string& name) {
  if (name == "prefill") return {LogitsPath::Prefill};
  if (name == "decode") return {LogitsPath::Decode};
  return {LogitsPath::Prefill, LogitsPath::Decode};
}

std::string running_ppl(std::span<const LogitsPath> paths, std::span<const runner::AccuracyTotals> totals) {
  std::string line;
  for (size_t p = 0; p < paths.size(); ++p) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%s PPL %.4f", p ? ", " : "", std::string(logits_path_name(paths[p])).c_str(),
                  totals[p].ppl());
    line += buf;
  }
  return line;
}

void print_table(const Measured& m) {
  const runner::PerplexityChunks& t = m.text;
  std::printf("%s, %s pass, KV %s/%s: %zu chunks of %zu tokens from %s (%zu tokens), %zu scored per path\n",
              m.model.c_str(), m.forward.c_str(), m.cache_type_k.c_str(), m.cache_type_v.c_str(), t.chunks.size(),
              t.chunk, m.text_file.c_str(), t.text_tokens, m.paths.front().second.tokens_scored);
  const auto& base = m.paths.front().second.base;
  if (base) {
    std::printf("base %s, %s pass: PPL %.4f\n", m.base_model.c_str(), m.base_forward.c_str(), base->base_ppl);
    std::printf("%-8s %10s %10s %10s %9s %10s\n", "path", "PPL", "KLD mean", "KLD p99", "same top", "PPL ratio");
  } else {
    std::printf("%-8s %10s\n", "path", "PPL");
  }
  for (const auto& [path, s] : m.paths) {
    std::printf("%-8s %10.4f", std::string(logits_path_name(path)).c_str(), s.ppl);
    if (s.base)
      std::printf(" %10.6f %10.6f %8.3f%% %10.6f", s.base->kld_mean, s.base->kld_p99, s.base->same_top_pct,
                  s.base->ppl_ratio);
    std::printf("\n");
  }
}

nlohmann::json to_json(const Measured& m) {
  nlohmann::json j = {{"model", m.model},
                      {"forward", m.forward},
                      {"cache_type_k", m.cache_type_k},
                      {"cache_type_v", m.cache_type_v},
                      {"text", m.text_file},
                      {"text_tokens", m.text.text_tokens},
                      {"ctx", m.text.chunk},
                      {"chunks", m.text.chunks.size()},
                      {"tokens_scored", m.paths.front().second.tokens_scored},
                      {"paths", nlohmann::json::object()}};
  for (const auto& [path, s] : m.paths) {
    nlohmann::json& p = j["paths"][std::string(logits_path_name(path))] = {{"ppl", s.ppl}};
    if (s.base)
      p.update({{"kld_mean", s.base->kld_mean},
                {"kld_p99", s.base->kld_p99},
                {"same_top_pct", s.base->same_top_pct},
                {"ppl_ratio", s.base->ppl_ratio}});
  }
  if (const auto& base = m.paths.front().second.base)
    j["base"] = {{"model", m.base_model}, {"forward", m.base_forward}, {"ppl", base->base_ppl}};
  return j;
}

// One row per path; the base's columns are empty without one.
runner::Table to_table(const Measured& m) {
  runner::Table t{{"model", "forward", "cache_type_k", "cache_type_v", "base", "base_forward", "ctx", "chunks",
                   "tokens_scored", "path", "ppl", "base_ppl", "kld_mean", "kld_p99", "same_top_pct", "ppl_ratio"},
                  {}};
  for (const auto& [path, s] : m.paths) {
    std::vector<std::string> row = {m.model, m.forward, m.cache_type_k, m.cache_type_v, m.base_model, m.base_forward,
                                    std::to_string(m.text.chunk),
                                    std::to_string(m.text.chunks.size()), std::to_string(s.tokens_scored),
                                    std::string(logits_path_name(path)), runner::csv_number(s.ppl)};
    if (s.base)
      for (const double v : {s.base->base_ppl, s.base->kld_mean, s.base->kld_p99, s.base->same_top_pct,
                             s.base->ppl_ratio})
        row.push_back(runner::csv_number(v));
    row.resize(t.columns.size());
    t.rows.push_back(std::move(row));
  }
  return t;
}

// The text's chunks, after the checks a user can act on: an empty text, -c.
runner::PerplexityChunks text_chunks(const PerplexityArgs& args, const Engine& engine) {
  const std::string text = read_text("", args.text_file);
  if (text.empty()) fail_file(args.text_file, "the text to score is empty");
  const size_t context = engine.model().config().context_length;
  const size_t chunk = args.chunk ? args.chunk : runner::default_chunk_size(context);
  runner::check_chunk_size(chunk, context, "-c");
  return runner::cut_chunks(engine.tokenizer().encode(text, true), chunk, engine.tokenizer().bos(), args.text_file);
}

// The base model: another file, or -m's own when the base is the word reference.
std::optional<Engine> load_base_file(const PerplexityArgs& args, const Engine& engine) {
  if (args.base.empty() || args.base == "reference") return std::nullopt;
  Engine base = Engine::load(args.base, args.model.tokenizer);
  runner::require_same_vocabulary(engine, base);
  return base;
}

void print(const PerplexityArgs& args, const Measured& m) {
  if (args.json)
    std::cout << to_json(m).dump() << "\n";
  else if (args.csv)
    std::cout << runner::to_csv(to_table(m));
  else
    print_table(m);
}

KvType cache_type(const std::string& option, const std::string& name) {
  try {
    return parse_kv_type(name);
  } catch (const Error& e) {
    throw Error(option + ": " + e.what());
  }
}

void run(const PerplexityArgs& args) {
  if (args.base == "reference" && args.base_forward != "reference")
    throw Error("--base-forward " + args.base_forward +
                ": --kl-divergence-base reference is -m's reference pass; name a model file to compare against "
                "another pass");
  const KvType k_type = cache_type("--cache-type-k", args.cache_type_k);
  const KvType v_type = cache_type("--cache-type-v", args.cache_type_v);
  apply_threads(args.model);
  const Engine engine = Engine::load(args.model.model, args.model.tokenizer);
  const runner::PerplexityChunks chunks = text_chunks(args, engine);
  const std::optional<Engine> base_file = load_base_file(args, engine);
  runner::ChunkLogits model(engine, parse_forward_kind(args.model.forward), chunks.chunk, k_type, v_type);
  std::optional<runner::ChunkLogits> base;
  if (!args.base.empty())
    base.emplace(base_file ? *base_file : engine, parse_forward_kind(args.base_forward), chunks.chunk);

  const std::vector<LogitsPath> paths = chosen_paths(args.paths);
  runner::Progress progress(stderr, chunks.chunks.size());
  const auto totals = runner::score_chunks(chunks, model, base ? &*base : nullptr, paths,
                                           [&](size_t, std::span<const runner::AccuracyTotals> so_far) {
                                             progress.run_done(running_ppl(paths, so_far));
                                           });
  Measured m{args.model.model, args.model.forward, args.text_file, args.cache_type_k, args.cache_type_v, "", "",
             chunks, {}};
  if (base) {
    m.base_model = base_file ? args.base : args.model.model;
    m.base_forward = args.base_forward;
  }
  for (size_t p = 0; p < paths.size(); ++p) m.paths.emplace_back(paths[p], totals[p].summary());
  print(args, m);
}

}  // namespace

void register_perplexity(CLI::App& app) {
  auto args = std::make_shared<PerplexityArgs>();
  CLI::App* cmd = app.add_subcommand("perplexity", "Perplexity over a text and KL divergence against a base model");
  cmd->footer(
      "As llama.cpp's llama-perplexity, so the figures compare: the text is tokenized once with BOS and cut\n"
      "into chunks of -c tokens, each run as a fresh context with BOS first, and scored on its second half.\n"
      "Each chunk runs as one prefill and fed a token at a time (decode): the fast pass runs other kernels\n"
      "for each. With --kl-divergence-base, the base's prefill logits at the same positions give the mean\n"
      "and 99th percentile of KL(base || model), the share of positions with the same top token, and the\n"
      "PPL ratio. Results go to stdout, progress to stderr.\n"
      "Example: pdbench perplexity -m model-Q8_0.gguf -f scenarios/corpus/stories.txt -c 128 \\\n"
      "           --kl-divergence-base model-f32.gguf");
  add_model_file_options(*cmd, args->model);
  cmd->add_option("-f,--file", args->text_file, "Text to score")->required()->check(CLI::ExistingFile);
  cmd->add_option("-c,--ctx-size", args->chunk,
                  "Tokens per chunk, even (default: 512, llama-perplexity's, at most the model's context)")
      ->check(whole_number_u64());
  cmd->add_option("--path", args->paths, "Forward paths to score: prefill, decode or both")
      ->capture_default_str()
      ->check(CLI::IsMember({"prefill", "decode", "both"}));
  auto* base = cmd->add_option("--kl-divergence-base", args->base,
                               "Base to compare against: a model file with the same vocabulary, or 'reference' "
                               "for -m's reference pass")
                   ->check(CLI::IsMember({"reference"}) | CLI::ExistingFile);
  add_forward_option(*cmd, "--base-forward", args->base_forward, "The base file's forward pass");
  cmd->add_option("--cache-type-k", args->cache_type_k,
                  "K cache element type of -m's pass: f32, f16, bf16, q8_0 (also -ctk; the base's is f32)")
      ->capture_default_str();
  cmd->add_option("--cache-type-v", args->cache_type_v,
                  "V cache element type of -m's pass: f32, f16, bf16, q8_0 (also -ctv; the base's is f32)")
      ->capture_default_str();
  cmd->get_option("--base-forward")->needs(base);
  auto* json = cmd->add_flag("--json", args->json, "Print one JSON object: the figures per path");
  cmd->add_flag("--csv", args->csv, "Print CSV: a header and one row per path")->excludes(json);
  cmd->callback([args] { run(*args); });
}

}  // namespace pdbench::cli
