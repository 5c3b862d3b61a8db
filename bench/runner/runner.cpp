#include "bench/runner/runner.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "bench/runner/measure.h"
#include "bench/runner/models.h"
#include "bench/runner/results.h"
#include "bench/runner/sha256.h"
#include "bench/runner/sysinfo.h"
#include "bench/runner/version.h"
#include "engine/util/error.h"
#include "engine/util/utc_time.h"

namespace pdbench::runner {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A model file loaded once, with the prompts its tokenizer makes.
struct LoadedModel {
  Engine engine;
  std::unique_ptr<PromptMaker> prompts;
};

// One Generator per model file, distinct KV setting and context depth: cases
// that share one reuse its cache (allocated and first touched before any
// timing) and its context snapshot, so a depth is filled once, not once per
// repetition.
std::shared_ptr<Generator> generator_for(const std::string& model_file, const Engine& engine, const Case& c,
                                         size_t capacity, std::map<std::string, std::shared_ptr<Generator>>& made) {
  GeneratorOptions o;
  o.context = capacity;
  o.k_type = parse_kv_type(c.kv_type_k);
  o.v_type = parse_kv_type(c.kv_type_v);
  if (c.kv_block > 0) o.block_tokens = c.kv_block;
  o.kv_cache = c.kv_cache == "on";
  o.prefix_sharing = c.prefix_sharing == "on";
  // A sharing case has its own: the prefix it reuses is its previous run's.
  const std::string key = model_file + "/" + c.kv_type_k + "/" + c.kv_type_v + "/" + std::to_string(o.block_tokens) + "/" +
                          std::to_string(capacity) + "/" + c.kv_cache + "/" + std::to_string(c.context_depth) +
                          (o.prefix_sharing ? "/" + c.id : "");
  auto& g = made[key];
  if (!g) g = std::make_shared<Generator>(engine, o);
  return g;
}

// The precision of the model's prefill GEMMs, as the fast pass stacks its
// layers' matrices (onednn_gemm.h): the compute roof its matmuls meet.
GemmPrecision weights_precision(const Model& model) {
  const LayerWeights& layer = model.weights().layers.front();
  const MatrixView qkv[] = {layer.wq, layer.wk, layer.wv};
  return gemm_precision(qkv);
}

nlohmann::json model_json(const Scenario& s, const std::string& weight_type, const std::string& file,
                          const Engine& engine) {
  const ModelConfig& config = engine.model().config();
  nlohmann::json j = {{"path", file},
                      {"sha256", sha256_file(file)},
                      {"file_bytes", fs::file_size(file)},
                      {"weights_bytes", engine.model().weight_bytes()},
                      {"gemm_precision", precision_name(weights_precision(engine.model()))},
                      {"architecture", architecture_name(config.arch)},
                      {"layers", config.n_layers},
                      {"dim", config.dim},
                      {"context_length", config.context_length}};
  if (!s.model_like.empty()) {
    j["like"] = s.model_like;
    j["type"] = synthetic_type_for(s, weight_type);
    j["seed"] = s.model_seed;
  }
  return j;
}

// Every repetition of the case is in the samples.
bool complete_case(const Table& samples, const std::string& case_id, size_t repetitions) {
  for (size_t rep = 0; rep < repetitions; ++rep)
    if (!has_sample(samples, case_id, rep)) return false;
  return true;
}

std::string format_duration(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  return buf;
}

// Progress on stderr: a bar redrawn in place on a terminal, one line per run otherwise.
class Progress {
 public:
  Progress(std::FILE* out, size_t total) : out_(out), tty_(out && isatty(fileno(out))), total_(total) {}

  void note(const std::string& line) {
    if (!out_) return;
    std::fprintf(out_, "%s%s\n", tty_ ? "\r\033[K" : "", line.c_str());
    std::fflush(out_);
  }

  void run_done(const std::string& what) {
    ++done_;
    if (!out_) return;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    const double eta = elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_);
    if (tty_) {
      constexpr size_t kWidth = 30;
      const size_t filled = total_ ? kWidth * done_ / total_ : kWidth;
      std::fprintf(out_, "\r\033[K[%s%s] %zu/%zu ETA %s  %s", std::string(filled, '#').c_str(),
                   std::string(kWidth - filled, '.').c_str(), done_, total_, format_duration(eta).c_str(),
                   what.c_str());
      if (done_ == total_) std::fputc('\n', out_);
    } else {
      std::fprintf(out_, "[%zu/%zu] %s, ETA %s\n", done_, total_, what.c_str(), format_duration(eta).c_str());
    }
    std::fflush(out_);
  }

 private:
  std::FILE* out_;
  bool tty_;
  size_t total_;
  size_t done_ = 0;
  Clock::time_point start_ = Clock::now();
};

}  // namespace

std::string bundled_corpus() { return PDBENCH_BUNDLED_CORPUS; }

RunReport run_scenario(const Scenario& scenario, const RunOptions& options, std::FILE* progress_out) {
  require_supported(scenario);
  const std::vector<Case> cases = select_shard(expand(scenario), options.shard);
  const fs::path dir = options.out_dir;
  fs::create_directories(dir);
  remove_stale_temporaries(dir.string());
  const std::string scenario_hash = sha256_hex(scenario.text);
  const fs::path meta_path = dir / "meta.json";

  Results results = empty_results();
  nlohmann::json previous;  // the meta.json of the run being resumed
  if (fs::exists(dir / "samples.csv") || fs::exists(meta_path)) {
    if (!options.resume)
      throw Error(dir.string() + ": already holds results; pass --resume to continue them or choose another -o");
    std::ifstream in(meta_path);
    previous = nlohmann::json::parse(in, nullptr, false);
    if (previous.is_discarded() || previous.value("/scenario/sha256"_json_pointer, std::string()) != scenario_hash)
      throw Error(meta_path.string() + ": these results come from a different scenario; use a new -o folder");
    results = load_results(dir.string());
  }

  // Every weight_type's model, loaded before any timing (a synthetic one is
  // generated on first use); in every shard, so shards describe the same models.
  std::vector<std::string> weight_types;  // in order of first appearance
  for (const SweepAxes* axes : scenario.sweeps())
    for (const std::string& w : axes->weight_type.values)
      if (std::find(weight_types.begin(), weight_types.end(), w) == weight_types.end()) weight_types.push_back(w);
  std::map<std::string, std::string> file_of;  // weight_type -> model file
  std::map<std::string, LoadedModel> models;   // by file; nodes stay put, Generators refer to them
  for (const std::string& w : weight_types) {
    const std::string file = model_file_for(scenario, w, progress_out);
    file_of[w] = file;
    if (models.contains(file)) continue;
    LoadedModel& m = models.emplace(file, LoadedModel{Engine::load(file, scenario.tokenizer), nullptr}).first->second;
    m.prompts = std::make_unique<PromptMaker>(scenario, m.engine.tokenizer(), bundled_corpus());
  }
  std::vector<PreparedCase> prepared;
  std::vector<const Engine*> engine_of;  // per prepared case
  std::map<std::string, std::shared_ptr<Generator>> generators;
  // Without kv_capacity, the cache holds what the longest case needs (a
  // model's trained context can be far more memory than any case uses).
  size_t longest = 0;
  for (const Case& c : cases) longest = std::max(longest, c.context_depth + c.prompt_tokens + c.output_tokens);
  const RunNumbers numbers{scenario.warmup_max};
  for (const Case& c : cases) {
    const std::string& file = file_of.at(c.weight_type);
    const LoadedModel& m = models.at(file);
    PreparedCase p{c, {}, m.prompts->context(c.context_depth), scenario.strategies.at(c.sampling),
                   c.kv_capacity > 0 ? c.kv_capacity : std::min(longest, m.engine.model().config().context_length),
                   nullptr, nullptr, options.stop, options.decode_delay_us};
    if (c.shared_prefix_tokens == 0)
      p.prompts.push_back(m.prompts->prompt(c.prompt_tokens));
    else
      for (size_t run = 0; run < numbers.count(scenario.repetitions); ++run)
        p.prompts.push_back(m.prompts->prompt_variant(c.prompt_tokens, c.shared_prefix_tokens, run));
    p.generator = generator_for(file, m.engine, c, p.capacity, generators);
    if (c.batch > 1) {
      GeneratorOptions o;
      o.context = c.prompt_tokens + c.output_tokens;
      o.k_type = parse_kv_type(c.kv_type_k);
      o.v_type = parse_kv_type(c.kv_type_v);
      if (c.kv_block > 0) o.block_tokens = c.kv_block;
      p.batcher = std::make_shared<BatchGenerator>(m.engine, o, c.batch);
    }
    const size_t needed = c.context_depth + c.prompt_tokens + c.output_tokens;
    if (needed > p.capacity)
      throw Error((c.trace_row > 0 ? scenario.trace + ":" + std::to_string(c.trace_row) : scenario.path) +
                  ": case " + c.id + ": context_depth + prompt_tokens + output_tokens = " + std::to_string(needed) +
                  " exceeds the KV capacity of " + std::to_string(p.capacity) + " tokens");
    prepared.push_back(std::move(p));
    engine_of.push_back(&m.engine);
  }

  const nlohmann::json facts = system_facts();
  const std::optional<Limits> limits = cached_limits(facts);
  const std::string& first_type = weight_types.front();
  nlohmann::json meta = {
      {"pdbench_version", pdbench_version()},
      {"command_line", options.command_line},
      {"scenario", {{"name", scenario.name}, {"path", scenario.path}, {"sha256", scenario_hash}, {"text", scenario.text}}},
      {"model", model_json(scenario, first_type, file_of.at(first_type), models.at(file_of.at(first_type)).engine)},
      {"shard", std::to_string(options.shard.k) + "/" + std::to_string(options.shard.n)},
      {"cases", cases.size()},
      {"repetitions", scenario.repetitions},
      {"started_at", utc_now()},
      {"finished_at", nullptr},
      {"fingerprint", fingerprint(facts, limits)},
  };
  if (weight_types.size() > 1) {
    meta["models"] = nlohmann::json::object();
    for (const auto& [w, file] : file_of) meta["models"][w] = model_json(scenario, w, file, models.at(file).engine);
  }
  if (!scenario.trace.empty())
    meta["trace"] = {{"path", scenario.trace},
                     {"sha256", sha256_file(scenario.trace)},
                     {"rows", scenario.trace_rows.rows.size()},
                     {"arrival_column", scenario.trace_rows.arrival_column}};
  if (previous.contains("started_at")) {
    meta["started_at"] = previous["started_at"];
    meta["resumed_at"] = utc_now();
  }
  RssHighWater rss;
  meta["rss_high_water_reset"] = rss.resettable();
  const auto write_meta = [&] { write_file_atomic(meta_path.string(), meta.dump(2) + "\n"); };
  write_meta();

  RunReport report;
  report.cases = cases.size();
  std::vector<std::vector<size_t>> pending(prepared.size());  // reps still to run, per case
  size_t total = 0;
  for (size_t i = 0; i < prepared.size(); ++i)
    for (size_t rep = 0; rep < scenario.repetitions; ++rep) {
      if (has_sample(results.samples, prepared[i].spec.id, rep)) {
        ++report.runs_reused;
      } else {
        pending[i].push_back(rep);
        ++total;
      }
    }
  const size_t budget = options.max_runs > 0 ? std::min(options.max_runs, total) : total;
  Progress progress(progress_out, budget);
  if (report.runs_reused > 0)
    progress.note("resuming: " + std::to_string(report.runs_reused) + " runs already in " + dir.string());

  // A stop request ends the session between runs, or abandons the run in
  // progress (RunInterrupted): only finished runs reach the files.
  const auto stopped = [&] { return options.stop != nullptr && options.stop->load() != 0; };
  std::vector<WarmUp> warmups(prepared.size());
  std::vector<MemoryPeaks> memory(prepared.size());
  RunContext context{0, GemmPrecision::F32, 0, {}, limits};
  // Each flush fsyncs four files, which can cost more than a small run: flush
  // at most every kFlushSeconds and whenever a case completes, so an
  // interruption loses at most that much work.
  constexpr double kFlushSeconds = 2.0;
  auto last_flush = Clock::now();
  try {
    for (size_t i = 0; i < prepared.size() && !stopped(); ++i) {
      if (pending[i].empty()) continue;
      warmups[i] = warm_up(prepared[i], scenario.warmup_max, scenario.warmup_window,
                           scenario.warmup_tolerance_pct);
      memory[i] = probe_memory(prepared[i], rss, numbers.probe());
      progress.note("warm-up " + prepared[i].spec.id + ": " + std::to_string(warmups[i].runs) + " runs, " +
                    (warmups[i].stable ? "stable" : "not stable"));
    }
    for (size_t round = 0; round < scenario.repetitions && report.runs < budget && !stopped(); ++round)
      for (size_t i = 0; i < prepared.size() && report.runs < budget && !stopped(); ++i) {
        if (round >= pending[i].size()) continue;
        const size_t rep = pending[i][round];
        const RunResult run = run_once(prepared[i], numbers.repetition(rep));
        context.weights_bytes = engine_of[i]->model().weight_bytes();
        context.weights_precision = weights_precision(engine_of[i]->model());
        context.peak_rss_kib = rss.process_peak_kib();
        context.memory = memory[i];
        append_run(results, prepared[i], rep, warmups[i], run, context);
        ++report.runs;
        const bool case_done = rep + 1 == scenario.repetitions || report.runs == budget;
        if (case_done || std::chrono::duration<double>(Clock::now() - last_flush).count() >= kFlushSeconds) {
          write_results(dir.string(), results);
          last_flush = Clock::now();
        }
        char what[160];
        std::snprintf(what, sizeof what, "%s rep %zu/%zu: TTFT %.3f ms, E2E %.3f ms", prepared[i].spec.id.c_str(),
                      rep + 1, scenario.repetitions, run.timings.ttft_ms, run.timings.e2e_ms);
        progress.run_done(what);
      }
  } catch (const RunInterrupted&) {
    // Abandoned mid-run: nothing of that run was appended.
  }
  write_results(dir.string(), results);
  report.complete = report.runs == total;
  report.stopped_by = report.complete || !stopped() ? 0 : options.stop->load();
  for (const PreparedCase& p : prepared)
    report.cases_complete += complete_case(results.samples, p.spec.id, scenario.repetitions) ? 1 : 0;
  if (report.complete) meta["finished_at"] = utc_now();
  write_meta();
  report.summary = summary_table(results.samples, results.steps);
  return report;
}

}  // namespace pdbench::runner
