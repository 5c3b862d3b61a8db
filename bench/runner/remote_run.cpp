#include "bench/runner/remote_run.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>

#include "engine/util/error.h"

namespace pdbench::runner {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

bool stop_requested(const PreparedCase& c) { return c.stop != nullptr && c.stop->load() != 0; }

// The server counted what it was sent and made what it was asked for, or
// the lengths the case names are not the lengths measured.
void check_usage(const PreparedCase& c, const RemoteRequest& r, const StreamedCompletion& s) {
  const std::string what = "case " + c.spec.id + ": " + c.remote->url() + " reported ";
  if (!s.prompt_tokens || !s.completion_tokens)
    throw Error(what + "no usage (prompt_tokens, completion_tokens) in its stream, though stream_options.include_usage asked for it");
  if (*s.prompt_tokens != r.prompt_ids.size())
    throw Error(what + "prompt_tokens = " + std::to_string(*s.prompt_tokens) + " for a prompt of " +
                std::to_string(r.prompt_ids.size()) + " token ids");
  if (*s.completion_tokens != r.max_tokens)
    throw Error(what + "completion_tokens = " + std::to_string(*s.completion_tokens) + " where max_tokens = " +
                std::to_string(r.max_tokens) + " and ignore_eos asked for exactly that many");
  if (s.chunk_ms.empty()) throw Error(what + "no token chunk before data: [DONE]");
}

// One request on one client; RunInterrupted when `stop` or `abandon`
// cut it short.
StreamedCompletion send(const PreparedCase& c, size_t slot, const RemoteRequest& r, const std::atomic<bool>& abandon) {
  StreamedCompletion s = c.remote->client(slot).complete(c.remote->model(), r, [&] {
    return !stop_requested(c) && !abandon.load();
  });
  if (!s.done) throw RunInterrupted();
  c.remote->answered_by(s.model);
  check_usage(c, r, s);
  return s;
}

// A request's timings from its chunks; `queue_ms` (from its arrival to its
// send) counts in TTFT and E2E as a batch slot's wait does in process.
Timings timings_of(const StreamedCompletion& s, double queue_ms) {
  Timings t;
  t.queue_ms = queue_ms;
  t.prefill_ms = s.chunk_ms.front();
  t.ttft_ms = queue_ms + s.chunk_ms.front();
  t.e2e_ms = queue_ms + s.chunk_ms.back();
  t.decode_ms = s.chunk_ms.back() - s.chunk_ms.front();
  for (size_t i = 1; i < s.chunk_ms.size(); ++i) t.step_ms.push_back(s.chunk_ms[i] - s.chunk_ms[i - 1]);
  return t;
}

RunResult run_single(const PreparedCase& c, size_t run) {
  const RemoteRequest r = {c.prompt(run).ids, c.spec.output_tokens, c.sampling};
  const std::atomic<bool> abandon{false};
  const StreamedCompletion s = send(c, 0, r, abandon);
  RunResult out;
  out.timings = timings_of(s, 0);
  out.generated = *s.completion_tokens;
  // A client sees no forward pass: forward_ms is the gap, as a batch's.
  for (size_t i = 0; i < out.timings.step_ms.size(); ++i)
    out.steps.push_back({i + 1, r.prompt_ids.size() + i + 1, out.timings.step_ms[i], out.timings.step_ms[i]});
  return out;
}

// Requests go out in arrival order: each thread takes the next one, waits
// for its arrival and sends it, so at most `threads` are in flight and a
// request waits for a free thread as it would for a batch slot. The first
// failure stops the others.
RunResult run_load(const PreparedCase& c, size_t run) {
  const std::vector<GenerateRequest>& requests = c.load_requests(run);
  const size_t n = requests.size();
  const size_t threads = std::min(c.spec.load.max_concurrency, n);
  c.remote->reserve(threads);
  std::vector<RequestSample> samples(n);
  std::atomic<size_t> next{0};
  std::atomic<bool> abandon{false};
  std::mutex failure_mutex;
  std::exception_ptr failure;
  const auto start = Clock::now();
  const auto worker = [&](size_t slot) {
    try {
      for (size_t i = next++; i < n && !abandon; i = next++) {
        const GenerateRequest& g = requests[i];
        const RemoteRequest r{g.prompt_ids, g.max_new_tokens, g.sampling};
        const auto arrival = start + std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double, std::milli>(c.load_arrivals[i]));
        // Short sleeps, so a stop is seen while a request waits to arrive.
        while (Clock::now() < arrival && !abandon && !stop_requested(c))
          std::this_thread::sleep_until(std::min(arrival, Clock::now() + std::chrono::milliseconds(50)));
        if (stop_requested(c)) throw RunInterrupted();
        const double queue_ms = std::max(0.0, ms_since(start) - c.load_arrivals[i]);
        const StreamedCompletion s = send(c, slot, r, abandon);
        samples[i] = {c.load_arrivals[i], r.prompt_ids.size(), r.max_tokens, *s.completion_tokens, timings_of(s, queue_ms)};
      }
    } catch (...) {
      const std::lock_guard lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      abandon = true;
    }
  };
  std::vector<std::thread> pool;
  for (size_t slot = 0; slot < threads; ++slot) pool.emplace_back(worker, slot);
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  double wall_ms = 0;
  for (const RequestSample& q : samples) wall_ms = std::max(wall_ms, q.arrival_ms + q.timings.e2e_ms);
  return load_result(std::move(samples), wall_ms);
}

}  // namespace

RunResult run_remote(const PreparedCase& c, size_t run) {
  return c.spec.is_load() ? run_load(c, run) : run_single(c, run);
}

}  // namespace pdbench::runner
