#pragma once
// The report's charts of one load case's steps (section "Serving load"), for
// the setting with the best goodput (or throughput without an [sla]): what
// each step ran over the run and the cache and queue beside it
// (batch_steps.csv), and each operator's time per step in steps with prompt
// tokens against decode-only ones (ops.csv). None without load cases.
#include <vector>

#include "bench/report/chart_specs.h"

namespace pdbench::report {

std::vector<Chart> batch_step_charts(const std::vector<RunData>& runs);

}  // namespace pdbench::report
