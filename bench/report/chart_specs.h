#pragma once
// The report's charts as Vega-Lite specs with their data inlined, the same
// specs for the HTML page (vega-embed) and the Markdown's SVG images.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/report/results_reader.h"

namespace pdbench::report {

struct Chart {
  std::string id;       // [a-z-]+: element ids and SVG file names
  std::string section;  // "Prefill", "Decode", "Memory", "Where the time goes"
  std::string title;
  std::string caption;  // what is plotted, from which file
  nlohmann::json spec;  // null when the chart is skipped (see note)
  std::string note;     // why it was skipped, or a caveat
};

// Every chart, in reading order; with several runs each is overlaid
// (color = run).
std::vector<Chart> build_charts(const std::vector<RunData>& runs);

// A spec with the report's size, fonts and palette; its data and marks are
// the caller's (the history charts share it).
nlohmann::json base_spec(const std::string& title);
// A tooltip row for a number: five significant digits.
nlohmann::json value_field(const std::string& field, const std::string& title);

// Phase colors: the charts' and the page's section headings'.
inline constexpr const char* kPrefillColor = "#4c78a8";
inline constexpr const char* kDecodeColor = "#f58518";

}  // namespace pdbench::report
