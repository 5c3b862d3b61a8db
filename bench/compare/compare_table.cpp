#include "bench/compare/compare_table.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "bench/compare/holm.h"
#include "bench/compare/mann_whitney.h"
#include "bench/runner/accuracy_run.h"
#include "bench/runner/meta_json.h"
#include "engine/util/error.h"

namespace pdbench::compare {

namespace {

namespace fs = std::filesystem;

double parse_time(const std::string& cell, const std::string& where) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  if (cell.empty() || *end != '\0' || errno != 0 || !(v >= 0))
    throw Error(where + ": '" + cell + "' is not a time in ms");
  return v;
}

// metric column -> case_id -> samples, in row order.
struct Samples {
  std::map<std::string, std::map<std::string, std::vector<double>>> values;
};

Samples collect(const RunData& run) {
  Samples s;
  const runner::Table& t = run.samples;
  const size_t case_col = t.column("case_id");
  for (const Metric& m : compared_metrics()) {
    const auto it = std::find(t.columns.begin(), t.columns.end(), m.column);
    if (it == t.columns.end()) continue;  // an older results folder: the metric is left out
    const auto col = static_cast<size_t>(it - t.columns.begin());
    auto& by_case = s.values[m.column];
    for (const auto& row : t.rows)
      if (!row[col].empty())  // tpot is empty for one-token runs
        by_case[row[case_col]].push_back(parse_time(row[col], run.label + " samples.csv " + m.column));
  }
  return s;
}

std::string fixed(double v, const char* format) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

RunData load_run_dir(const std::string& dir) {
  if (!fs::is_directory(dir)) throw Error(dir + ": no such results folder");
  RunData run;
  run.label = dir;
  run.meta = runner::read_meta_json(dir);
  const fs::path samples = fs::path(dir) / "samples.csv";
  if (!fs::exists(samples)) fail_file(samples.string(), "missing");
  run.samples = runner::read_csv(samples.string());
  run.accuracy = runner::read_accuracy(dir);
  return run;
}

const std::vector<Metric>& compared_metrics() {
  static const std::vector<Metric> metrics = {
      {"tokenize_ms", "tokenize", "prefill"},  {"prefill_ms", "prefill", "prefill"},
      {"ttft_ms", "TTFT", "prefill"},          {"itl_median_ms", "ITL median", "decode"},
      {"tpot_ms", "TPOT", "decode"},           {"decode_ms", "decode", "decode"},
      {"e2e_ms", "E2E", "e2e"},
  };
  return metrics;
}

const std::vector<std::string>& phases() {
  static const std::vector<std::string> p = {"prefill", "decode", "e2e"};
  return p;
}

bool Comparison::regressed() const {
  return std::any_of(rows.begin(), rows.end(),
                     [](const Row& r) { return r.judgement.verdict == Verdict::Regressed; }) ||
         std::any_of(accuracy.begin(), accuracy.end(),
                     [](const AccuracyRow& r) { return r.verdict == Verdict::Regressed; });
}

std::vector<PhaseCounts> Comparison::by_phase() const {
  std::vector<PhaseCounts> out;
  for (const auto& phase : phases()) {
    PhaseCounts pc{phase, {}};
    for (const Row& r : rows)
      if (r.metric.phase == phase) ++pc.count[static_cast<size_t>(r.judgement.verdict)];
    out.push_back(std::move(pc));
  }
  return out;
}

Comparison compare_runs(const RunData& base, const RunData& next, const Rule& rule,
                        const AccuracyRule& accuracy_rule, const MatchRule& match) {
  Comparison c;
  c.accuracy_rule = accuracy_rule;
  c.accuracy = compare_accuracy(base.accuracy, next.accuracy, accuracy_rule);
  c.base_label = base.label;
  c.new_label = next.label;
  c.rule = rule;
  c.fingerprint = fingerprint_differences(base.meta, next.meta);
  const CasePairs pairs = pair_cases(base.samples, next.samples, match, base.label, next.label);
  c.only_base = pairs.only_base;
  c.only_new = pairs.only_new;
  c.key_axes = pairs.key_axes;
  const bool across_models = (match.mode == MatchRule::Mode::Match && !match.keys_on("model")) ||
                             (match.mode == MatchRule::Mode::Ignore && match.keys_on("model"));
  for (FieldDifference& d : c.fingerprint)
    if (across_models && d.field == "model/sha256") {
      d.expected = true;
      d.mismatch = false;
    }
  const Samples a = collect(base), b = collect(next);
  for (const CasePair& pair : pairs.pairs)
    for (const Metric& m : compared_metrics()) {
      const auto ia = a.values.find(m.column), ib = b.values.find(m.column);
      if (ia == a.values.end() || ib == b.values.end()) continue;
      const auto xa = ia->second.find(pair.base_id), xb = ib->second.find(pair.new_id);
      if (xa == ia->second.end() || xb == ib->second.end()) continue;
      Row row{pair.base_id, pair.new_id, m, side_stats(xa->second), side_stats(xb->second), {}, {}};
      row.test.tested = testable(xa->second.size(), xb->second.size(), rule.alpha);
      if (row.test.tested) row.test.p = mann_whitney(xa->second, xb->second).p;
      c.rows.push_back(std::move(row));
    }
  std::vector<double> p;
  for (const Row& r : c.rows)
    if (r.test.tested) p.push_back(r.test.p);
  c.tests = p.size();
  const std::vector<double> adjusted = holm_adjust(p);
  size_t k = 0;
  for (Row& r : c.rows) {
    if (r.test.tested) r.test.p_adj = adjusted[k++];
    r.judgement = judge(r.base, r.next, r.test, rule);
  }
  return c;
}

std::string joined_axes(const Comparison& c) {
  std::string out;
  for (const auto& axis : c.key_axes) out += (out.empty() ? "" : ", ") + axis;
  return out;
}

std::string text_report(const Comparison& c) {
  size_t width = 4;
  for (const Row& r : c.rows) width = std::max(width, r.label().size());
  const int w = static_cast<int>(width);
  std::string out = c.key_axes.empty() ? "" : "cases paired by " + joined_axes(c) + "\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-*s %-7s %-10s %10s %10s %8s %8s %8s %7s  %s\n", w, "case", "phase", "metric",
                "base ms", "new ms", "change", "p", "p_holm", "noise", "verdict");
  out += line;
  for (const Row& r : c.rows) {
    const bool tested = r.test.tested;
    std::snprintf(line, sizeof line, "%-*s %-7s %-10s %10.4f %10.4f %8s %8s %8s %7s  %s (%s)\n", w,
                  r.label().c_str(), r.metric.phase, r.metric.name, r.base.median, r.next.median,
                  fixed(r.judgement.change_pct, "%+.1f%%").c_str(), tested ? fixed(r.test.p, "%.4f").c_str() : "-",
                  tested ? fixed(r.test.p_adj, "%.4f").c_str() : "-", fixed(r.base.noise_pct, "%.1f%%").c_str(),
                  verdict_name(r.judgement.verdict), r.judgement.reason.c_str());
    out += line;
  }
  out += "\n";
  for (const PhaseCounts& pc : c.by_phase()) {
    std::snprintf(line, sizeof line, "%-8s %zu regressed, %zu improved, %zu unchanged, %zu unstable\n",
                  (pc.phase + ":").c_str(), pc.count[static_cast<size_t>(Verdict::Regressed)],
                  pc.count[static_cast<size_t>(Verdict::Improved)], pc.count[static_cast<size_t>(Verdict::Unchanged)],
                  pc.count[static_cast<size_t>(Verdict::Unstable)]);
    out += line;
  }
  if (!c.accuracy.empty()) {
    std::snprintf(line, sizeof line, "\naccuracy (mean KLD against the base; regressed beyond x%g and +%g):\n",
                  c.accuracy_rule.kld_ratio, c.accuracy_rule.kld_increase);
    out += line;
    for (const AccuracyRow& r : c.accuracy) {
      std::snprintf(line, sizeof line, "%-28s %-7s KLD %.6f -> %.6f, same top %.2f%% -> %.2f%%  %s\n",
                    r.config.c_str(), r.path.c_str(), r.base_kld, r.next_kld, r.base_same_top, r.next_same_top,
                    verdict_name(r.verdict));
      out += line;
    }
  }
  return out;
}

}  // namespace pdbench::compare
