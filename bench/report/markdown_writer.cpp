#include "bench/report/markdown_writer.h"

#include "bench/report/accuracy_table.h"
#include "bench/report/tables.h"
#include "bench/runner/machine_load.h"

namespace pdbench::report {

namespace {

// Pipes would split a cell.
std::string cell_text(std::string s) {
  for (size_t at = s.find('|'); at != std::string::npos; at = s.find('|', at + 2)) s.replace(at, 1, "\\|");
  return s;
}

std::string table_md(const TextTable& t) {
  std::string out = "|";
  for (const auto& h : t.header) out += " " + cell_text(h) + " |";
  out += "\n|";
  for (size_t i = 0; i < t.header.size(); ++i) out += i == 0 ? " --- |" : " ---: |";
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (const auto& c : row) out += " " + cell_text(c) + " |";
    out += "\n";
  }
  return out;
}

}  // namespace

std::string image_name(const std::string& image_prefix, const Chart& chart) { return image_prefix + "-" + chart.id + ".svg"; }

std::string render_summary_markdown(const std::vector<RunData>& runs, const std::vector<Insight>& insights) {
  std::string md;
  for (const auto& run : runs) md += "- " + run_line(run) + "\n";
  for (const auto& run : runs)
    for (const auto& note : runner::run_notes(run.meta, run.summary))
      md += "\n> " + (runs.size() > 1 ? "*" + run.label + "*: " : std::string()) + note + "\n";
  md += "\n## What bounds each phase\n";
  std::string phase;
  for (const auto& in : insights) {
    if (in.phase != phase) md += "\n**" + (phase = in.phase) + "**\n\n";
    md += "- " + (runs.size() > 1 ? "*" + in.run + "*: " : "") + in.text + "\n";
  }
  md += "\n## Cases\n";
  for (const auto& run : runs) md += (runs.size() > 1 ? "\n### " + run.label + "\n" : "") + "\n" + table_md(key_table(run));
  for (const auto& run : runs) {
    const TextTable accuracy = accuracy_table(run);
    if (accuracy.rows.empty()) continue;
    md += "\n## Accuracy" + (runs.size() > 1 ? ": " + run.label : std::string()) +
          "\n\nKL divergence and top-1 agreement against the base, beside the fastest tokens/s of the same "
          "configuration's batch-1 cases.\n\n" + table_md(accuracy);
  }
  return md;
}

std::string render_markdown(const std::vector<RunData>& runs, const std::vector<Chart>& charts,
                            const std::vector<Insight>& insights, const std::string& image_prefix) {
  std::string md = "# pdbench report\n\n" + render_summary_markdown(runs, insights);
  md += "\n## Charts\n";
  for (const auto& c : charts) {
    md += "\n### " + c.title + "\n\n" + c.caption + "\n\n";
    if (!c.note.empty()) md += "> " + c.note + "\n\n";
    if (!c.spec.is_null()) md += "![" + c.title + "](" + image_name(image_prefix, c) + ")\n";
  }
  md += "\n<details><summary>Machine fingerprint</summary>\n\n" + table_md(fingerprint_table(runs)) + "\n</details>\n";
  return md;
}

std::string render_history_markdown(const HistoryData& history, const std::vector<Chart>& charts,
                                    const std::string& image_prefix) {
  std::string md = "# pdbench history: " + history_title(history) + "\n\n";
  for (const auto& line : history_lines(history)) md += "- " + line + "\n";
  for (const auto& c : charts) {
    md += "\n## " + c.title + "\n\n" + c.caption + "\n\n";
    if (!c.note.empty()) md += "> " + c.note + "\n\n";
    if (!c.spec.is_null()) md += "![" + c.title + "](" + image_name(image_prefix, c) + ")\n";
  }
  md += "\n<details><summary>Runs</summary>\n\n" + table_md(runs_table(history)) + "\n</details>\n";
  return md;
}

}  // namespace pdbench::report
