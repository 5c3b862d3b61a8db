// pdbench run: a scenario file (or command-line axes) into a results folder.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <type_traits>
#include <utility>
#include <vector>

#include "bench/pdbench/commands.h"
#include "bench/pdbench/load_flags.h"
#include "bench/pdbench/options.h"
#include "bench/pdbench/results_table.h"
#include "bench/pdbench/stop_signals.h"
#include "bench/pdbench/store_run.h"
#include "bench/pdbench/target_flags.h"
#include "bench/resultsdb/history.h"
#include "bench/runner/machine_load.h"
#include "bench/runner/meta_json.h"
#include "bench/runner/models.h"
#include "bench/runner/runner.h"
#include "bench/runner/scenario.h"
#include "engine/util/error.h"

namespace pdbench::cli {

namespace {

struct RunArgs {
  std::string scenario_file;
  std::string model;
  std::string tokenizer;
  std::vector<size_t> prompt_tokens, output_tokens, depth, threads, batch;
  std::vector<std::string> sampling, cache_type_k, cache_type_v;
  size_t repetitions = 0;
  size_t warmup_max = 0;
  bool warmup_set = false;
  std::string prompt_source;
  std::string out_dir;
  std::string format = "md";
  std::string shard = "1/1";
  bool resume = false;
  bool list_only = false;
  std::string db;
  size_t decode_delay_us = 0;
  LoadFlags load;
  TargetFlags target;
  std::string command_line;
};

// The settings as a command line: recorded in meta.json, and the "scenario
// text" of a run without a file (so --resume checks the same settings).
std::string describe(const RunArgs& a) {
  std::string out = "pdbench run";
  const auto add = [&](const std::string& flag, const std::string& value) {
    if (!value.empty()) out += " " + flag + (flag.empty() ? "" : " ") + value;
  };
  add("", a.scenario_file);
  add("-m", a.model);
  add("--tokenizer", a.tokenizer);
  add("-p", list(a.prompt_tokens));
  add("-n", list(a.output_tokens));
  add("-d", list(a.depth));
  add("-t", list(a.threads));
  add("-b", list(a.batch));
  add("--sampling", list(a.sampling));
  add("--cache-type-k", list(a.cache_type_k));
  add("--cache-type-v", list(a.cache_type_v));
  add("--prompt-source", a.prompt_source);
  describe_load_flags(a.load, add);
  describe_target_flags(a.target, add);
  if (a.repetitions > 0) add("-r", std::to_string(a.repetitions));
  if (a.warmup_set) add("--warmup-max", std::to_string(a.warmup_max));
  if (a.decode_delay_us > 0) add("--test-decode-delay-us", std::to_string(a.decode_delay_us));
  return out;
}

// --list: what a run would do, without loading or generating any model.
void list_cases(const runner::Scenario& s, runner::Shard shard) {
  const auto cases = runner::checked_cases(s, shard);
  std::set<std::string> weight_types;
  for (const runner::SweepAxes* axes : std::as_const(s).sweeps())
    weight_types.insert(axes->weight_type.values.begin(), axes->weight_type.values.end());
  for (const auto& w : weight_types) {
    const std::string file = s.model_like.empty() ? s.model
                                                  : runner::synthetic_model_path(s.model_like,
                                                                                 runner::synthetic_type_for(s, w),
                                                                                 s.model_seed);
    std::printf("model %s: %s%s\n", w.c_str(), file.c_str(),
                s.model_like.empty() || std::filesystem::exists(file) ? "" : " (generated on first run)");
  }
  if (s.target.remote()) std::printf("target openai: %s\n", s.target.url.c_str());
  for (const auto& c : cases) std::printf("%zu %s\n", c.index, c.id.c_str());
  if (s.rate_search) {  // the cases above are settings; their rates come from the search
    std::printf("%zu settings, each searched at up to %zu rates in %g..%g requests/s, x %zu repetitions\n",
                cases.size(), s.rate_search->probes, s.rate_search->low_req_s, s.rate_search->high_req_s,
                s.repetitions);
    return;
  }
  std::printf("%zu cases x %zu repetitions\n", cases.size(), s.repetitions);
}

// llama-bench's -o takes an output format; pdbench's names the results
// folder, so `-o md` would quietly make a folder called md.
void refuse_format_as_folder(const std::string& out_dir) {
  for (const char* format : {"md", "csv", "json", "jsonl", "sql"})
    if (out_dir == format)
      throw Error("-o " + out_dir + ": -o names the results folder, not an output format as llama-bench's -o does "
                  "(pdbench writes CSV files and meta.json there, docs/RESULTS.md); for a folder of that name write ./" +
                  out_dir);
}

void run(const RunArgs& a) {
  runner::Scenario s;
  if (!a.scenario_file.empty()) {
    s = runner::load_scenario(a.scenario_file);
  } else {
    if (a.model.empty()) throw Error("run: name a scenario file or a model (-m FILE)");
    s = runner::default_scenario();
    s.name = "command-line";
    s.text = a.command_line;  // hashed like a file, so --resume checks the same axes
  }
  if (!a.model.empty()) s.model = a.model;
  if (!a.tokenizer.empty()) s.tokenizer = a.tokenizer;
  if (!a.model.empty()) s.model_like.clear();
  if (!s.trace.empty() && (!a.prompt_tokens.empty() || !a.output_tokens.empty()))
    throw Error("run: -p/-n cannot be used with a trace scenario (" + s.trace + " gives the lengths)");
  for (runner::SweepAxes* axes : s.sweeps()) {  // an override applies to every [[sweep]]
    override_axis(axes->prompt_tokens, a.prompt_tokens);
    override_axis(axes->output_tokens, a.output_tokens);
    override_axis(axes->context_depth, a.depth);
    override_axis(axes->threads, a.threads);
    override_axis(axes->batch, a.batch);
    override_axis(axes->sampling, a.sampling);
    override_axis(axes->kv_type_k, a.cache_type_k);
    override_axis(axes->kv_type_v, a.cache_type_v);
  }
  apply_load_flags(a.load, s);
  apply_target_flags(a.target, s);
  for (const auto& name : a.sampling)
    if (!s.strategies.contains(name)) throw Error("run: --sampling " + name + " names no strategy");
  if (a.repetitions > 0) s.repetitions = a.repetitions;
  if (a.warmup_set) s.warmup_max = a.warmup_max;
  if (!a.prompt_source.empty())
    s.prompt_source = a.prompt_source == "random" ? runner::PromptSource::Random : runner::PromptSource::Corpus;
  if (a.list_only) {
    list_cases(s, runner::parse_shard(a.shard));
    return;
  }
  // Opened (and created) before the benchmark, so a database that cannot
  // be reached or is not a history fails now rather than after every run;
  // closed during it, and opened again to store the run.
  if (!a.db.empty()) resultsdb::History{a.db};
  runner::RunOptions options;
  refuse_format_as_folder(a.out_dir);
  options.out_dir = a.out_dir.empty() ? "results/" + s.name : a.out_dir;
  options.resume = a.resume;
  options.shard = runner::parse_shard(a.shard);
  // meta.json's command line names the folder and shard too, which the
  // scenario text of a file-less run leaves out (--resume may change them).
  options.command_line = a.command_line + " -o " + options.out_dir + (a.shard == "1/1" ? "" : " --shard " + a.shard);
  options.decode_delay_us = a.decode_delay_us;
  options.measure_limits = true;
  StopSignals signals;
  options.stop = &signals.received();
  options.ending_at_once = &signals.ending_at_once();
  const runner::RunReport report = runner::run_scenario(s, options, stderr);
  if (report.stopped_by != 0) {
    const std::string shard = a.shard == "1/1" ? "" : " --shard " + a.shard;
    std::fprintf(stderr,
                 "pdbench: stopped by %s: %zu of %zu cases finished, %zu runs measured now; continue with: "
                 "%s -o %s%s --resume\n",
                 signal_name(report.stopped_by), report.cases_complete, report.cases, report.runs,
                 a.command_line.c_str(), options.out_dir.c_str(), shard.c_str());
    throw ExitStatus{128 + report.stopped_by};  // as a shell reports a process the signal ended
  }
  std::fprintf(stderr, "%zu cases, %zu runs measured%s; results in %s%s\n", report.cases, report.runs,
               report.runs_reused ? (", " + std::to_string(report.runs_reused) + " reused").c_str() : "",
               options.out_dir.c_str(), report.complete ? "" : " (incomplete: --resume continues)");
  print_results(report.summary, a.format, stdout);
  // What qualifies every figure: below the Markdown table, beside the others.
  const bool md = a.format == "md";
  for (const auto& note : runner::run_notes(runner::read_meta_json(options.out_dir), report.summary))
    std::fprintf(md ? stdout : stderr, md ? "\n> %s\n" : "%s\n", note.c_str());
  if (!a.db.empty()) store_run(a.db, options.out_dir);
}

}  // namespace

void register_run(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "Run a benchmark scenario and write CSV results");
  cmd->footer(
      "Scenario keys: scenarios/README.md; output columns: docs/RESULTS.md.\n"
      "Ctrl-C or SIGTERM stops after writing the finished runs (exit 130/143); --resume continues.\n"
      "Examples: pdbench run scenarios/smoke.toml -o results/smoke\n"
      "          pdbench run -m models/stories260K.gguf -p 16,64 -n 32 -t 1,2 -r 5 -o results/x\n"
      "          pdbench run scenarios/target-smoke.toml --target http://127.0.0.1:8080 -o results/served");
  cmd->add_option("scenario", args->scenario_file, "Scenario TOML file")->check(CLI::ExistingFile);
  cmd->add_option("-m,--model", args->model, "Model file (overrides the scenario's)")->check(CLI::ExistingFile);
  cmd->add_option("--tokenizer", args->tokenizer, "Tokenizer file (overrides the scenario's)")->check(CLI::ExistingFile);
  add_number_list(*cmd, "-p,--prompt-tokens", args->prompt_tokens, 1, "Prompt lengths in tokens");
  add_number_list(*cmd, "-n,--output-tokens", args->output_tokens, 1, "Generated tokens per request");
  add_number_list(*cmd, "-d,--depth", args->depth, 0, "Context depth: tokens already in the cache before the prompt");
  add_number_list(*cmd, "-t,--threads", args->threads, 0, "Thread counts (0: all cores)");
  add_number_list(*cmd, "-b,--batch", args->batch, 1,
                  "Batch sizes: that many copies of the request, continuously batched (depth 0 only)");
  cmd->add_option("--sampling", args->sampling, "Sampling strategies: greedy, default, or a scenario's [sampling.NAME]")
      ->delimiter(',');
  cmd->add_option("--prompt-source", args->prompt_source, "Prompts from the corpus or random token ids")
      ->check(CLI::IsMember({"corpus", "random"}));
  cmd->add_option("--cache-type-k", args->cache_type_k, "K cache element types: f32, f16, bf16, q8_0 (also -ctk)")
      ->delimiter(',');
  cmd->add_option("--cache-type-v", args->cache_type_v, "V cache element types: f32, f16, bf16, q8_0 (also -ctv)")
      ->delimiter(',');
  add_load_flags(*cmd, args->load);
  add_target_flags(*cmd, args->target);
  cmd->add_option("-r,--repetitions", args->repetitions, "Measured runs per case")->check(counting_number());
  cmd->add_option_function<size_t>(
      "--warmup-max", [args](size_t n) {
        args->warmup_max = n;
        args->warmup_set = true;
      },
      "Most warm-up runs per case (stops earlier once stable)");
  cmd->add_option("-o,--output", args->out_dir, "Results folder (default: results/<scenario name>)");
  cmd->add_option("--format", args->format, "The results table on stdout at the end (progress goes to stderr)")
      ->capture_default_str()
      ->check(CLI::IsMember(results_formats()));
  cmd->add_flag("--list", args->list_only, "Check the scenario and print its models and cases; run nothing");
  cmd->add_flag("--resume", args->resume, "Continue the run in the results folder, skipping finished runs");
  cmd->add_option("--shard", args->shard, "Run only every n-th case, starting at the k-th: k/n");
  cmd->add_option("--db", args->db,
                  "Also append the run to this results history: an SQLite file or a postgresql:// URL (docs/RESULTS.md)");
  // Test-only, hidden from --help: a slowed build for compare's checks.
  cmd->add_option("--test-decode-delay-us", args->decode_delay_us, "Busy-wait this long in every decode step")
      ->group("");
  cmd->callback([args] {
    args->command_line = describe(*args);
    run(*args);
  });
}

}  // namespace pdbench::cli
