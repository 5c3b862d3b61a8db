#include "bench/runner/load_results.h"

#include <cmath>

#include "bench/runner/stats.h"

namespace pdbench::runner {

namespace {

std::string rate_cell(double v) { return std::isinf(v) ? "inf" : csv_number(v); }

std::string limit_cell(double ms) { return ms > 0 ? csv_number(ms) : std::string(); }

// A request's time per output token after the first; none for one token.
std::string tpot_cell(const RequestSample& r) {
  return r.generated > 1 ? csv_number(r.timings.decode_ms / static_cast<double>(r.generated - 1)) : std::string();
}

double tpot_of(const RequestSample& r) {
  return r.generated > 1 ? r.timings.decode_ms / static_cast<double>(r.generated - 1) : 0.0;
}

}  // namespace

const std::vector<std::string>& load_case_columns() {
  static const std::vector<std::string> columns = {
      "request_rate", "arrival_process", "burstiness",  "max_concurrency", "prefill_chunk", "requests",
      "duration_s",   "prompt_dist",     "prompt_spread", "output_dist",   "output_spread", "trace_timing"};
  return columns;
}

std::vector<std::string> load_case_cells(const Case& c) {
  const LoadSetting& l = c.load;
  if (!l.active()) return std::vector<std::string>(load_case_columns().size());
  return {rate_cell(l.request_rate),   l.arrival,        csv_number(l.burstiness),
          std::to_string(l.max_concurrency), std::to_string(l.prefill_chunk), std::to_string(l.requests),
          csv_number(l.duration_s),     l.prompt_dist,    csv_number(l.prompt_spread),
          l.output_dist,                csv_number(l.output_spread), l.trace_timing};
}

const std::vector<std::string>& load_sample_columns() {
  static const std::vector<std::string> columns = {
      "requests_sent", "duration_ms", "request_throughput_req_s", "output_tok_s",   "total_tok_s",
      "goodput_req_s", "requests_within_sla", "sla_ttft_p99_ms",  "sla_tpot_p99_ms"};
  return columns;
}

std::vector<std::string> load_sample_cells(const Case& c, const RunResult& run, const Sla& sla) {
  if (!c.is_load() || run.wall_ms <= 0) return std::vector<std::string>(load_sample_columns().size());
  double prompt = 0, output = 0, within = 0;
  for (const RequestSample& r : run.requests) {
    prompt += static_cast<double>(r.prompt_tokens);
    output += static_cast<double>(r.generated);
    within += sla.met_by(r.timings.ttft_ms, tpot_of(r)) ? 1 : 0;
  }
  const double seconds = run.wall_ms / 1000;
  const auto n = static_cast<double>(run.requests.size());
  return {std::to_string(run.requests.size()), csv_number(run.wall_ms), csv_number(n / seconds),
          csv_number(output / seconds),        csv_number((prompt + output) / seconds),
          sla.any() ? csv_number(within / seconds) : "", sla.any() ? csv_number(within) : "",
          limit_cell(sla.ttft_p99_ms), limit_cell(sla.tpot_p99_ms)};
}

const std::vector<std::string>& requests_value_columns() {
  static const std::vector<std::string> columns = {
      "arrival_ms", "prompt_tokens", "output_tokens", "generated_tokens", "queue_ms",      "prefill_ms", "ttft_ms",
      "decode_ms",  "tpot_ms",       "e2e_ms",        "itl_median_ms",    "itl_max_ms",    "within_sla"};
  return columns;
}

void append_requests(Table& requests, const Case& c, size_t rep, const RunResult& run, const Sla& sla) {
  for (size_t i = 0; i < run.requests.size(); ++i) {
    const RequestSample& r = run.requests[i];
    const Timings& t = r.timings;
    const std::vector<double>& itl = t.step_ms;
    requests.rows.push_back({std::to_string(c.index), c.id, std::to_string(rep), std::to_string(i),
                             csv_number(r.arrival_ms), std::to_string(r.prompt_tokens), std::to_string(r.output_tokens),
                             std::to_string(r.generated), csv_number(t.queue_ms), csv_number(t.prefill_ms),
                             csv_number(t.ttft_ms), csv_number(t.decode_ms), tpot_cell(r), csv_number(t.e2e_ms),
                             itl.empty() ? "" : csv_number(median(itl)),
                             itl.empty() ? "" : csv_number(*std::max_element(itl.begin(), itl.end())),
                             sla.any() ? (sla.met_by(t.ttft_ms, tpot_of(r)) ? "1" : "0") : ""});
  }
}

const std::vector<std::string>& batch_steps_columns() {
  static const std::vector<std::string> columns = {
      "case_index", "case_id",       "rep",           "step",      "start_ms",
      "step_ms",    "batch",         "prefill_tokens", "decode_tokens", "kv_blocks", "waiting"};
  return columns;
}

void append_batch_steps(Table& batch_steps, const Case& c, size_t rep, const RunResult& run) {
  for (size_t i = 0; i < run.batch_steps.size(); ++i) {
    const BatchStepRecord& s = run.batch_steps[i];
    batch_steps.rows.push_back({std::to_string(c.index), c.id, std::to_string(rep), std::to_string(i),
                                csv_number(s.start_ms), csv_number(s.ms), std::to_string(s.batch),
                                std::to_string(s.prefill_tokens), std::to_string(s.decode_tokens),
                                std::to_string(s.kv_blocks), std::to_string(s.waiting)});
  }
}

const std::vector<std::string>& load_summary_columns() {
  static const std::vector<std::string> columns = {
      "requests_sent",        "request_throughput_median_req_s", "output_median_tok_s", "total_median_tok_s",
      "goodput_median_req_s", "sla_ttft_p99_ms",                 "sla_tpot_p99_ms",     "sla_met"};
  return columns;
}

std::vector<std::string> load_summary_cells(const Table& samples, const std::vector<const std::vector<std::string>*>& rows,
                                            const std::string& ttft_p99, const std::string& tpot_p99) {
  const auto& first = *rows.front();
  if (first[samples.column("requests_sent")].empty()) return std::vector<std::string>(load_summary_columns().size());
  const auto column_median = [&](const char* column) {
    std::vector<double> v;
    for (const auto* r : rows)
      if (!(*r)[samples.column(column)].empty()) v.push_back(cell_number(samples, *r, column));
    return v.empty() ? std::string() : csv_number(median(v));
  };
  const std::string ttft_limit = first[samples.column("sla_ttft_p99_ms")];
  const std::string tpot_limit = first[samples.column("sla_tpot_p99_ms")];
  // The case meets the SLA when each limit holds for the p99 over every request.
  const auto within = [](const std::string& p99, const std::string& limit, const char* limit_column) {
    return limit.empty() || (!p99.empty() && std::stod(p99) <= cell_number(limit_column, limit));
  };
  const bool any = !ttft_limit.empty() || !tpot_limit.empty();
  const bool met = within(ttft_p99, ttft_limit, "sla_ttft_p99_ms") && within(tpot_p99, tpot_limit, "sla_tpot_p99_ms");
  return {column_median("requests_sent"), column_median("request_throughput_req_s"), column_median("output_tok_s"),
          column_median("total_tok_s"),   column_median("goodput_req_s"), ttft_limit, tpot_limit,
          std::string(any ? (met ? "1" : "0") : "")};
}

}  // namespace pdbench::runner
