#pragma once
// What GET /metrics reports, in Prometheus' text format (version 0.0.4).
// Names follow vLLM's (`vllm:time_to_first_token_seconds` here is
// `pdbench:time_to_first_token_seconds`), which llama-server's and most
// dashboards' readers know; latencies are histograms in seconds. Updated
// from the engine's thread and the HTTP threads alike.
#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace pdbench::server {

class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);
  void observe(double v);
  // The _bucket (cumulative, le="+Inf" last), _sum and _count lines of `name`.
  std::string text(const std::string& name) const;

 private:
  std::vector<double> bounds_;
  std::vector<size_t> counts_;  // per bucket, not cumulative; the last is +Inf
  double sum_ = 0;
  size_t count_ = 0;
};

// The engine's state when /metrics is read.
struct EngineGauges {
  size_t requests_running = 0;
  size_t requests_waiting = 0;
  size_t kv_blocks_used = 0;
  size_t kv_blocks_total = 0;
};

class ServerMetrics {
 public:
  ServerMetrics();

  void add_prompt_tokens(size_t n);
  void add_generation_tokens(size_t n);
  void observe_ttft(double seconds);
  void observe_inter_token(double seconds);
  void observe_step(double seconds);
  // A request that ended: finish_reason stop, length or abort (client gone,
  // server stopping); e2e from its arrival.
  void request_finished(const std::string& finish_reason, double e2e_seconds);
  void request_refused();  // answered with an error before it ran

  std::string prometheus(const EngineGauges& gauges) const;

 private:
  mutable std::mutex mutex_;
  size_t prompt_tokens_ = 0;
  size_t generation_tokens_ = 0;
  size_t refused_ = 0;
  std::map<std::string, size_t> finished_;  // by finish reason
  Histogram ttft_;
  Histogram inter_token_;
  Histogram e2e_;
  Histogram step_;
};

}  // namespace pdbench::server
