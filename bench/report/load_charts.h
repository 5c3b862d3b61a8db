#pragma once
// The report's charts of load cases (section "Serving load"): latency
// percentiles and goodput against the request rate, one line per slot
// count. None when no run holds a load case with a finite rate.
#include <vector>

#include "bench/report/chart_specs.h"

namespace pdbench::report {

std::vector<Chart> load_charts(const std::vector<RunData>& runs);

}  // namespace pdbench::report
