#pragma once
// A load case's requests, made once when the case is prepared (outside any
// timing): arrival times from its rate or its trace, lengths from its
// distributions or its trace's rows, the same in every run; prompts from the
// scenario's source, each request of each run its own.
#include "bench/runner/measure.h"
#include "bench/runner/prompts.h"
#include "bench/runner/scenario.h"

namespace pdbench::runner {

// Fills p.load_runs and p.load_arrivals for p.spec, a load case.
void prepare_load(const Scenario& scenario, const PromptMaker& prompts, PreparedCase& p);

}  // namespace pdbench::runner
