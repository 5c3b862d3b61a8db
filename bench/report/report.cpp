#include "bench/report/report.h"

#include <filesystem>
#include <functional>

#include "bench/report/chart_specs.h"
#include "bench/report/history_report.h"
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

// Both reports: the page, and optionally the Markdown (made by `markdown`
// from its image prefix) with the drawn charts as SVG files next to it.
ReportFiles write_files(const std::string& html_path, const std::string& html, const std::string& markdown_path,
                        const std::vector<Chart>& charts,
                        const std::function<std::string(const std::string&)>& markdown) {
  ReportFiles files;
  for (const auto& c : charts) (c.spec.is_null() ? files.skipped : files.charts) += 1;
  make_parent(html_path);
  runner::write_file_atomic(html_path, html);
  files.written.push_back(html_path);

  if (!markdown_path.empty()) {
    make_parent(markdown_path);
    const fs::path md(markdown_path);
    const std::string prefix = md.stem().string();
    std::vector<SvgJob> jobs;
    for (const auto& c : charts)
      if (!c.spec.is_null()) jobs.push_back({c.spec, (md.parent_path() / image_name(prefix, c)).string()});
    render_svgs(jobs);
    for (const auto& job : jobs) files.written.push_back(job.path);
    runner::write_file_atomic(markdown_path, markdown(prefix));
    files.written.push_back(markdown_path);
  }
  return files;
}

}  // namespace

ReportFiles write_report(const ReportOptions& options) {
  if (options.results.empty()) throw Error("report: name at least one results folder");
  const std::vector<RunData> runs = read_runs(options.results);
  const std::vector<Chart> charts = build_charts(runs);
  const std::vector<Insight> sentences = insights(runs);
  ReportFiles files =
      write_files(options.html, render_html(runs, charts, sentences), options.markdown, charts,
                  [&](const std::string& prefix) { return render_markdown(runs, charts, sentences, prefix); });
  files.summary = render_summary_markdown(runs, sentences);
  return files;
}

ReportFiles write_history_report(const HistoryOptions& options) {
  const HistoryData history = read_history(options.db, options.metrics, options.scenario);
  const std::vector<Chart> charts = history_charts(history);
  return write_files(options.html, render_history_html(history, charts), options.markdown, charts,
                     [&](const std::string& prefix) { return render_history_markdown(history, charts, prefix); });
}

}  // namespace pdbench::report
