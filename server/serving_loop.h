#pragma once
// The engine's loop in `pdbench serve` (run() on the main thread): requests
// come from the HTTP threads (submit), join one BatchScheduler in arrival order as batch
// slots and cache room allow, and each request's tokens go back to its
// handler as they are sampled (Job::next). A handler whose client went
// away cancels its job; the loop frees its blocks before its next step.
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/runtime/batch_scheduler.h"
#include "server/metrics.h"

namespace pdbench::server {

using ServerClock = std::chrono::steady_clock;

// One request between its handler and the loop.
class Job {
 public:
  Job(std::vector<int32_t> prompt, GenerateRequest request);

  // The next token event, waiting at most `timeout`: nullopt when none came
  // in time or the job has ended (ended() tells which).
  std::optional<TokenEvent> next(std::chrono::milliseconds timeout);
  bool ended() const;
  // Why the loop ended it early ("" when it ran to its end).
  std::string error() const;
  // Asks the loop to end it and free its blocks (before the next step).
  void cancel() { cancelled_ = true; }
  bool cancelled() const { return cancelled_; }

  const std::vector<int32_t>& prompt() const { return prompt_; }
  const GenerateRequest& request() const { return request_; }
  ServerClock::time_point arrival() const { return arrival_; }

 private:
  friend class ServingLoop;
  void push(TokenEvent event);
  void end(std::string error);

  std::vector<int32_t> prompt_;
  GenerateRequest request_;
  ServerClock::time_point arrival_ = ServerClock::now();
  ServerClock::time_point last_token_;
  std::atomic<bool> cancelled_{false};
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<TokenEvent> events_;
  bool ended_ = false;
  std::string error_;
};

struct LoopOptions {
  size_t max_batch = 8;      // batch slots: requests decoding at once
  size_t max_waiting = 256;  // queued requests beyond them; more get 503
  size_t profile_steps = 64;  // steps /debug/profile covers
  size_t prefill_chunk = 0;   // most prompt tokens a step prefills; 0: whole prompts
};

class ServingLoop {
 public:
  ServingLoop(const Engine& engine, const GeneratorOptions& generator, const LoopOptions& options,
              ServerMetrics& metrics);
  ServingLoop(const ServingLoop&) = delete;
  ServingLoop& operator=(const ServingLoop&) = delete;

  // Runs the steps on the calling thread until stop(); jobs still queued or
  // running then end with an error. Call it from the thread that ran the
  // process's other OpenMP regions (the model load): a second thread's team
  // doubles the threads libgomp manages, and past one per CPU its barriers
  // stop spinning and sleep, which made a 2-core decode step 4x slower.
  void run();
  void stop();

  // Queues a request. ApiError: 400 when it could never fit a sequence's
  // context, 503 when the queue is full or the server is draining.
  std::shared_ptr<Job> submit(std::vector<int32_t> prompt, const GenerateRequest& request);
  // Stops taking requests; returns when every queued and running one is done.
  void drain();

  size_t context() const { return context_; }  // positions one request may use
  EngineGauges gauges() const;
  // The per-op time of the last profile_steps steps, per phase (JSON).
  nlohmann::json recent_profile() const;

 private:
  struct StepRecord {
    double ms;
    size_t batch;
    size_t prefill_tokens;
    std::array<OpStats, kOpCount> ops;
  };
  // Under the lock: ends cancelled jobs, admits queued ones that fit.
  void schedule();
  void deliver(const BatchStep& step, const OpProfile& ops, double step_ms);
  void fail_all(const std::string& error);

  const Engine& engine_;
  LoopOptions options_;
  ServerMetrics& metrics_;
  BatchScheduler scheduler_;  // run()'s thread's alone
  size_t context_;
  mutable std::mutex mutex_;
  std::condition_variable work_;  // a job queued or cancelled, or stopping
  std::condition_variable idle_;  // nothing queued or running
  std::deque<std::shared_ptr<Job>> waiting_;
  std::map<uint64_t, std::shared_ptr<Job>> running_;  // by scheduler tag
  uint64_t next_tag_ = 0;
  size_t kv_blocks_used_ = 0;
  bool draining_ = false;
  bool stopping_ = false;
  std::deque<StepRecord> recent_;
};

}  // namespace pdbench::server
