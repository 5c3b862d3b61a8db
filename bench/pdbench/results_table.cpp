#include "bench/pdbench/results_table.h"

#include <nlohmann/json.hpp>

#include <cstdlib>

namespace pdbench::cli {

namespace {

// summary.csv's column, the header a reader sees, and the decimals the
// Markdown table rounds it to (-1: as written).
struct Column {
  const char* name;
  const char* header;
  int decimals = -1;
};

constexpr Column kColumns[] = {
    {"case_id", "case"},
    {"prompt_tokens", "prompt"},
    {"output_tokens", "output"},
    {"context_depth", "depth"},
    {"threads", "threads"},
    {"batch", "batch"},
    {"kv_type_k", "kv k"},
    {"kv_type_v", "kv v"},
    {"samples", "runs"},
    {"ttft_median_ms", "TTFT med ms", 3},
    {"ttft_cv_pct", "TTFT CV %", 1},
    {"prefill_median_tok_s", "prefill tok/s", 1},
    {"tpot_median_ms", "TPOT med ms", 3},
    {"tpot_cv_pct", "TPOT CV %", 1},
    {"decode_median_tok_s", "decode tok/s", 1},
    {"e2e_median_ms", "E2E med ms", 3},
    {"warmup_stable", "warm-up stable"},
};

// The row's values in kColumns' order, rounded for a reader when `rounded`.
std::vector<std::string> values(const runner::Table& summary, const std::vector<std::string>& row, bool rounded) {
  std::vector<std::string> out;
  for (const Column& c : kColumns) {
    const std::string& text = row[summary.column(c.name)];
    if (!rounded || c.decimals < 0 || text.empty()) {
      out.push_back(text);
      continue;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", c.decimals, std::strtod(text.c_str(), nullptr));
    out.emplace_back(buf);
  }
  return out;
}

// A JSON number where the text is one, else the text.
nlohmann::json json_value(const std::string& text) {
  const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
  return parsed.is_number() ? parsed : nlohmann::json(text);
}

nlohmann::json json_row(const std::vector<std::string>& v) {
  nlohmann::json row = nlohmann::json::object();
  for (size_t i = 0; i < std::size(kColumns); ++i) row[kColumns[i].name] = json_value(v[i]);
  return row;
}

void print_line(std::FILE* out, const std::vector<std::string>& cells, const char* first, const char* separator,
                const char* last) {
  std::fputs(first, out);
  for (size_t i = 0; i < cells.size(); ++i) std::fprintf(out, "%s%s", i > 0 ? separator : "", cells[i].c_str());
  std::fputs(last, out);
}

}  // namespace

std::vector<std::string> results_formats() { return {"md", "csv", "json", "jsonl"}; }

void print_results(const runner::Table& summary, const std::string& format, std::FILE* out) {
  std::vector<std::string> headers;
  for (const Column& c : kColumns) headers.emplace_back(format == "md" ? c.header : c.name);
  if (format == "md") {
    print_line(out, headers, "| ", " | ", " |\n");
    print_line(out, std::vector<std::string>(headers.size(), "---"), "| ", " | ", " |\n");
    for (const auto& row : summary.rows) print_line(out, values(summary, row, true), "| ", " | ", " |\n");
  } else if (format == "csv") {
    print_line(out, headers, "", ",", "\n");
    for (const auto& row : summary.rows) print_line(out, values(summary, row, false), "", ",", "\n");
  } else {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : summary.rows) rows.push_back(json_row(values(summary, row, false)));
    if (format == "json") std::fprintf(out, "%s\n", rows.dump(2).c_str());
    for (const auto& row : rows)
      if (format == "jsonl") std::fprintf(out, "%s\n", row.dump().c_str());
  }
  std::fflush(out);
}

}  // namespace pdbench::cli
