#pragma once
// One run of a case on a remote target (openai_target.h): its request, or
// a load case's requests each sent at its arrival time by one of
// max_concurrency threads, each thread with its own client. The timings
// are the in-process ones as the client sees them: from the send (a load
// request: from its arrival) to the first token's chunk (TTFT), between
// chunks (each step), to the last token's chunk (E2E). prefill_ms is the
// send to the first chunk (what a client can see of prefill); a load
// request's queue_ms its wait for a free thread.
#include "bench/runner/measure.h"

namespace pdbench::runner {

// Throws RunInterrupted when c.stop is set mid-run, and pdbench::Error
// naming the case when the server's usage differs from what was asked
// (prompt_tokens from the ids sent, completion_tokens from max_tokens).
RunResult run_remote(const PreparedCase& c, size_t run);

}  // namespace pdbench::runner
