#pragma once
// The report's charts of one load case's steps (batch_steps.csv, section
// "Serving load"): what each step ran over the run, and the cache and queue
// beside it, for the setting with the best goodput (or throughput without
// an [sla]). None when no run has batch steps.
#include <vector>

#include "bench/report/chart_specs.h"

namespace pdbench::report {

std::vector<Chart> batch_step_charts(const std::vector<RunData>& runs);

}  // namespace pdbench::report
