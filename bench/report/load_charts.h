#pragma once
// The report's charts of load cases (section "Serving load"): latency
// percentiles and goodput against the request rate, one line per slot
// count (load cases with a finite rate); throughput against TPOT with its
// Pareto front (every load case); the best setting's steps
// (batch_step_charts.h). None when no run holds a load case.
#include <vector>

#include "bench/report/chart_specs.h"

namespace pdbench::report {

std::vector<Chart> load_charts(const std::vector<RunData>& runs);

}  // namespace pdbench::report
