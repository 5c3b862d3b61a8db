#pragma once
// The report as Markdown for CI job summaries and pull-request comments:
// runs, the sentences, key tables, and the charts as SVG images next to it.
#include <string>
#include <vector>

#include "bench/report/chart_specs.h"
#include "bench/report/history_report.h"
#include "bench/report/insights.h"
#include "bench/report/results_reader.h"

namespace pdbench::report {

// The runs, the sentences and the key table per run: the report's top, and
// what `pdbench report --summary` prints.
std::string render_summary_markdown(const std::vector<RunData>& runs, const std::vector<Insight>& insights);

// `image_name(chart)` is the SVG file name the Markdown links to.
std::string render_markdown(const std::vector<RunData>& runs, const std::vector<Chart>& charts,
                            const std::vector<Insight>& insights, const std::string& image_prefix);

// The history report: the stored runs, and each metric's chart as an image.
std::string render_history_markdown(const HistoryData& history, const std::vector<Chart>& charts,
                                    const std::string& image_prefix);

// "NAME-ttft.svg" for image prefix "NAME".
std::string image_name(const std::string& image_prefix, const Chart& chart);

}  // namespace pdbench::report
