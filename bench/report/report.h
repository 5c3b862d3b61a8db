#pragma once
// pdbench report: results folders (or a results history) into an HTML page and, optionally, a
// Markdown file with SVG charts next to it. Every file is written under a
// temporary name and renamed, so readers never see half a report.
#include <string>
#include <vector>

namespace pdbench::report {

struct ReportOptions {
  std::vector<std::string> results;  // results folders, in overlay order
  std::string html;                  // output .html path
  std::string markdown;              // output .md path, or "" for none
};

// `pdbench report --db FILE --history`.
struct HistoryOptions {
  std::string db;                    // the results history (SQLite)
  std::vector<std::string> metrics;  // summary.csv columns; empty: default_history_metrics()
  std::string scenario;              // only this scenario's runs, or "" for all
  std::string html;
  std::string markdown;
};

struct ReportFiles {
  std::vector<std::string> written;
  size_t charts = 0;
  size_t skipped = 0;  // charts without data, explained in the report
  std::string summary;  // write_report: the Markdown summary (render_summary_markdown)
};

ReportFiles write_report(const ReportOptions& options);
ReportFiles write_history_report(const HistoryOptions& options);

}  // namespace pdbench::report
