#include "bench/runner/measure.h"

#include <omp.h>

#include <algorithm>
#include <chrono>

#include "bench/runner/remote_run.h"
#include "bench/runner/stats.h"
#include "bench/runner/thread_count.h"

namespace pdbench::runner {

namespace {

// batch copies of the request in one continuous batch. Every sequence joins
// at step 0 and takes one token per step, so a step's time is every
// sequence's inter-token gap; TTFT is the first request's (they share the
// prefill step). Op profiles are the whole batch's.
// A busy wait, like slower code: a sleep would hand the core to other
// processes, which evict the caches and slow the next prefill too.
void busy_wait_us(size_t us) {
  if (us == 0) return;  // the usual case: no delay asked for, no clock reads per token
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}

RunResult run_batch(const PreparedCase& c, GenerateRequest request) {
  const std::vector<GenerateRequest> requests(c.spec.batch, std::move(request));
  const BatchRun run = c.batcher->run(requests);
  RunResult r;
  r.timings = run.results.front().timings;
  for (size_t i = 1; i < run.steps.size(); ++i) r.timings.step_ms.push_back(run.steps[i].ms);
  r.generated = run.results.front().ids.size();
  const size_t prompt = run.results.front().prompt_ids.size();
  for (size_t i = 0; i < r.timings.step_ms.size(); ++i)
    r.steps.push_back({i + 1, prompt + i + 1, r.timings.step_ms[i], r.timings.step_ms[i]});
  r.prefill = run.prefill_ops;
  r.decode = run.decode_ops;
  return r;
}

// A load case's requests through continuous batching, each from its
// arrival.
RunResult run_load(const PreparedCase& c, size_t run_number) {
  const std::vector<GenerateRequest>& load = c.load_requests(run_number);
  c.batcher->set_prefill_chunk(c.spec.load.prefill_chunk);  // the batcher is shared by cases of one cache shape
  // A stop request abandons the run at the next step, as a single request's at its next token.
  const BatchRun run = c.batcher->run(load, c.load_arrivals, nullptr, [&] {
    if (c.stop != nullptr && c.stop->load() != 0) throw RunInterrupted();
  });
  std::vector<RequestSample> requests;
  for (size_t i = 0; i < run.results.size(); ++i) {
    const GenerationResult& g = run.results[i];
    requests.push_back({c.load_arrivals[i], g.prompt_ids.size(), load[i].max_new_tokens, g.ids.size(),
                        g.timings});
  }
  RunResult r = load_result(std::move(requests), run.wall_ms);
  r.prefill = run.prefill_ops;
  r.decode = run.decode_ops;
  r.kv_bytes_allocated = c.batcher->cache().pool().bytes_allocated();
  r.batch_steps = run.steps;
  return r;
}

}  // namespace

RunResult load_result(std::vector<RequestSample> requests, double wall_ms) {
  RunResult r;
  r.wall_ms = wall_ms;
  std::vector<double> ttft, prefill, decode, e2e, queue;
  for (const RequestSample& q : requests) {
    r.generated += q.generated;
    for (size_t k = 0; k < q.timings.step_ms.size(); ++k)
      r.steps.push_back({k + 1, q.prompt_tokens + k + 1, q.timings.step_ms[k], q.timings.step_ms[k]});
    ttft.push_back(q.timings.ttft_ms);
    prefill.push_back(q.timings.prefill_ms);
    decode.push_back(q.timings.decode_ms);
    e2e.push_back(q.timings.e2e_ms);
    queue.push_back(q.timings.queue_ms);
  }
  r.timings = {0, median(prefill), median(ttft), median(decode), median(e2e), {}, median(queue)};
  r.requests = std::move(requests);
  return r;
}

RunResult run_once(const PreparedCase& c, size_t run, const std::function<void()>& first_token) {
  if (c.remote) return run_remote(c, run);
  const ThreadCount threads(static_cast<int>(resolved_threads(c.spec.threads)));
  Generator& generator = *c.generator;
  GenerateRequest request;
  request.prompt = c.prompt(run).text;
  request.prompt_ids = c.prompt(run).ids;
  request.context_ids = c.context;
  request.max_new_tokens = c.spec.output_tokens;
  request.sampling = c.sampling;
  request.ignore_stop = true;
  if (c.spec.is_load()) return run_load(c, run);
  if (c.spec.batch > 1) return run_batch(c, std::move(request));
  RunResult r;
  std::vector<std::pair<size_t, double>> forwards;  // (kv length, forward ms) per decode step
  size_t kv_used = 0;
  const GenerationResult g = generator.generate(request, {}, [&](const StepTrace& t) {
    if (c.stop != nullptr && c.stop->load() != 0) {
      // Slower code would finish its step before seeing the stop; so does the
      // test delay, which gives a second signal a window to arrive in.
      busy_wait_us(c.decode_delay_us);
      throw RunInterrupted();
    }
    if (t.step > 0) forwards.emplace_back(t.kv_length, t.forward_ms);
    if (t.step == 0 && first_token) first_token();
    kv_used = t.kv_bytes_used;
    // Called between tokens inside the timed loop: the delay lands in the next
    // step's gap (never after the last token, nor in TTFT).
    if (t.step + 1 < c.spec.output_tokens) busy_wait_us(c.decode_delay_us);
  });
  r.timings = g.timings;
  r.generated = g.ids.size();
  r.prefix_hit_tokens = g.prefix_hit_tokens;
  for (size_t i = 0; i < r.timings.step_ms.size() && i < forwards.size(); ++i)
    r.steps.push_back({i + 1, forwards[i].first, r.timings.step_ms[i], forwards[i].second});
  r.prefill = generator.prefill_profile();
  r.decode = generator.decode_profile();
  r.kv_bytes_allocated = generator.cache().pool().bytes_allocated();
  r.kv_bytes_used = kv_used;
  return r;
}

WarmUp warm_up(const PreparedCase& c, size_t max_runs, size_t window, double tolerance_pct) {
  WarmUp w;
  std::vector<double> e2e;
  while (w.runs < max_runs) {
    e2e.push_back(run_once(c, RunNumbers{max_runs}.warmup(w.runs)).timings.e2e_ms);
    ++w.runs;
    if (e2e.size() >= window) {
      const std::vector<double> last(e2e.end() - static_cast<std::ptrdiff_t>(window), e2e.end());
      const auto [lo, hi] = std::minmax_element(last.begin(), last.end());
      const double mid = median(last);
      if (mid > 0 && 100.0 * (*hi - *lo) / mid <= tolerance_pct) {
        w.stable = true;
        break;
      }
    }
  }
  return w;
}

MemoryPeaks probe_memory(const PreparedCase& c, RssHighWater& rss, size_t run) {
  MemoryPeaks peaks;
  if (c.spec.batch > 1 || c.spec.is_load() || c.remote) return peaks;  // a server's memory is not this process's
  rss.reset();
  run_once(c, run, [&] {
    peaks.prefill_kib = rss.peak_kib();
    rss.reset();
  });
  peaks.decode_kib = rss.peak_kib();
  return peaks;
}

}  // namespace pdbench::runner
