// pdbench compare: verdicts per case and metric between two results folders
// (or two runs in the results history); exit 0 no regression, 1 regression,
// 2 unusable input.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

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
};

double parse_threshold(std::string text) {
  if (!text.empty() && text.back() == '%') text.pop_back();
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v > 0 && v < 1000))
    throw Error("--threshold: expected a percentage such as 5%, got '" + text + "'");
  return v;
}

compare::RunData from_history(resultsdb::History& history, const std::string& rev) {
  const resultsdb::StoredRun run = history.load(history.resolve(rev));
  return {"run " + std::to_string(run.run_id) + " (" + run.git_commit + ")", run.meta, run.samples, std::nullopt};
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

int compare_command(const CompareArgs& a) {
  try {
    const compare::Rule rule{parse_threshold(a.threshold), a.alpha};
    const compare::MatchRule match = compare::MatchRule::parse(a.match, a.ignore);
    if (!(rule.alpha > 0 && rule.alpha < 1)) throw Error("--alpha: expected a value between 0 and 1");
    compare::RunData base, next;
    if (!a.db.empty()) {
      resultsdb::History history(a.db);
      base = from_history(history, a.base);
      next = from_history(history, a.next);
    } else {
      base = compare::load_run_dir(a.base);
      next = compare::load_run_dir(a.next);
    }
    const compare::AccuracyRule accuracy_rule{a.kld_ratio, a.kld_increase};
    if (!(accuracy_rule.kld_ratio >= 1) || !(accuracy_rule.kld_increase >= 0))
      throw Error("--kld-ratio must be at least 1 and --kld-increase at least 0");
    const compare::Comparison c = compare::compare_runs(base, next, rule, accuracy_rule, match);
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
    if (!a.md.empty()) runner::write_file_atomic(a.md, compare::markdown_report(c));
    const bool regressed = c.regressed();
    std::printf("\nresult: %s\n", regressed ? "REGRESSION (exit 1)" : "no regression");
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
      "          pdbench compare --db results.sqlite 1a2b3c4d 5e6f7a8b   (latest run of each commit; run:N names a run)");
  cmd->add_option("base", args->base, "Base results folder (with --db: a commit or run:N)")->required();
  cmd->add_option("new", args->next, "New results folder (with --db: a commit or run:N)")->required();
  cmd->add_option("--db", args->db, "Compare runs from this results history (SQLite) instead of folders");
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
