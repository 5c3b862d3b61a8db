#include "server/metrics.h"

#include <algorithm>
#include <cstdio>

namespace pdbench::server {

namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

void header(std::string& out, const std::string& name, const char* type, const char* help) {
  out += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

void scalar(std::string& out, const std::string& name, const char* type, const char* help, double v) {
  header(out, name, type, help);
  out += name + " " + number(v) + "\n";
}

const std::string kPrefix = "pdbench:";

}  // namespace

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)), counts_(bounds_.size() + 1) {}

void Histogram::observe(double v) {
  const auto it = std::lower_bound(bounds_.begin(), bounds_.end(), v);  // le: v <= bound
  ++counts_[static_cast<size_t>(it - bounds_.begin())];
  sum_ += v;
  ++count_;
}

std::string Histogram::text(const std::string& name) const {
  std::string out;
  size_t cumulative = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += counts_[i];
    const std::string le = i < bounds_.size() ? number(bounds_[i]) : "+Inf";
    out += name + "_bucket{le=\"" + le + "\"} " + std::to_string(cumulative) + "\n";
  }
  out += name + "_sum " + number(sum_) + "\n" + name + "_count " + std::to_string(count_) + "\n";
  return out;
}

// vLLM's buckets, with finer ones below 10 ms for a CPU's small models.
ServerMetrics::ServerMetrics()
    : ttft_({0.001, 0.0025, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40,
             80, 160, 640}),
      inter_token_({0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1,
                    2.5, 5, 10}),
      e2e_({0.01, 0.05, 0.1, 0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 60, 120, 240, 480, 960}),
      step_({0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}) {}

void ServerMetrics::add_prompt_tokens(size_t n) {
  std::lock_guard lock(mutex_);
  prompt_tokens_ += n;
}

void ServerMetrics::add_generation_tokens(size_t n) {
  std::lock_guard lock(mutex_);
  generation_tokens_ += n;
}

void ServerMetrics::observe_ttft(double s) {
  std::lock_guard lock(mutex_);
  ttft_.observe(s);
}

void ServerMetrics::observe_inter_token(double s) {
  std::lock_guard lock(mutex_);
  inter_token_.observe(s);
}

void ServerMetrics::observe_step(double s) {
  std::lock_guard lock(mutex_);
  step_.observe(s);
}

void ServerMetrics::request_finished(const std::string& finish_reason, double e2e_seconds) {
  std::lock_guard lock(mutex_);
  ++finished_[finish_reason];
  e2e_.observe(e2e_seconds);
}

void ServerMetrics::request_refused() {
  std::lock_guard lock(mutex_);
  ++refused_;
}

std::string ServerMetrics::prometheus(const EngineGauges& g) const {
  std::lock_guard lock(mutex_);
  std::string out;
  scalar(out, kPrefix + "num_requests_running", "gauge", "Requests in the running batch.",
         static_cast<double>(g.requests_running));
  scalar(out, kPrefix + "num_requests_waiting", "gauge", "Requests queued for a batch slot or cache room.",
         static_cast<double>(g.requests_waiting));
  scalar(out, kPrefix + "kv_cache_blocks_used", "gauge", "KV cache blocks in use.",
         static_cast<double>(g.kv_blocks_used));
  scalar(out, kPrefix + "kv_cache_blocks_total", "gauge", "KV cache blocks in the pool.",
         static_cast<double>(g.kv_blocks_total));
  scalar(out, kPrefix + "kv_cache_usage_perc", "gauge", "Fraction of KV cache blocks in use (0 to 1).",
         g.kv_blocks_total == 0 ? 0.0 : static_cast<double>(g.kv_blocks_used) / static_cast<double>(g.kv_blocks_total));
  scalar(out, kPrefix + "prompt_tokens_total", "counter", "Prompt tokens prefilled.",
         static_cast<double>(prompt_tokens_));
  scalar(out, kPrefix + "generation_tokens_total", "counter", "Tokens generated.",
         static_cast<double>(generation_tokens_));
  header(out, kPrefix + "request_success_total", "counter", "Requests finished, by finish reason.");
  for (const char* reason : {"stop", "length", "abort"}) {
    const auto it = finished_.find(reason);
    out += kPrefix + "request_success_total{finished_reason=\"" + reason + "\"} " +
           std::to_string(it == finished_.end() ? 0 : it->second) + "\n";
  }
  scalar(out, kPrefix + "request_refused_total", "counter", "Requests answered with an error before they ran.",
         static_cast<double>(refused_));
  header(out, kPrefix + "time_to_first_token_seconds", "histogram", "Arrival to first token.");
  out += ttft_.text(kPrefix + "time_to_first_token_seconds");
  header(out, kPrefix + "inter_token_latency_seconds", "histogram", "Time between a request's tokens.");
  out += inter_token_.text(kPrefix + "inter_token_latency_seconds");
  header(out, kPrefix + "e2e_request_latency_seconds", "histogram", "Arrival to the last token.");
  out += e2e_.text(kPrefix + "e2e_request_latency_seconds");
  header(out, kPrefix + "step_duration_seconds", "histogram", "One batched forward step with its sampling.");
  out += step_.text(kPrefix + "step_duration_seconds");
  return out;
}

}  // namespace pdbench::server
