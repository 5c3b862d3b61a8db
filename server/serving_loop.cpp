#include "server/serving_loop.h"

#include "engine/util/error.h"
#include "server/api_error.h"

namespace pdbench::server {

namespace {

double seconds_since(ServerClock::time_point t, ServerClock::time_point now) {
  return std::chrono::duration<double>(now - t).count();
}

}  // namespace

Job::Job(std::vector<int32_t> prompt, GenerateRequest request)
    : prompt_(std::move(prompt)), request_(std::move(request)) {}

std::optional<TokenEvent> Job::next(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  ready_.wait_for(lock, timeout, [&] { return !events_.empty() || ended_; });
  if (events_.empty()) return std::nullopt;
  TokenEvent e = std::move(events_.front());
  events_.pop_front();
  return e;
}

bool Job::ended() const {
  std::lock_guard lock(mutex_);
  return ended_ && events_.empty();
}

std::string Job::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

void Job::push(TokenEvent event) {
  {
    std::lock_guard lock(mutex_);
    events_.push_back(std::move(event));
  }
  ready_.notify_all();
}

void Job::end(std::string error) {
  {
    std::lock_guard lock(mutex_);
    ended_ = true;
    if (error_.empty()) error_ = std::move(error);
  }
  ready_.notify_all();
}

ServingLoop::ServingLoop(const Engine& engine, const GeneratorOptions& generator, const LoopOptions& options,
                         ServerMetrics& metrics)
    : engine_(engine),
      options_(options),
      metrics_(metrics),
      scheduler_(engine, generator, options.max_batch),
      context_(scheduler_.context()) {}

void ServingLoop::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_.notify_all();
}

std::shared_ptr<Job> ServingLoop::submit(std::vector<int32_t> prompt, const GenerateRequest& request) {
  if (prompt.size() > context_)
    throw invalid_field("prompt", "the prompt has " + std::to_string(prompt.size()) +
                                      " tokens but a request's context holds " + std::to_string(context_));
  try {
    scheduler_.check_fits(prompt.size(), request.max_new_tokens, "the request");  // reads only the context
  } catch (const Error& e) {
    throw invalid_field("max_tokens", e.what());
  }
  auto job = std::make_shared<Job>(std::move(prompt), request);
  {
    std::lock_guard lock(mutex_);
    if (draining_ || stopping_) throw ApiError(503, "server_error", "the server is shutting down", "", "unavailable");
    if (waiting_.size() >= options_.max_waiting)
      throw ApiError(503, "server_error",
                     "the queue is full (" + std::to_string(options_.max_waiting) + " requests waiting)", "",
                     "overloaded");
    waiting_.push_back(job);
  }
  work_.notify_one();
  return job;
}

void ServingLoop::drain() {
  std::unique_lock lock(mutex_);
  draining_ = true;
  idle_.wait(lock, [&] { return waiting_.empty() && running_.empty(); });
}

EngineGauges ServingLoop::gauges() const {
  std::lock_guard lock(mutex_);
  return {running_.size(), waiting_.size(), kv_blocks_used_, scheduler_.cache().pool().capacity_blocks()};
}

void ServingLoop::schedule() {
  for (auto it = running_.begin(); it != running_.end();) {
    if (!it->second->cancelled()) {
      ++it;
      continue;
    }
    scheduler_.cancel(it->first);
    it->second->end("cancelled");
    it = running_.erase(it);
  }
  std::erase_if(waiting_, [](const std::shared_ptr<Job>& j) {
    if (j->cancelled()) j->end("cancelled");
    return j->cancelled();
  });
  while (!waiting_.empty() &&
         scheduler_.can_admit(waiting_.front()->prompt().size(), waiting_.front()->request().max_new_tokens)) {
    const std::shared_ptr<Job> job = waiting_.front();
    waiting_.pop_front();
    const uint64_t tag = next_tag_++;
    scheduler_.admit(tag, job->prompt(), job->request());
    running_[tag] = job;
    metrics_.add_prompt_tokens(job->prompt().size());
  }
  kv_blocks_used_ = scheduler_.cache().pool().blocks_in_use();
}

void ServingLoop::deliver(const BatchStep& step, const OpProfile& ops, double step_ms) {
  const auto now = ServerClock::now();
  for (const TokenEvent& ev : step.events) {
    const auto it = running_.find(ev.tag);
    Job& job = *it->second;
    if (ev.first)
      metrics_.observe_ttft(seconds_since(job.arrival(), now));
    else
      metrics_.observe_inter_token(seconds_since(job.last_token_, now));
    job.last_token_ = now;
    if (ev.id) metrics_.add_generation_tokens(1);
    job.push(ev);
    if (!ev.stop_reason.empty()) {
      job.end("");
      running_.erase(it);
    }
  }
  metrics_.observe_step(step_ms / 1000);
  StepRecord r{step_ms, step.batch, step.prefill_tokens, {}};
  for (size_t o = 0; o < kOpCount; ++o) r.ops[o] = ops.total(static_cast<Op>(o));
  recent_.push_back(r);
  while (recent_.size() > options_.profile_steps) recent_.pop_front();
  kv_blocks_used_ = scheduler_.cache().pool().blocks_in_use();
}

void ServingLoop::fail_all(const std::string& error) {
  for (auto& [tag, job] : running_) job->end(error);
  running_.clear();
  for (const auto& job : waiting_) job->end(error);
  waiting_.clear();
  scheduler_.clear();
  kv_blocks_used_ = 0;
}

void ServingLoop::run() {
  scheduler_.set_prefill_chunk(options_.prefill_chunk);  // here: the scheduler is this thread's
  OpProfile ops(engine_.model().config().n_layers);
  std::unique_lock lock(mutex_);
  while (true) {
    work_.wait(lock, [&] { return stopping_ || !waiting_.empty() || !running_.empty(); });
    if (stopping_) break;
    schedule();
    if (running_.empty()) {  // only cancelled jobs were waiting
      if (waiting_.empty()) idle_.notify_all();
      continue;
    }
    lock.unlock();
    ops.reset();
    const auto t0 = ServerClock::now();
    BatchStep step;
    std::string error;
    try {
      step = scheduler_.step(&ops);
    } catch (const std::exception& e) {
      error = e.what();
    }
    const double step_ms = std::chrono::duration<double, std::milli>(ServerClock::now() - t0).count();
    lock.lock();
    if (error.empty())
      deliver(step, ops, step_ms);
    else
      fail_all("the engine failed: " + error);
    if (waiting_.empty() && running_.empty()) idle_.notify_all();
  }
  fail_all("the server is stopping");
  idle_.notify_all();
}

nlohmann::json ServingLoop::recent_profile() const {
  std::lock_guard lock(mutex_);
  nlohmann::json phases = nlohmann::json::object();
  nlohmann::json steps = nlohmann::json::array();
  for (const StepRecord& r : recent_) {
    const char* phase = r.prefill_tokens > 0 ? "prefill" : "decode";
    nlohmann::json& p = phases[phase];
    if (p.is_null()) p = {{"steps", 0}, {"ms", 0.0}, {"prefill_tokens", 0}, {"sequence_steps", 0}, {"ops", nlohmann::json::object()}};
    p["steps"] = p["steps"].get<size_t>() + 1;
    p["ms"] = p["ms"].get<double>() + r.ms;
    p["prefill_tokens"] = p["prefill_tokens"].get<size_t>() + r.prefill_tokens;
    p["sequence_steps"] = p["sequence_steps"].get<size_t>() + r.batch;
    for (size_t o = 0; o < kOpCount; ++o) {
      if (r.ops[o].calls == 0) continue;
      nlohmann::json& op = p["ops"][std::string(op_name(static_cast<Op>(o)))];
      if (op.is_null()) op = {{"ms", 0.0}, {"calls", 0}, {"gflop", 0.0}, {"mb", 0.0}};
      op["ms"] = op["ms"].get<double>() + static_cast<double>(r.ops[o].ns) / 1e6;
      op["calls"] = op["calls"].get<uint64_t>() + r.ops[o].calls;
      op["gflop"] = op["gflop"].get<double>() + r.ops[o].flops / 1e9;
      op["mb"] = op["mb"].get<double>() + r.ops[o].bytes / 1e6;
    }
    steps.push_back({{"ms", r.ms}, {"batch", r.batch}, {"prefill_tokens", r.prefill_tokens}});
  }
  return {{"window_steps", options_.profile_steps}, {"phases", phases}, {"steps", steps}};
}

}  // namespace pdbench::server
