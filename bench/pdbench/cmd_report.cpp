// pdbench report: results folders into a self-contained HTML report
// (and Markdown with SVG charts for CI summaries).
#include <cstdio>
#include <memory>

#include "bench/pdbench/commands.h"
#include "bench/report/report.h"

namespace pdbench::cli {

void register_report(CLI::App& app) {
  auto options = std::make_shared<report::ReportOptions>();
  CLI::App* cmd = app.add_subcommand("report", "Draw results folders as an HTML report (optionally Markdown + SVG)");
  cmd->footer(
      "With several folders every chart overlays them (color = run).\n"
      "Examples: pdbench report results/smoke -o reports/smoke.html\n"
      "          pdbench report results/base results/new -o reports/ab.html --md reports/ab.md");
  cmd->add_option("results", options->results, "Results folders written by 'pdbench run'")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("-o,--output", options->html, "HTML file to write, e.g. reports/NAME.html")->required();
  cmd->add_option("--md", options->markdown, "Also write Markdown here, with the charts as SVG files next to it");
  cmd->callback([options] {
    const report::ReportFiles files = report::write_report(*options);
    std::fprintf(stderr, "report: %zu charts%s from %zu results folder%s\n", files.charts,
                 files.skipped ? (", " + std::to_string(files.skipped) + " skipped (see the notes)").c_str() : "",
                 options->results.size(), options->results.size() == 1 ? "" : "s");
    for (const auto& path : files.written) std::fprintf(stderr, "  %s\n", path.c_str());
  });
}

}  // namespace pdbench::cli
