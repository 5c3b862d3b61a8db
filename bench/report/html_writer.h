#pragma once
// The report as one self-contained HTML page: the Vega, Vega-Lite and
// vega-embed builds and every chart's spec are inlined, so the file opens
// offline with no server and no network.
#include <string>
#include <vector>

#include "bench/report/chart_specs.h"
#include "bench/report/history_report.h"
#include "bench/report/insights.h"
#include "bench/report/results_reader.h"

namespace pdbench::report {

// Throws pdbench::Error when the npm packages are not installed.
std::string render_html(const std::vector<RunData>& runs, const std::vector<Chart>& charts,
                        const std::vector<Insight>& insights);

// The history report: the runs stored in a results database, one chart per metric.
std::string render_history_html(const HistoryData& history, const std::vector<Chart>& charts);

}  // namespace pdbench::report
