// pdbench report: results folders, or the runs of a results history, into a
// self-contained HTML report (and Markdown with SVG charts for CI summaries).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench/pdbench/commands.h"
#include "bench/report/report.h"
#include "bench/resultsdb/connection.h"
#include "engine/util/error.h"

namespace pdbench::cli {

namespace {

struct ReportArgs {
  report::ReportOptions folders;
  bool history = false;
  std::string db;
  std::vector<std::string> metrics;
  std::string scenario;
  bool summary = false;
};

void print_files(const report::ReportFiles& files, const std::string& source) {
  std::fprintf(stderr, "report: %zu charts%s from %s\n", files.charts,
               files.skipped ? (", " + std::to_string(files.skipped) + " skipped (see the notes)").c_str() : "",
               source.c_str());
  for (const auto& path : files.written) std::fprintf(stderr, "  %s\n", path.c_str());
}

}  // namespace

void register_report(CLI::App& app) {
  auto a = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand("report", "Draw results folders as an HTML report (optionally Markdown + SVG)");
  cmd->footer(
      "With several folders every chart overlays them (color = run).\n"
      "With --db FILE|URL --history: key metrics over the stored runs, one line per case and machine.\n"
      "Examples: pdbench report results/smoke -o reports/smoke.html\n"
      "          pdbench report results/base results/new -o reports/ab.html --md reports/ab.md\n"
      "          pdbench report --db results.sqlite --history -o reports/history.html --metric ttft_median_ms\n"
      "          pdbench report --db postgresql://bench@db:5432/bench --history -o reports/fleet.html");
  CLI::Option* results =
      cmd->add_option("results", a->folders.results, "Results folders written by 'pdbench run'")->check(CLI::ExistingDirectory);
  cmd->add_option("-o,--output", a->folders.html, "HTML file to write, e.g. reports/NAME.html (--history: history.html)");
  cmd->add_option("--md", a->folders.markdown, "Also write Markdown here, with the charts as SVG files next to it");
  CLI::Option* summary = cmd->add_flag("--summary", a->summary,
                "Also print the summary (what bounds each phase, the cases table) as Markdown on stdout");
  CLI::Option* db = cmd->add_option("--db", a->db, "Results history to draw, with --history: an SQLite file or a postgresql:// URL");
  CLI::Option* history =
      cmd->add_flag("--history", a->history, "Chart metrics over the runs stored in --db, in stored order")->needs(db);
  db->needs(history);
  history->excludes(results);
  history->excludes(summary);
  cmd->add_option("--metric", a->metrics, "summary.csv columns to chart (default: ttft_median_ms, prefill_median_tok_s, "
                                          "decode_median_tok_s)")
      ->delimiter(',')
      ->needs(history);
  cmd->add_option("--scenario", a->scenario, "Only the stored runs of this scenario")->needs(history);
  cmd->callback([a] {
    if (a->history) {
      const report::HistoryOptions options{a->db, a->metrics, a->scenario,
                                           a->folders.html.empty() ? "history.html" : a->folders.html,
                                           a->folders.markdown};
      print_files(report::write_history_report(options), resultsdb::redact_password(a->db));
      return;
    }
    if (a->folders.results.empty()) throw Error("report: name results folders, or --db FILE|URL --history");
    if (a->folders.html.empty()) throw Error("report: -o FILE.html is required");
    const report::ReportFiles files = report::write_report(a->folders);
    print_files(files, std::to_string(a->folders.results.size()) + " results folder" +
                           (a->folders.results.size() == 1 ? "" : "s"));
    if (a->summary) std::fputs(files.summary.c_str(), stdout);
  });
}

}  // namespace pdbench::cli
