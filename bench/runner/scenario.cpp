#include "bench/runner/scenario.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <toml++/toml.h>

#include "bench/runner/load_reader.h"
#include "bench/runner/scenario_keys.h"
#include "bench/runner/scenario_limits.h"
#include "bench/runner/target_reader.h"
#include "engine/attention/kv_type.h"
#include "engine/model/synthetic_model.h"
#include "engine/util/error.h"
#include "engine/util/regular_file.h"

namespace pdbench::runner {

namespace {

namespace fs = std::filesystem;

// The KV cache's element types, as the engine names them.
std::vector<std::string> kv_type_names() {
  std::vector<std::string> names;
  for (size_t i = 0; i < kKvTypeCount; ++i) names.emplace_back(kv_type_name(static_cast<KvType>(i)));
  return names;
}
const std::vector<std::string> kKvTypes = kv_type_names();
// "file" (the model file's types as stored), then make-model's --type values.
std::vector<std::string> weight_type_names() {
  std::vector<std::string> names{"file"};
  for (auto& n : quant_mix_names()) names.push_back(std::move(n));
  return names;
}
const std::vector<std::string> kWeightTypes = weight_type_names();

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

int line_of(const toml::node& node) { return static_cast<int>(node.source().begin.line); }

// Reads one file's TOML tables, failing with FILE:LINE: key 'K' ...
class Reader {
 public:
  Reader(Scenario& s, std::string base_dir) : s_(s), base_dir_(std::move(base_dir)) {}

  [[noreturn]] void fail(const toml::node& node, const std::string& key, const std::string& what) const {
    throw Error(where(s_, line_of(node)) + ": key '" + key + "' " + what);
  }

  // `section` as the file names it ("sampling.fast"); its keys are scenario_keys()'s.
  void only_keys(const toml::table& table, const std::string& section) const {
    const std::vector<std::string>& known =
        scenario_keys(section.starts_with("sampling.") ? std::string("sampling.NAME") : section);
    for (auto&& [key, node] : table) {
      const std::string k(key.str());
      if (std::find(known.begin(), known.end(), k) == known.end())
        throw Error(where(s_, static_cast<int>(key.source().begin.line)) + ": unknown key '" + k + "'" +
                    (section.empty() ? "" : " in [" + section + "]") + " (known: " + join(known) + ")");
      (void)node;
    }
  }

  const toml::table& table(const toml::node& node, const std::string& key) const {
    if (!node.is_table()) fail(node, key, "must be a table");
    return *node.as_table();
  }

  std::string string(const toml::node& node, const std::string& key) const {
    if (!node.is_string()) fail(node, key, "must be a string");
    return node.as_string()->get();
  }

  std::string path(const toml::node& node, const std::string& key) const {
    const std::string p = string(node, key);
    if (p.empty()) fail(node, key, "must not be empty");
    return fs::path(p).is_absolute() ? p : (fs::path(base_dir_) / p).lexically_normal().string();
  }

  int64_t integer(const toml::node& node, const std::string& key, int64_t min,
                  int64_t max = std::numeric_limits<int64_t>::max()) const {
    if (!node.is_integer()) fail(node, key, "must be an integer");
    const int64_t v = node.as_integer()->get();
    if (v < min) fail(node, key, "must be >= " + std::to_string(min) + ", got " + std::to_string(v));
    if (v > max) fail(node, key, "must be <= " + std::to_string(max) + ", got " + std::to_string(v));
    return v;
  }

  double number(const toml::node& node, const std::string& key) const {
    if (node.is_integer()) return static_cast<double>(node.as_integer()->get());
    if (!node.is_floating_point()) fail(node, key, "must be a number");
    return node.as_floating_point()->get();
  }

  // A scalar or a non-empty array of scalars, each read by `one`.
  template <class T, class ReadOne>
  void axis(const toml::node& node, const std::string& key, Axis<T>& out, ReadOne one) const {
    out.values.clear();
    out.line = line_of(node);
    if (const toml::array* array = node.as_array()) {
      if (array->empty()) fail(node, key, "must not be an empty array");
      for (const toml::node& item : *array) out.values.push_back(one(item));
    } else {
      out.values.push_back(one(node));
    }
  }

  void choice_axis(const toml::node& node, const std::string& key, Axis<std::string>& out,
                   const std::vector<std::string>& allowed) const {
    axis(node, key, out, [&](const toml::node& item) {
      std::string v = string(item, key);
      if (std::find(allowed.begin(), allowed.end(), v) == allowed.end())
        fail(item, key, "= \"" + v + "\" is not one of: " + join(allowed));
      return v;
    });
  }

  void count_axis(const toml::node& node, const std::string& key, Axis<size_t>& out, int64_t min,
                  int64_t max) const {
    axis(node, key, out, [&](const toml::node& item) { return static_cast<size_t>(integer(item, key, min, max)); });
  }

  void model(const toml::table& t) {
    only_keys(t, "model");
    if (const auto* n = t.get("path")) s_.model = path(*n, "path");
    if (const auto* n = t.get("tokenizer")) s_.tokenizer = path(*n, "tokenizer");
    const std::vector<std::string> types(kWeightTypes.begin() + 1, kWeightTypes.end());
    if (const auto* n = t.get("like")) {
      s_.model_like = string(*n, "like");
      const std::vector<std::string> names = synthetic_model_names();
      if (std::find(names.begin(), names.end(), s_.model_like) == names.end())
        fail(*n, "like", "= \"" + s_.model_like + "\" is not one of: " + join(names));
    }
    if (const auto* n = t.get("type")) {
      s_.model_type = string(*n, "type");
      if (std::find(types.begin(), types.end(), s_.model_type) == types.end())
        fail(*n, "type", "= \"" + s_.model_type + "\" is not one of: " + join(types));
      if (s_.model_like.empty()) fail(*n, "type", "needs 'like' (a model file's weights are as stored)");
    }
    if (const auto* n = t.get("seed")) {
      s_.model_seed = static_cast<uint64_t>(integer(*n, "seed", 0));
      if (s_.model_like.empty()) fail(*n, "seed", "needs 'like'");
    }
    if (s_.model.empty() == s_.model_like.empty())
      throw Error(where(s_, line_of(t)) + ": [model] needs exactly one of 'path' or 'like'");
    if (!s_.model_like.empty() && s_.model_type.empty())
      throw Error(where(s_, line_of(t)) + ": [model] 'like' needs 'type' (one of: " + join(types) + ")");
  }

  void prompt(const toml::table& t) {
    only_keys(t, "prompt");
    if (const auto* n = t.get("source")) {
      const std::string v = string(*n, "source");
      if (v == "corpus")
        s_.prompt_source = PromptSource::Corpus;
      else if (v == "random")
        s_.prompt_source = PromptSource::Random;
      else
        fail(*n, "source", "= \"" + v + "\" is not one of: corpus, random");
    }
    if (const auto* n = t.get("corpus")) s_.corpus = path(*n, "corpus");
    if (const auto* n = t.get("seed")) s_.prompt_seed = static_cast<uint64_t>(integer(*n, "seed", 0));
  }

  void measure(const toml::table& t) {
    only_keys(t, "measure");
    if (const auto* n = t.get("repetitions")) s_.repetitions = static_cast<size_t>(integer(*n, "repetitions", 1));
    if (const auto* n = t.get("warmup_max")) s_.warmup_max = static_cast<size_t>(integer(*n, "warmup_max", 0));
    if (const auto* n = t.get("warmup_window")) s_.warmup_window = static_cast<size_t>(integer(*n, "warmup_window", 2));
    if (const auto* n = t.get("warmup_tolerance_pct")) {
      s_.warmup_tolerance_pct = number(*n, "warmup_tolerance_pct");
      if (!(s_.warmup_tolerance_pct > 0)) fail(*n, "warmup_tolerance_pct", "must be > 0");
    }
  }

  void accuracy(const toml::table& t) {
    only_keys(t, "accuracy");
    AccuracySpec& a = s_.accuracy.emplace();
    a.line = line_of(t);
    if (const auto* n = t.get("text")) a.text = path(*n, "text");
    if (const auto* n = t.get("chunk")) {
      a.chunk = static_cast<size_t>(integer(*n, "chunk", 4, int64_t{1} << 24));
      if (a.chunk % 2 != 0) fail(*n, "chunk", "= " + std::to_string(a.chunk) + " must be even (half of it is scored)");
    }
    if (const auto* n = t.get("chunks")) a.max_chunks = static_cast<size_t>(integer(*n, "chunks", 0));
    if (const auto* n = t.get("base")) {
      a.base = string(*n, "base");
      if (a.base != "reference") a.base = path(*n, "base");
    }
  }

  void sampling(const toml::table& t) {
    for (auto&& [key, node] : t) {
      const std::string name(key.str());
      const toml::table& st = table(node, "sampling." + name);
      only_keys(st, "sampling." + name);
      SamplingParams p;
      auto f = [&](const char* k, float& out) {
        if (const auto* n = st.get(k)) out = static_cast<float>(number(*n, k));
      };
      auto i = [&](const char* k, int& out, int64_t min) {
        if (const auto* n = st.get(k)) out = static_cast<int>(integer(*n, k, min));
      };
      f("temperature", p.temperature);
      i("top_k", p.top_k, 0);
      f("top_p", p.top_p);
      f("min_p", p.min_p);
      f("repeat_penalty", p.repeat_penalty);
      f("frequency_penalty", p.frequency_penalty);
      f("presence_penalty", p.presence_penalty);
      i("penalty_last_n", p.penalty_last_n, -1);
      if (const auto* n = st.get("seed")) p.seed = static_cast<uint64_t>(integer(*n, "seed", 0));
      try {
        p.validate();
      } catch (const Error& e) {
        throw Error(where(s_, line_of(node)) + ": [sampling." + name + "]: " + e.what());
      }
      s_.strategies[name] = p;
    }
  }

  void sweep(const toml::table& t, SweepAxes& out) const {
    only_keys(t, "sweep");
    read_load_axes(*this, t, out.load);
    if (const auto* n = t.get("prompt_tokens")) count_axis(*n, "prompt_tokens", out.prompt_tokens, 1, kMaxTokens);
    if (const auto* n = t.get("output_tokens")) count_axis(*n, "output_tokens", out.output_tokens, 1, kMaxTokens);
    if (const auto* n = t.get("context_depth")) count_axis(*n, "context_depth", out.context_depth, 0, kMaxTokens);
    if (const auto* n = t.get("threads")) count_axis(*n, "threads", out.threads, 0, kMaxThreads);
    if (const auto* n = t.get("batch")) count_axis(*n, "batch", out.batch, 1, kMaxBatch);
    if (const auto* n = t.get("kv_block")) count_axis(*n, "kv_block", out.kv_block, 0, kMaxTokens);
    if (const auto* n = t.get("kv_capacity")) count_axis(*n, "kv_capacity", out.kv_capacity, 0, kMaxTokens);
    if (const auto* n = t.get("kv_type_k")) choice_axis(*n, "kv_type_k", out.kv_type_k, kKvTypes);
    if (const auto* n = t.get("kv_type_v")) choice_axis(*n, "kv_type_v", out.kv_type_v, kKvTypes);
    if (const auto* n = t.get("kv_cache")) choice_axis(*n, "kv_cache", out.kv_cache, {"on", "off"});
    if (const auto* n = t.get("weight_type")) choice_axis(*n, "weight_type", out.weight_type, kWeightTypes);
    if (const auto* n = t.get("sampling")) axis(*n, "sampling", out.sampling, [&](const toml::node& item) {
        return string(item, "sampling");
      });
    if (const auto* n = t.get("shared_prefix_tokens"))
      count_axis(*n, "shared_prefix_tokens", out.shared_prefix_tokens, 0, kMaxTokens);
    if (const auto* n = t.get("prefix_sharing")) choice_axis(*n, "prefix_sharing", out.prefix_sharing, {"off", "on"});
  }

 private:
  Scenario& s_;
  std::string base_dir_;
};

// The shared prefix is part of the prompt: no longer than the shortest one.
void require_prefix_in_prompt(const Scenario& s, const SweepAxes& axes) {
  std::vector<size_t> prompts = axes.prompt_tokens.values;  // or the trace's, which replace them
  if (!s.trace_rows.rows.empty()) {
    prompts.clear();
    for (const TraceRow& row : s.trace_rows.rows) prompts.push_back(row.prompt_tokens);
  }
  const size_t shortest = *std::min_element(prompts.begin(), prompts.end());
  for (size_t shared : axes.shared_prefix_tokens.values)
    if (shared > shortest)
      throw Error(where(s, axes.shared_prefix_tokens.line) + ": key 'shared_prefix_tokens' = " + std::to_string(shared) +
                  " exceeds the shortest prompt (" + std::to_string(shortest) + " tokens)");
}

}  // namespace

std::vector<const SweepAxes*> Scenario::sweeps() const {
  std::vector<const SweepAxes*> all{this};
  for (const SweepAxes& more : more_sweeps) all.push_back(&more);
  return all;
}

std::vector<SweepAxes*> Scenario::sweeps() {
  std::vector<SweepAxes*> all{this};
  for (SweepAxes& more : more_sweeps) all.push_back(&more);
  return all;
}

std::string where(const Scenario& scenario, int line) {
  return line > 0 ? scenario.path + ":" + std::to_string(line) : scenario.path;
}

Scenario default_scenario() {
  Scenario s;
  s.path = "command line";
  SamplingParams greedy;
  greedy.temperature = 0.0f;
  SamplingParams llama_cpp;  // llama.cpp's defaults, as `pdbench generate`
  llama_cpp.temperature = 0.8f;
  llama_cpp.top_k = 40;
  llama_cpp.top_p = 0.95f;
  llama_cpp.min_p = 0.05f;
  llama_cpp.seed = 42;
  s.strategies = {{"greedy", greedy}, {"default", llama_cpp}};
  return s;
}

Scenario parse_scenario(const std::string& text, const std::string& path) {
  Scenario s = default_scenario();
  s.path = path;
  s.text = text;
  check_scenario_limits(text, path);
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    throw Error(where(s, static_cast<int>(e.source().begin.line)) + ": " + std::string(e.description()));
  }
  Reader r(s, fs::path(path).parent_path().string());
  r.only_keys(root, "");
  if (const auto* n = root.get("name")) s.name = r.string(*n, "name");
  if (const auto* n = root.get("description")) s.description = r.string(*n, "description");
  if (const auto* n = root.get("trace")) {
    s.trace = r.path(*n, "trace");
    s.trace_line = line_of(*n);
  }
  if (const auto* n = root.get("model"))
    r.model(r.table(*n, "model"));
  else
    throw Error(path + ": missing [model] table (with 'path' = a model file, or 'like' + 'type')");
  if (const auto* n = root.get("prompt")) r.prompt(r.table(*n, "prompt"));
  if (const auto* n = root.get("measure")) r.measure(r.table(*n, "measure"));
  if (const auto* n = root.get("sampling")) r.sampling(r.table(*n, "sampling"));
  if (const auto* n = root.get("load")) read_load_table(r, r.table(*n, "load"), s.load_options);
  if (const auto* n = root.get("sla")) read_sla_table(r, r.table(*n, "sla"), s.sla);
  if (const auto* n = root.get("rate_search")) {
    read_rate_search_table(r, r.table(*n, "rate_search"), s.rate_search.emplace());
    s.rate_search->line = line_of(*n);
  }
  if (const auto* n = root.get("accuracy")) r.accuracy(r.table(*n, "accuracy"));
  if (const auto* n = root.get("target")) read_target_table(r, r.table(*n, "target"), s.target);
  if (const auto* n = root.get("sweep")) {
    if (const toml::array* tables = n->as_array()) {  // [[sweep]]: one product per table
      for (size_t i = 0; i < tables->size(); ++i) {
        SweepAxes& axes = i == 0 ? static_cast<SweepAxes&>(s) : s.more_sweeps.emplace_back();
        r.sweep(r.table((*tables)[i], "sweep"), axes);
      }
    } else {
      r.sweep(r.table(*n, "sweep"), s);
    }
  }
  for (const SweepAxes* axes : s.sweeps())
    for (const std::string& name : axes->sampling.values)
      if (!s.strategies.contains(name))
        throw Error(where(s, axes->sampling.line) + ": key 'sampling' = \"" + name +
                    "\" names no strategy (built in: greedy, default; or define [sampling." + name + "])");
  if (!s.trace.empty()) {
    for (const SweepAxes* axes : s.sweeps())
      for (const auto& [key, axis] :
           {std::pair{"prompt_tokens", &axes->prompt_tokens}, std::pair{"output_tokens", &axes->output_tokens}})
        if (axis->line > 0)
          throw Error(where(s, axis->line) + ": key '" + key + "' cannot be set with 'trace' (line " +
                      std::to_string(s.trace_line) + "): the trace's rows give the lengths");
    s.trace_rows = read_trace(s.trace);
  }
  if (s.name.empty()) s.name = fs::path(path).stem().string();
  return s;
}

Scenario load_scenario(const std::string& path) {
  require_regular_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_file(path, "cannot read scenario file");
  std::string text(kMaxScenarioBytes + 1, '\0');  // a byte past the limit tells a file is too large
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  return parse_scenario(text, path);
}

void require_supported(const Scenario& s) {
  auto unsupported = [&](int line, const std::string& key, const std::string& value, const std::string& why) {
    throw Error(where(s, line) + ": key '" + key + "' = " + value + " is not supported yet (" + why + ")");
  };
  check_load(s);
  check_target(s);
  for (const SweepAxes* axes : s.sweeps()) {
    require_prefix_in_prompt(s, *axes);
    for (size_t v : axes->batch.values)
      for (size_t depth : axes->context_depth.values)
        if (v != 1 && depth != 0)
          unsupported(axes->batch.line, "batch", std::to_string(v),
                      "a batch starts every sequence at depth 0; context_depth " + std::to_string(depth) +
                          " runs at batch 1");
    for (size_t v : axes->batch.values)
      for (const auto& cache : axes->kv_cache.values)
        if (v != 1 && cache != "on")
          unsupported(axes->batch.line, "batch", std::to_string(v),
                      "continuous batching keeps every sequence's K/V; kv_cache \"off\" runs at batch 1");
    for (const auto& v : axes->weight_type.values)
      if (v != "file" && s.model_like.empty())
        unsupported(axes->weight_type.line, "weight_type", "\"" + v + "\"",
                    "a model file runs its weights as stored; a synthetic model ('like') runs any type");
    // The Generator shares the previous request's prompt blocks: one
    // sequence from position 0, its K/V kept.
    if (std::find(axes->prefix_sharing.values.begin(), axes->prefix_sharing.values.end(), "on") !=
        axes->prefix_sharing.values.end()) {
      const auto unsupported_with = [&](const std::string& why) {
        unsupported(axes->prefix_sharing.line, "prefix_sharing", "\"on\"", why);
      };
      for (size_t depth : axes->context_depth.values)
        if (depth != 0) unsupported_with("a shared prefix starts at position 0; context_depth " + std::to_string(depth));
      for (size_t batch : axes->batch.values)
        if (batch != 1) unsupported_with("continuous batching does not share prefixes; batch " + std::to_string(batch));
      for (const auto& cache : axes->kv_cache.values)
        if (cache != "on") unsupported_with("kv_cache \"off\" keeps no K/V to share");
    }
  }
}

}  // namespace pdbench::runner
