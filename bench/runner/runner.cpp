#include "bench/runner/runner.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "bench/runner/accuracy_run.h"
#include "bench/runner/folder_lock.h"
#include "bench/runner/load_requests.h"
#include "bench/runner/machine_load.h"
#include "bench/runner/measure.h"
#include "bench/runner/meta_json.h"
#include "bench/runner/models.h"
#include "bench/runner/progress.h"
#include "bench/runner/results.h"
#include "bench/runner/sha256.h"
#include "bench/runner/sysinfo.h"
#include "bench/runner/version.h"
#include "engine/model/fast_forward.h"
#include "engine/model/model.h"
#include "engine/model/quant_mix.h"
#include "engine/model/synthetic_model.h"
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
  std::string sha256;  // of the file, hashed once however many weight types share it
  ModelColumns columns;
};

// The engine options a case asks for, with KV room for `capacity` tokens.
GeneratorOptions generator_options(const Case& c, size_t capacity) {
  GeneratorOptions o;
  o.context = capacity;
  o.k_type = parse_kv_type(c.kv_type_k);
  o.v_type = parse_kv_type(c.kv_type_v);
  if (c.kv_block > 0) o.block_tokens = c.kv_block;
  o.kv_cache = c.kv_cache == "on";
  o.prefix_sharing = c.prefix_sharing == "on";
  return o;
}

// One Generator per model file, distinct KV setting and context depth: cases
// that share one reuse its cache (allocated and first touched before any
// timing) and its context snapshot, so a depth is filled once, not once per
// repetition.
std::shared_ptr<Generator> generator_for(const std::string& model_file, const Engine& engine, const Case& c,
                                         size_t capacity, std::map<std::string, std::shared_ptr<Generator>>& made) {
  const GeneratorOptions o = generator_options(c, capacity);
  // A sharing case has its own: the prefix it reuses is its previous run's.
  const std::string key = model_file + "/" + c.kv_type_k + "/" + c.kv_type_v + "/" + std::to_string(o.block_tokens) + "/" +
                          std::to_string(capacity) + "/" + c.kv_cache + "/" + std::to_string(c.context_depth) +
                          (o.prefix_sharing ? "/" + c.id : "");
  auto& g = made[key];
  if (!g) g = std::make_shared<Generator>(engine, o);
  return g;
}

// The facts of one weight type's model.
nlohmann::json model_json(const Scenario& s, const std::string& weight_type, const std::string& file,
                          const LoadedModel& model) {
  const Engine& engine = model.engine;
  const ModelConfig& config = engine.model().config();
  nlohmann::json j = {{"path", file},
                      {"sha256", model.sha256},
                      {"weights", model.columns.weights},
                      {"file_bytes", fs::file_size(file)},
                      {"weights_bytes", engine.model().weight_bytes()},
                      {"gemm_precision", gemm_precision_name(prefill_precision(engine.model()))},
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

// The thread counts of the plan above the CPUs the process may use: they
// run, but their timings measure threads waiting for a core.
std::vector<size_t> oversubscribed_threads(const std::vector<Case>& cases) {
  const auto cpus = static_cast<size_t>(omp_get_num_procs());
  std::vector<size_t> over;
  for (const Case& c : cases)
    if (c.threads > cpus && std::find(over.begin(), over.end(), c.threads) == over.end()) over.push_back(c.threads);
  return over;
}

bool stop_requested(const RunOptions& options) { return options.stop != nullptr && options.stop->load() != 0; }

// What a run starts from: this shard's cases, and what its folder already
// holds when it resumes.
struct RunPlan {
  std::vector<Case> cases;
  fs::path dir;
  std::string scenario_hash;
  Results results = empty_results();
  nlohmann::json previous;  // the meta.json of the run being resumed, or null
};

// Where requests ran, as meta.json's target records it (none: before
// targets, in process) and as a scenario asks.
std::string target_name(const nlohmann::json& meta) {
  using P = nlohmann::json::json_pointer;
  return meta.value(P("/target/kind"), std::string("engine")) == "openai"
             ? "the server at " + meta.value(P("/target/url"), std::string())
             : "the in-process engine";
}
std::string target_name(const Target& t) { return t.remote() ? "the server at " + t.url : "the in-process engine"; }

RunPlan plan_run(const Scenario& scenario, const RunOptions& options) {
  RunPlan plan;
  plan.cases = checked_cases(scenario, options.shard);
  plan.dir = options.out_dir;
  plan.scenario_hash = sha256_hex(scenario.text);
  const fs::path meta_path = plan.dir / "meta.json";
  if (!fs::exists(plan.dir / "samples.csv") && !fs::exists(meta_path)) return plan;
  if (!options.resume)
    throw Error(plan.dir.string() + ": already holds results; pass --resume to continue them or choose another -o");
  plan.previous = read_meta_json(plan.dir.string());
  if (plan.previous.value("/scenario/sha256"_json_pointer, std::string()) != plan.scenario_hash)
    throw Error(meta_path.string() + ": these results come from a different scenario; use a new -o folder");
  // --target is not in a scenario file's text, so the target is checked apart.
  const std::string measured_on = target_name(plan.previous), asked = target_name(scenario.target);
  if (measured_on != asked)
    throw Error(meta_path.string() + ": these results were measured on " + measured_on + ", not " + asked +
                "; use a new -o folder");
  plan.results = load_results(plan.dir.string());
  return plan;
}

// Every weight_type's model, loaded before any timing (a synthetic one is
// generated on first use), in every shard, so shards describe the same
// models; and each case ready to run on its model.
struct PreparedRun {
  std::vector<std::string> weight_types;      // in order of first appearance
  std::map<std::string, std::string> file_of;  // weight_type -> model file
  std::map<std::string, LoadedModel> models;   // by file; nodes stay put, Generators refer to them
  std::map<std::string, std::shared_ptr<Generator>> generators;
  // Load cases with the same model, KV settings, slots and longest request
  // share one: a sweep of rates allocates its cache once, not per rate.
  std::map<std::string, std::shared_ptr<BatchGenerator>> load_batchers;
  std::vector<PreparedCase> cases;
  std::vector<const LoadedModel*> model_of;  // per prepared case
  // [target] kind = "openai": the server every case runs on; the models
  // above then only tokenize and make prompts.
  std::shared_ptr<OpenAiTarget> remote;
};

void load_models(const Scenario& scenario, PreparedRun& run, std::FILE* progress_out) {
  for (const SweepAxes* axes : scenario.sweeps())
    for (const std::string& w : axes->weight_type.values)
      if (std::find(run.weight_types.begin(), run.weight_types.end(), w) == run.weight_types.end())
        run.weight_types.push_back(w);
  for (const std::string& w : run.weight_types) {
    const std::string file = model_file_for(scenario, w, progress_out);
    run.file_of[w] = file;
    if (run.models.contains(file)) continue;
    LoadedModel& m = run.models.emplace(file, LoadedModel{Engine::load(file, scenario.tokenizer), nullptr, {}, {}}).first->second;
    m.prompts = std::make_unique<PromptMaker>(scenario, m.engine.tokenizer(), bundled_corpus());
    m.sha256 = sha256_file(file);
    m.columns = {fs::path(file).filename().string(), m.sha256.substr(0, 12), weight_types_label(m.engine.model())};
  }
}

// A remote target is sent token ids, so a prompt's length is exact
// whatever the server's tokenizer: a text prompt is encoded here, where
// PromptMaker chose it to encode to exactly its length.
void as_token_ids(const Tokenizer& tokenizer, PreparedCase& p) {
  for (PromptInput& prompt : p.prompts)
    if (prompt.is_text()) prompt = {"", tokenizer.encode(prompt.text, true)};
  for (std::vector<GenerateRequest>& requests : p.load_runs)
    for (GenerateRequest& r : requests)
      if (r.prompt_ids.empty()) {
        r.prompt_ids = tokenizer.encode(r.prompt, true);
        r.prompt.clear();
      }
}

// A case checked_cases() let through.
PreparedCase prepare_case(const Scenario& scenario, const RunOptions& options, const Case& c, size_t longest,
                          PreparedRun& run) {
  const std::string& file = run.file_of.at(c.weight_type);
  const LoadedModel& m = run.models.at(file);
  PreparedCase p{c,
                 {},
                 m.prompts->context(c.context_depth),
                 scenario.strategies.at(c.sampling),
                 case_capacity(c, longest, m.engine.model().config().context_length),
                 nullptr,
                 nullptr,
                 nullptr,
                 options.stop,
                 options.decode_delay_us,
                 {},
                 {}};
  const size_t runs = RunNumbers{scenario.warmup_max}.count(scenario.repetitions);
  for (size_t r = 0; r < runs; ++r)
    p.prompts.push_back(c.shared_prefix_tokens == 0
                            ? m.prompts->prompt(c.prompt_tokens, c.id, r)
                            : m.prompts->prompt_variant(c.prompt_tokens, c.shared_prefix_tokens, c.id, r));
  // One kind of input per case: a run given ids would skip the tokenizing the others time.
  if (!std::ranges::all_of(p.prompts, &PromptInput::is_text)) as_token_ids(m.engine.tokenizer(), p);
  if (run.remote) {
    p.remote = run.remote;
    if (c.is_load()) prepare_load(scenario, *m.prompts, p);
    as_token_ids(m.engine.tokenizer(), p);
    return p;
  }
  p.generator = generator_for(file, m.engine, c, p.capacity, run.generators);
  // A batch's options.context is one sequence's.
  if (c.is_load()) {
    const std::string key = file + "/" + c.kv_type_k + "/" + c.kv_type_v + "/" + std::to_string(c.kv_block) + "/" +
                            std::to_string(case_tokens(c)) + "/" + std::to_string(c.load.max_concurrency);
    auto& batcher = run.load_batchers[key];
    if (!batcher)
      batcher = std::make_shared<BatchGenerator>(m.engine, generator_options(c, case_tokens(c)), c.load.max_concurrency);
    p.batcher = batcher;
    prepare_load(scenario, *m.prompts, p);
  } else if (c.batch > 1)
    p.batcher = std::make_shared<BatchGenerator>(m.engine, generator_options(c, c.prompt_tokens + c.output_tokens),
                                                 c.batch);
  return p;
}

PreparedRun prepare_run(const Scenario& scenario, const RunOptions& options, const std::vector<Case>& cases,
                        std::FILE* progress_out) {
  PreparedRun run;
  // The server first: one that cannot be reached fails before any model is made.
  if (scenario.target.remote()) run.remote = std::make_shared<OpenAiTarget>(scenario.target);
  load_models(scenario, run, progress_out);
  const size_t longest = longest_case(cases);
  for (const Case& c : cases) {
    run.cases.push_back(prepare_case(scenario, options, c, longest, run));
    run.model_of.push_back(&run.models.at(run.file_of.at(c.weight_type)));
  }
  return run;
}

nlohmann::json target_json(const PreparedRun& run) { return run.remote ? run.remote->describe() : engine_target_json(); }

// meta.json as the run starts (docs/RESULTS.md); finished_at stays null
// until every case has every repetition.
nlohmann::json run_meta(const Scenario& scenario, const RunOptions& options, const RunPlan& plan,
                        const PreparedRun& run, const nlohmann::json& fingerprint_json) {
  std::map<std::string, nlohmann::json> model_of;  // weight_type -> its model's facts
  for (const auto& [w, file] : run.file_of) model_of[w] = model_json(scenario, w, file, run.models.at(file));
  nlohmann::json meta = {
      {"pdbench_version", pdbench_version()},
      {"command_line", options.command_line},
      {"scenario",
       {{"name", scenario.name}, {"path", scenario.path}, {"sha256", plan.scenario_hash}, {"text", scenario.text}}},
      {"model", model_of.at(run.weight_types.front())},
      {"shard", std::to_string(options.shard.k) + "/" + std::to_string(options.shard.n)},
      {"cases", plan.cases.size()},
      {"repetitions", scenario.repetitions},
      {"started_at", utc_now()},
      {"finished_at", nullptr},
      {"fingerprint", fingerprint_json},
      {"target", target_json(run)},
  };
  if (run.weight_types.size() > 1) meta["models"] = model_of;
  if (!scenario.trace.empty())
    meta["trace"] = {{"path", scenario.trace},
                     {"sha256", sha256_file(scenario.trace)},
                     {"rows", scenario.trace_rows.rows.size()},
                     {"arrival_column", scenario.trace_rows.arrival_column}};
  if (plan.previous.contains("started_at")) {
    meta["started_at"] = plan.previous["started_at"];
    meta["resumed_at"] = utc_now();
  }
  return meta;
}

// The repetitions still to run, per case: a resumed folder has some.
std::vector<std::vector<size_t>> pending_reps(const RunPlan& plan, const PreparedRun& run, size_t repetitions,
                                              RunReport& report) {
  std::vector<std::vector<size_t>> pending(run.cases.size());
  for (size_t i = 0; i < run.cases.size(); ++i)
    for (size_t rep = 0; rep < repetitions; ++rep) {
      if (has_sample(plan.results.samples, run.cases[i].spec.id, rep))
        ++report.runs_reused;
      else
        pending[i].push_back(rep);
    }
  return pending;
}

// Warm-up and the memory probe for every case with runs to do, then the
// repetitions round-robin over the cases (machine drift spreads over all of
// them), results rewritten as they come. A stop request ends the session
// between runs, or abandons the run in progress (RunInterrupted): only
// finished runs reach the files.
void measure(const Scenario& scenario, const RunOptions& options, RunPlan& plan, PreparedRun& run,
             const std::vector<std::vector<size_t>>& pending, size_t budget, const std::optional<Limits>& limits,
             RssHighWater& rss, MachineLoad& load, Progress& progress, RunReport& report) {
  const auto stopped = [&] { return stop_requested(options); };
  const RunNumbers numbers{scenario.warmup_max};
  std::vector<WarmUp> warmups(run.cases.size());
  std::vector<MemoryPeaks> memory(run.cases.size());
  RunContext context{{}, 0, GemmPrecision::F32, 0, {}, limits, scenario.sla};
  // Each flush fsyncs four files, which can cost more than a small run: flush
  // at most every kFlushSeconds and whenever a case completes, so an
  // interruption loses at most that much work.
  constexpr double kFlushSeconds = 2.0;
  auto last_flush = Clock::now();
  load.measurements_start();
  try {
    for (size_t i = 0; i < run.cases.size() && !stopped(); ++i) {
      if (pending[i].empty()) continue;
      warmups[i] = warm_up(run.cases[i], scenario.warmup_max, scenario.warmup_window, scenario.warmup_tolerance_pct);
      memory[i] = probe_memory(run.cases[i], rss, numbers.probe());
      progress.note("warm-up " + run.cases[i].spec.id + ": " +
                    (warmups[i].runs == 0 ? std::string("none (warmup_max = 0)")
                                          : std::to_string(warmups[i].runs) + " runs, " +
                                                (warmups[i].stable ? "stable" : "not stable")));
    }
    for (size_t round = 0; round < scenario.repetitions && report.runs < budget && !stopped(); ++round)
      for (size_t i = 0; i < run.cases.size() && report.runs < budget && !stopped(); ++i) {
        if (round >= pending[i].size()) continue;
        const size_t rep = pending[i][round];
        const RunResult result = run_once(run.cases[i], numbers.repetition(rep));
        load.between_runs();
        // A served case ran the server's model: its name, nothing of its file.
        context.model = run.remote ? ModelColumns{run.remote->model(), "", ""} : run.model_of[i]->columns;
        if (!run.remote) {  // a server's weights and memory are not this process's to read
          const Model& model = run.model_of[i]->engine.model();
          context.weights_bytes = model.weight_bytes();
          context.weights_precision = prefill_precision(model);
          context.peak_rss_kib = rss.process_peak_kib();
        }
        context.memory = memory[i];
        append_run(plan.results, run.cases[i], rep, warmups[i], result, context);
        ++report.runs;
        const bool case_done = rep + 1 == scenario.repetitions || report.runs == budget;
        if (case_done || std::chrono::duration<double>(Clock::now() - last_flush).count() >= kFlushSeconds) {
          write_results(plan.dir.string(), plan.results);
          last_flush = Clock::now();
        }
        char what[160];
        std::snprintf(what, sizeof what, "%s rep %zu/%zu: TTFT %.3f ms, E2E %.3f ms", run.cases[i].spec.id.c_str(),
                      rep + 1, scenario.repetitions, result.timings.ttft_ms, result.timings.e2e_ms);
        progress.run_done(what);
      }
  } catch (const RunInterrupted&) {
    // Abandoned mid-run: nothing of that run was appended.
  }
}

// A probe of a rate search: the setting's load case at that rate.
Case probe_case(const Case& setting, double rate, size_t index) {
  Case c = setting;
  c.load.request_rate = rate;
  c.index = index;
  c.id = case_id(c);
  return c;
}

// Whether summary.csv's row of the case says it met the SLA.
bool sla_met(const Table& summary, const std::string& case_id) {
  const size_t id = summary.column("case_id"), met = summary.column("sla_met");
  for (const auto& row : summary.rows)
    if (row[id] == case_id) return row[met] == "1";
  return false;
}

// meta.json's "rate_search": per setting (named by its case id with the
// rate part "_rsearch"), each probe measured whole and the answer.
nlohmann::json search_json(const PreparedRun& run, const std::vector<std::vector<RateProbe>>& done,
                           const std::vector<std::vector<std::string>>& ids) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t g = 0; g < done.size(); ++g) {
    std::string setting = run.cases[g].spec.id;
    if (const size_t at = setting.find("_rinf_"); at != std::string::npos) setting.replace(at, 6, "_rsearch_");
    nlohmann::json probes = nlohmann::json::array();
    for (size_t k = 0; k < done[g].size(); ++k)
      probes.push_back({{"request_rate", done[g][k].rate}, {"case_id", ids[g][k]}, {"sla_met", done[g][k].met}});
    const std::optional<double> best = highest_rate_met(done[g]);
    out.push_back({{"setting", setting},
                   {"probes", probes},
                   {"highest_rate_met", best ? nlohmann::json(*best) : nlohmann::json(nullptr)}});
  }
  return out;
}

// [rate_search]: every case of the plan is a load setting, not run itself
// but searched (rate_search.h) in rounds, one probe of each setting a round
// so machine drift spreads over all of them. A probe's repetitions already
// in the folder are reused (--resume), so a resumed search retraces the
// same rates. Returns meta.json's "rate_search": per setting its probes
// and the highest rate met; `finished` when every search ended unstopped.
nlohmann::json search_rates(const Scenario& scenario, const RunOptions& options, RunPlan& plan, PreparedRun& run,
                            size_t budget, const std::optional<Limits>& limits, RssHighWater& rss, MachineLoad& load,
                            Progress& progress, RunReport& report, bool& finished) {
  const RateSearch& search = *scenario.rate_search;
  const size_t settings = run.cases.size(), expanded = expand(scenario).size(), longest = longest_case(plan.cases);
  std::vector<std::vector<RateProbe>> done(settings);
  std::vector<std::vector<std::string>> ids(settings);
  finished = false;
  while (!stop_requested(options) && report.runs < budget) {
    std::vector<std::vector<size_t>> pending(run.cases.size());
    std::vector<std::pair<size_t, double>> round;  // setting, rate
    for (size_t g = 0; g < settings; ++g) {
      const std::optional<double> rate = next_probe_rate(search, done[g]);
      if (!rate) continue;
      const Case& setting = run.cases[g].spec;
      const Case c = probe_case(setting, *rate, expanded + setting.index * search.probes + done[g].size());
      run.cases.push_back(prepare_case(scenario, options, c, longest, run));
      run.model_of.push_back(run.model_of[g]);
      pending.emplace_back();
      for (size_t rep = 0; rep < scenario.repetitions; ++rep)
        if (has_sample(plan.results.samples, c.id, rep)) ++report.runs_reused;
        else pending.back().push_back(rep);
      round.emplace_back(g, *rate);
      ids[g].push_back(c.id);
    }
    if (round.empty()) break;
    measure(scenario, options, plan, run, pending, budget, limits, rss, load, progress, report);
    const Table summary = summary_table(plan.results.samples, plan.results.steps, plan.results.requests);
    for (const auto& [g, rate] : round) {
      if (!complete_case(plan.results.samples, ids[g].back(), scenario.repetitions)) return search_json(run, done, ids);
      done[g].push_back({rate, sla_met(summary, ids[g].back())});
      progress.note("rate search " + run.cases[g].spec.id + ": " + csv_number(rate) + " req/s " +
                    (done[g].back().met ? "meets" : "misses") + " the SLA");
    }
  }
  // Over when no setting has a rate left to probe: the last round may have
  // spent the whole budget, a search of `probes` probes does.
  finished = std::none_of(done.begin(), done.end(),
                          [&](const std::vector<RateProbe>& d) { return next_probe_rate(search, d).has_value(); });
  return search_json(run, done, ids);
}

// The context length of the model each weight type runs, from the file's
// header (no weight is read) or the synthetic model's preset.
size_t model_context(const Scenario& scenario) {
  return scenario.model_like.empty() ? Model::load(scenario.model).config().context_length
                                     : preset_config(scenario.model_like).context_length;
}

}  // namespace

size_t longest_case(const std::vector<Case>& cases) {
  size_t longest = 0;
  for (const Case& c : cases) longest = std::max(longest, case_tokens(c));
  return longest;
}

size_t case_capacity(const Case& c, size_t longest, size_t model_context_length) {
  return c.kv_capacity > 0 ? c.kv_capacity : std::min(longest, model_context_length);
}

std::vector<Case> checked_cases(const Scenario& scenario, Shard shard) {
  require_supported(scenario);
  const std::vector<Case> all = expand(scenario);
  const size_t context = model_context(scenario);
  const size_t longest = longest_case(all);
  for (const Case& c : all) {
    const size_t needed = case_tokens(c);  // a load case's longest request
    const size_t capacity = case_capacity(c, longest, context);
    if (needed <= capacity) continue;
    const std::string where = c.trace_row > 0 ? scenario.trace + ":" + std::to_string(c.trace_row) : scenario.path;
    throw Error(where + ": case " + c.id +
                (c.is_load() ? ": its longest request's prompt + output tokens = "
                             : ": context_depth + prompt_tokens + output_tokens = ") +
                std::to_string(needed) + " exceeds the " +
                (c.kv_capacity > 0 ? "kv_capacity of " + std::to_string(capacity)
                                   : "model's context length of " + std::to_string(context)) +
                " tokens");
  }
  return select_shard(all, shard);
}

std::string bundled_corpus() { return PDBENCH_BUNDLED_CORPUS; }

RunReport run_scenario(const Scenario& scenario, const RunOptions& options, std::FILE* progress_out) {
  // "before" spans the preparation: other processes' CPU time, not this one's.
  MachineLoad load(serves_from_this_machine(scenario.target));
  RunPlan plan = plan_run(scenario, options);
  PreparedRun run = prepare_run(scenario, options, plan.cases, progress_out);
  std::optional<AccuracyRun> accuracy;  // checked now, scored after the timings
  if (scenario.accuracy)
    accuracy.emplace(scenario, accuracy_configs(plan.cases),
                     [&run](const std::string& w) -> const Engine& { return run.models.at(run.file_of.at(w)).engine; },
                     bundled_corpus());

  // Made only now, so a run refused by any check above leaves no folder.
  fs::create_directories(plan.dir);
  const FolderLock lock(plan.dir.string());
  remove_stale_temporaries(plan.dir.string());
  const nlohmann::json facts = system_facts();
  const std::optional<Limits> limits = options.measure_limits ? current_limits(facts) : cached_limits(facts);
  nlohmann::json meta = run_meta(scenario, options, plan, run, fingerprint(facts, limits));
  const std::vector<size_t> oversubscribed = oversubscribed_threads(plan.cases);
  if (!oversubscribed.empty()) meta["oversubscribed_threads"] = oversubscribed;
  RssHighWater rss;
  meta["rss_high_water_reset"] = rss.resettable();
  meta["machine_load"] = load.json();
  const std::string meta_path = (plan.dir / "meta.json").string();
  write_file_atomic(meta_path, meta.dump(2) + "\n");

  RunReport report;
  report.cases = plan.cases.size();
  const bool searching = scenario.rate_search.has_value();
  // A search's runs are known only as it goes: its progress counts the most it can take.
  std::vector<std::vector<size_t>> pending;
  if (!searching) pending = pending_reps(plan, run, scenario.repetitions, report);
  const size_t total = searching ? plan.cases.size() * scenario.rate_search->probes * scenario.repetitions
                                 : plan.cases.size() * scenario.repetitions - report.runs_reused;
  const size_t budget = options.max_runs > 0 ? std::min(options.max_runs, total) : total;
  Progress progress(progress_out, budget);
  if (report.runs_reused > 0)
    progress.note("resuming: " + std::to_string(report.runs_reused) + " runs already in " + plan.dir.string());
  for (size_t threads : oversubscribed)
    progress.note("threads " + std::to_string(threads) + " is more than the " + std::to_string(omp_get_num_procs()) +
                  " CPUs this process may use: oversubscribed, so its timings include threads waiting for a core");
  if (options.ending_at_once != nullptr) *options.ending_at_once = false;
  bool search_finished = false;
  if (searching)
    meta["rate_search"] =
        search_rates(scenario, options, plan, run, budget, limits, rss, load, progress, report, search_finished);
  else
    measure(scenario, options, plan, run, pending, budget, limits, rss, load, progress, report);

  write_results(plan.dir.string(), plan.results);
  report.complete = searching ? search_finished : report.runs == total;
  report.stopped_by = report.complete || !stop_requested(options) ? 0 : options.stop->load();
  // A search's settings are not cases of their own: its probes are.
  const size_t first_run_case = searching ? plan.cases.size() : 0;
  if (searching) meta["cases"] = report.cases = run.cases.size() - first_run_case;
  for (size_t i = first_run_case; i < run.cases.size(); ++i)
    report.cases_complete += complete_case(plan.results.samples, run.cases[i].spec.id, scenario.repetitions) ? 1 : 0;
  if (accuracy && report.complete && !read_accuracy(plan.dir.string()))
    write_accuracy(plan.dir.string(), accuracy->score(progress_out));
  if (report.complete) meta["finished_at"] = utc_now();
  meta["machine_load"] = load.json();
  meta["target"] = target_json(run);  // with the model the server's answers named
  write_file_atomic(meta_path, meta.dump(2) + "\n");
  report.summary = summary_table(plan.results.samples, plan.results.steps, plan.results.requests);
  return report;
}

}  // namespace pdbench::runner
