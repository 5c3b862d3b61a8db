#include "bench/report/report.h"

#include <filesystem>

#include "bench/report/chart_specs.h"
#include "bench/report/html_writer.h"
#include "bench/report/insights.h"
#include "bench/report/markdown_writer.h"
#include "bench/report/results_reader.h"
#include "bench/report/svg_renderer.h"
#include "bench/runner/csv_table.h"
#include "engine/util/error.h"

namespace pdbench::report {

namespace fs = std::filesystem;

namespace {

void make_parent(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent);
}

}  // namespace

ReportFiles write_report(const ReportOptions& options) {
  if (options.results.empty()) throw Error("report: name at least one results folder");
  const std::vector<RunData> runs = read_runs(options.results);
  const std::vector<Chart> charts = build_charts(runs);
  const std::vector<Insight> sentences = insights(runs);

  ReportFiles files;
  for (const auto& c : charts) (c.spec.is_null() ? files.skipped : files.charts) += 1;
  const std::string html = render_html(runs, charts, sentences);
  make_parent(options.html);
  runner::write_file_atomic(options.html, html);
  files.written.push_back(options.html);

  if (!options.markdown.empty()) {
    make_parent(options.markdown);
    const fs::path md(options.markdown);
    const std::string prefix = md.stem().string();
    std::vector<SvgJob> jobs;
    for (const auto& c : charts)
      if (!c.spec.is_null()) jobs.push_back({c.spec, (md.parent_path() / image_name(prefix, c)).string()});
    render_svgs(jobs);
    for (const auto& job : jobs) files.written.push_back(job.path);
    runner::write_file_atomic(options.markdown, render_markdown(runs, charts, sentences, prefix));
    files.written.push_back(options.markdown);
  }
  return files;
}

}  // namespace pdbench::report
