// pdbench compare: verdicts per case and metric between two results folders
// (or two runs in the results history); exit 0 no regression, 1 regression,
// 2 unusable input.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "bench/compare/compare_table.h"
#include "bench/compare/markdown.h"
#include "bench/compare/mann_whitney.h"
#include "bench/pdbench/commands.h"
#include "bench/resultsdb/history.h"
#include "engine/util/error.h"

namespace pdbench::cli {

namespace {

struct CompareArgs {
  std::string base, next;
  std::string db;
  std::string md;
  std::string threshold = "5%";
  std::string match, ignore;  // case axes, comma-separated
  double alpha = 0.05;
  double kld_ratio = compare::AccuracyRule{}.kld_ratio;
  double kld_increase = compare::AccuracyRule{}.kld_increase;
  bool allow_mismatch = false;
  std::string machine;  // with --db: the machine id both runs come from
  bool across_machines = false;
};

double parse_threshold(std::string text) {
  if (!text.empty() && text.back() == '%') text.pop_back();
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v > 0 && v < 1000))
    throw Error("--threshold: expected a percentage such as 5%, got '" + text + "'");
  return v;
}

// A commit's measurement from the history: its latest run on `machine`, or
// the latest run of every shard when it ran sharded, their samples joined
// (compare pairs rows by case, whichever shard measured it).
compare::RunData from_history(resultsdb::History& history, const std::string& rev, const std::string& machine) {
  const resultsdb::History::Shards shards = history.resolve_shards(rev, machine);
  for (const auto& s : shards.missing)
    std::fprintf(stderr, "note: %s: shard %s is not stored; its cases are not compared\n", rev.c_str(), s.c_str());
  resultsdb::StoredRun run = history.load(shards.runs.front());
  std::string ids = std::to_string(run.run_id);
  for (size_t i = 1; i < shards.runs.size(); ++i) {
    const resultsdb::StoredRun more = history.load(shards.runs[i]);
    if (more.samples.columns != run.samples.columns)
      throw Error(history.name() + ": runs " + ids + " and " + std::to_string(more.run_id) +
                  " are shards of one scenario with different samples.csv columns");
    run.samples.rows.insert(run.samples.rows.end(), more.samples.rows.begin(), more.samples.rows.end());
    ids += "+" + std::to_string(more.run_id);
  }
  return {(shards.runs.size() > 1 ? "runs " : "run ") + ids + " (" + run.git_commit + ")", run.meta, run.samples,
          std::nullopt};
}

// Two runs to compare, and the machine both ran on ("" for folders).
struct RunPair {
  std::string machine;
  compare::RunData base, next;
};

bool contains(const std::vector<resultsdb::Machine>& machines, const std::string& id) {
  return std::any_of(machines.begin(), machines.end(), [&](const auto& m) { return m.id == id; });
}

std::string label(const resultsdb::Machine& m) { return m.name + " (" + m.id + ")"; }

// --across-machines: the latest run of each commit on every machine that
// ran both; the machines that ran one are said.
std::vector<RunPair> pairs_across_machines(resultsdb::History& h, const CompareArgs& a) {
  if (a.base.starts_with("run:") || a.next.starts_with("run:"))
    throw Error("--across-machines pairs commits machine by machine: name two commits, not run:N");
  const auto base_machines = h.machines(a.base), next_machines = h.machines(a.next);
  std::vector<RunPair> pairs;
  for (const auto& m : next_machines)
    if (contains(base_machines, m.id))
      pairs.push_back({label(m), from_history(h, a.base, m.id), from_history(h, a.next, m.id)});
    else
      std::fprintf(stderr, "note: %s ran only the new commit, not compared\n", label(m).c_str());
  for (const auto& m : base_machines)
    if (!contains(next_machines, m.id))
      std::fprintf(stderr, "note: %s ran only the base commit, not compared\n", label(m).c_str());
  if (pairs.empty()) throw Error(h.name() + ": no machine ran both " + a.base + " and " + a.next);
  return pairs;
}

// A run:N side is that run; a commit side is the commit's latest run on the
// machine of the other side's run:N, else on --machine, else on the
// machine of the new commit's latest run.
RunPair pair_on_one_machine(resultsdb::History& h, const CompareArgs& a) {
  const bool base_run = a.base.starts_with("run:"), next_run = a.next.starts_with("run:");
  std::string machine = a.machine;
  if (machine.empty()) {
    const auto anchor = h.machines(next_run || !base_run ? a.next : a.base);
    machine = anchor.front().id;
    if (!base_run && !next_run && (anchor.size() > 1 || h.machines(a.base).size() > 1))
      std::fprintf(stderr,
                   "note: comparing on %s, where the new commit last ran (--machine ID or --across-machines for "
                   "the others)\n",
                   label(anchor.front()).c_str());
  }
  return {machine, from_history(h, a.base, base_run ? "" : machine), from_history(h, a.next, next_run ? "" : machine)};
}

std::vector<RunPair> pairs_to_compare(const CompareArgs& a) {
  if (a.db.empty()) {
    if (a.across_machines || !a.machine.empty()) throw Error("--across-machines and --machine need --db");
    return {{"", compare::load_run_dir(a.base), compare::load_run_dir(a.next)}};
  }
  resultsdb::History history(a.db);
  if (a.across_machines) return pairs_across_machines(history, a);
  return {pair_on_one_machine(history, a)};
}

// With many tests, Holm asks the smallest p to be below alpha / tests; say
// so when the repetitions cannot produce such a p.
void note_power(const compare::Comparison& c) {
  double worst = 0;
  for (const auto& r : c.rows)
    if (r.test.tested) worst = std::max(worst, compare::mann_whitney_min_p(r.base.n, r.next.n));
  const double needed = c.rule.alpha / static_cast<double>(c.tests);
  if (c.tests > 0 && worst >= needed)
    std::fprintf(stderr,
                 "note: with %zu tests a lone change needs p < %.2g, but some rows' repetitions cannot give less "
                 "than %.2g: add repetitions (9 per side reach 4e-5)\n",
                 c.tests, needed, worst);
}

// One pair of runs: notes on stderr, the table on stdout and appended to
// `markdown`. Returns 0 no regression, 1 regression, 2 refused (the
// fingerprints differ).
int compare_pair(const RunPair& pair, const CompareArgs& a, std::string& markdown) {
  const compare::Rule rule{parse_threshold(a.threshold), a.alpha};
  const compare::AccuracyRule accuracy_rule{a.kld_ratio, a.kld_increase};
  const compare::Comparison c =
      compare::compare_runs(pair.base, pair.next, rule, accuracy_rule, compare::MatchRule::parse(a.match, a.ignore));
  for (const auto& d : c.fingerprint)
    if (d.expected)
      std::fprintf(stderr, "note: %s differs (base %s, new %s): cases are paired across models\n", d.field.c_str(),
                   d.base.c_str(), d.next.c_str());
    else if (!d.mismatch)
      std::fprintf(stderr, "note: %s recorded on one side only\n", d.field.c_str());
  if (compare::any_mismatch(c.fingerprint)) {
    std::fprintf(stderr, "\n!!! FINGERPRINT MISMATCH: the two runs were measured under different conditions !!!\n");
    for (const auto& d : c.fingerprint)
      if (d.mismatch) std::fprintf(stderr, "!!!   %s: base %s, new %s\n", d.field.c_str(), d.base.c_str(), d.next.c_str());
    if (!a.allow_mismatch) {
      std::fprintf(stderr, "pdbench: error: refusing to compare (--allow-fingerprint-mismatch compares anyway)\n");
      return 2;
    }
    std::fprintf(stderr, "!!! comparing anyway (--allow-fingerprint-mismatch): verdicts may reflect the machine\n\n");
  }
  for (const auto& id : c.only_base) std::fprintf(stderr, "note: case %s only in base, not compared\n", id.c_str());
  for (const auto& id : c.only_new) std::fprintf(stderr, "note: case %s only in new, not compared\n", id.c_str());
  note_power(c);
  std::fputs(compare::text_report(c).c_str(), stdout);
  markdown += compare::markdown_report(c);
  return c.regressed() ? 1 : 0;
}

int compare_command(const CompareArgs& a) {
  try {
    parse_threshold(a.threshold);  // every flag checked before any database is opened
    compare::MatchRule::parse(a.match, a.ignore);
    if (!(a.alpha > 0 && a.alpha < 1)) throw Error("--alpha: expected a value between 0 and 1");
    if (!(a.kld_ratio >= 1) || !(a.kld_increase >= 0))
      throw Error("--kld-ratio must be at least 1 and --kld-increase at least 0");
    const std::vector<RunPair> pairs = pairs_to_compare(a);
    int worst = 0;
    size_t regressed = 0;
    std::string markdown;
    for (const auto& pair : pairs) {
      if (pairs.size() > 1) {
        std::printf("%s== machine %s ==\n", &pair == &pairs.front() ? "" : "\n", pair.machine.c_str());
        markdown += "## Machine " + pair.machine + "\n\n";
      }
      if (!a.db.empty())
        std::fprintf(stderr, "base: %s\nnew:  %s\n", pair.base.label.c_str(), pair.next.label.c_str());
      const int code = compare_pair(pair, a, markdown);
      worst = std::max(worst, code);
      regressed += code == 1;
    }
    if (worst == 2) return 2;
    if (!a.md.empty()) runner::write_file_atomic(a.md, markdown);
    const std::string where = pairs.size() > 1 ? " on " + std::to_string(regressed) + " of " +
                                                     std::to_string(pairs.size()) + " machines"
                                               : "";
    std::printf("\nresult: %s\n", regressed ? ("REGRESSION" + where + " (exit 1)").c_str() : "no regression");
    return regressed ? 1 : 0;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "pdbench: error: %s\n", e.what());
    return 2;
  }
}

}  // namespace

void register_compare(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand("compare", "Compare two runs: per case and metric, improved/regressed/unchanged/unstable");
  cmd->footer(
      "Exit code: 0 no regression, 1 regression, 2 unusable input. The rule: docs/COMPARE.md.\n"
      "Examples: pdbench compare results/base results/new --threshold 5% --md summary.md\n"
      "          pdbench compare results/t1 results/t2 --ignore threads   (1 thread against 2, case by case)\n"
      "          pdbench compare --db results.sqlite 1a2b3c4d 5e6f7a8b   (latest run of each commit; run:N names a run)\n"
      "          pdbench compare --db postgresql://bench@db:5432/bench 1a2b3c4d 5e6f7a8b --across-machines\n"
      "With --db, both commits' runs come from one machine (the new commit's latest, or --machine);\n"
      "--across-machines compares them on every machine that ran both, and exits 1 if any regressed.");
  cmd->add_option("base", args->base, "Base results folder (with --db: a commit or run:N)")->required();
  cmd->add_option("new", args->next, "New results folder (with --db: a commit or run:N)")->required();
  cmd->add_option("--db", args->db,
                  "Compare runs from this results history (an SQLite file or a postgresql:// URL) instead of folders");
  cmd->add_option("--machine", args->machine, "With --db: compare the runs of this machine id (report --history lists them)");
  cmd->add_flag("--across-machines", args->across_machines,
                "With --db: one comparison per machine that ran both commits");
  cmd->add_option("--threshold", args->threshold, "Smallest change of a median that counts, e.g. 5%")
      ->capture_default_str();
  cmd->add_option("--alpha", args->alpha, "Significance level over all tests of the table (Holm)")
      ->capture_default_str();
  cmd->add_option("--kld-ratio", args->kld_ratio,
                  "Accuracy: a mean KLD above base x this (and --kld-increase above it) is a regression")
      ->capture_default_str();
  cmd->add_option("--kld-increase", args->kld_increase, "Accuracy: the least mean KLD increase that counts, nats")
      ->capture_default_str();
  cmd->add_option("--match", args->match,
                  "Pair cases by these case axes only (comma-separated, e.g. prompt_tokens,context_depth), "
                  "not by case_id: compares across the other axes");
  cmd->add_option("--ignore", args->ignore,
                  "Pair cases by every case axis but these (e.g. threads; kv_type_k,kv_type_v; model,weight_type)");
  cmd->add_option("--md", args->md, "Also write the table as Markdown (for a CI job summary)");
  cmd->add_flag("--allow-fingerprint-mismatch", args->allow_mismatch,
                "Compare runs from different machines or builds anyway, with a loud warning");
  cmd->callback([args] {
    const int code = compare_command(*args);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace pdbench::cli
