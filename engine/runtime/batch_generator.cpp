#include "engine/runtime/batch_generator.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <exception>
#include <string>

#include "engine/util/error.h"

namespace pdbench {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// Adds one step's event to its request's result; `now` is when the step
// ended, prefill_start_ms when its prompt's first step started.
void record(const TokenEvent& ev, double prefill_start_ms, double now, double arrival_ms, double& last_token_ms,
            GenerationResult& res) {
  if (ev.first) {
    res.timings.queue_ms = prefill_start_ms - arrival_ms;
    res.timings.ttft_ms = now - arrival_ms;
    res.timings.prefill_ms = now - prefill_start_ms;
  } else {
    res.timings.step_ms.push_back(now - last_token_ms);
  }
  last_token_ms = now;
  if (ev.id) res.ids.push_back(*ev.id);
  res.text += ev.text;
  if (ev.stop_reason.empty()) return;
  res.stop_reason = ev.stop_reason;
  res.timings.e2e_ms = now - arrival_ms;
  res.timings.decode_ms = res.timings.e2e_ms - res.timings.ttft_ms;
}

}  // namespace

BatchGenerator::BatchGenerator(const Engine& engine, const GeneratorOptions& options, size_t max_batch,
                               Forward* forward)
    : engine_(engine), scheduler_(engine, options, max_batch, forward) {}

BatchRun BatchGenerator::run(std::span<const GenerateRequest> requests, std::span<const double> arrival_ms,
                             BatchClock* clock_in, const std::function<void()>& after_step) {
  if (!arrival_ms.empty() && arrival_ms.size() != requests.size())
    throw Error("batch: " + std::to_string(arrival_ms.size()) + " arrival times for " +
                std::to_string(requests.size()) + " requests");
  SteadyBatchClock steady;
  BatchClock& clock = clock_in != nullptr ? *clock_in : steady;
  // Every request is checked before anything runs.
  std::vector<std::vector<int32_t>> prompts;
  std::vector<double> tokenize_ms;
  for (size_t i = 0; i < requests.size(); ++i) {
    const GenerateRequest& r = requests[i];
    const std::string what = "batch: request " + std::to_string(i);
    const auto t0 = Clock::now();
    if (r.beam_width > 0) throw Error(what + " asks for beam search, which is not batched");
    r.sampling.validate();
    prompts.push_back(r.prompt_ids.empty() ? engine_.tokenizer().encode(r.prompt, r.add_bos) : r.prompt_ids);
    tokenize_ms.push_back(ms_since(t0));
    scheduler_.check_fits(prompts.back().size(), r.max_new_tokens, what);
  }
  std::vector<size_t> order(requests.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto arrival = [&](size_t i) { return arrival_ms.empty() ? 0.0 : arrival_ms[i]; };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return arrival(a) < arrival(b); });
  std::deque<size_t> waiting(order.begin(), order.end());

  BatchRun out;
  out.results.resize(requests.size());
  std::vector<double> last_token_ms(requests.size());
  std::vector<double> prefill_start_ms(requests.size());
  const size_t n_layers = engine_.model().config().n_layers;
  out.prefill_ops = OpProfile(n_layers);
  out.decode_ops = OpProfile(n_layers);
  OpProfile step_ops(n_layers);
  clock.start();
  // What after_step throws ends the run with the cache as it found it.
  struct ClearOnThrow {
    BatchScheduler& scheduler;
    ~ClearOnThrow() {
      if (std::uncaught_exceptions() > 0) scheduler.clear();
    }
  } clear_on_throw{scheduler_};

  while (!waiting.empty() || scheduler_.active() > 0) {
    // Admit arrived requests while a slot is free and the cache holds them.
    const double admit_ms = clock.now_ms();
    while (!waiting.empty() && arrival(waiting.front()) <= admit_ms &&
           scheduler_.can_admit(prompts[waiting.front()].size(), requests[waiting.front()].max_new_tokens)) {
      const size_t i = waiting.front();
      waiting.pop_front();
      scheduler_.admit(i, prompts[i], requests[i]);
      out.results[i].prompt_ids = prompts[i];
      out.results[i].timings.tokenize_ms = tokenize_ms[i];
    }
    if (scheduler_.active() == 0) {  // nothing in flight: wait for the next arrival
      clock.wait_until_ms(arrival(waiting.front()));
      if (after_step) after_step();
      continue;
    }
    step_ops.reset();
    const double step_start = clock.now_ms();
    const size_t arrived = static_cast<size_t>(std::count_if(
        waiting.begin(), waiting.end(), [&](size_t i) { return arrival(i) <= step_start; }));
    const BatchStep step = scheduler_.step(&step_ops);
    const double now = clock.now_ms();
    for (uint64_t tag : step.started) prefill_start_ms[tag] = step_start;
    for (const TokenEvent& ev : step.events)
      record(ev, prefill_start_ms[ev.tag], now, arrival(ev.tag), last_token_ms[ev.tag], out.results[ev.tag]);
    (step.prefill_tokens > 0 ? out.prefill_ops : out.decode_ops).merge(step_ops);
    out.steps.push_back({step_start, now - step_start, step.batch, step.prefill_tokens, step.decode_tokens,
                         scheduler_.cache().pool().blocks_in_use(), arrived});
    if (after_step) after_step();
  }
  out.wall_ms = clock.now_ms();
  return out;
}

}  // namespace pdbench
