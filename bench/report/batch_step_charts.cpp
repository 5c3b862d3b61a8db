#include "bench/report/batch_step_charts.h"

#include <cmath>
#include <map>
#include <string>

#include "bench/report/cases.h"
#include "bench/runner/stats.h"

namespace pdbench::report {

namespace {

using json = nlohmann::json;

// The load case of the first run that has steps with the most goodput, or
// output throughput where no case has an [sla]; its id, or "" for none.
std::string best_case(const RunData& run) {
  std::string best;
  double best_value = -1;
  for (const char* column : {"goodput_median_req_s", "output_median_tok_s"}) {
    if (!has_column(run.summary, column)) return "";
    for (const Row& row : run.summary.rows) {
      const double v = number(run.summary, row, column);
      if (std::isfinite(v) && v > best_value) {
        best_value = v;
        best = cell(run.summary, row, "case_id");
      }
    }
    if (!best.empty()) return best;
  }
  return best;
}

// The first repetition's steps of that case, one datum per step and series.
struct StepData {
  json tokens = json::array();  // prefill and decode tokens per step
  json queue = json::array();   // KV blocks in use and requests waiting
  std::vector<double> mixed_ms, decode_only_ms;
};

StepData step_data(const runner::Table& steps, const std::string& case_id) {
  StepData d;
  for (const Row& row : steps.rows) {
    if (cell(steps, row, "case_id") != case_id || cell(steps, row, "rep") != "0") continue;
    const double t = number(steps, row, "start_ms") / 1000.0;
    const double prefill = number(steps, row, "prefill_tokens"), decode = number(steps, row, "decode_tokens");
    d.tokens.push_back({{"t", t}, {"tokens", prefill}, {"kind", "prompt tokens"}});
    d.tokens.push_back({{"t", t}, {"tokens", decode}, {"kind", "decode tokens"}});
    d.queue.push_back({{"t", t}, {"value", number(steps, row, "kv_blocks")}, {"measure", "KV blocks in use"}});
    d.queue.push_back({{"t", t}, {"value", number(steps, row, "waiting")}, {"measure", "requests waiting"}});
    if (decode > 0) (prefill > 0 ? d.mixed_ms : d.decode_only_ms).push_back(number(steps, row, "step_ms"));
  }
  return d;
}

const json kTimeAxis = {{"field", "t"}, {"type", "quantitative"}, {"title", "time from the run's start (s)"}};

Chart tokens_chart(const std::string& case_id, const StepData& d) {
  const std::string title = "Tokens per step over a run: " + case_id;
  json spec = base_spec(title);
  spec["data"] = {{"values", d.tokens}};
  spec["mark"] = {{"type", "area"}, {"interpolate", "step-after"}, {"opacity", 0.8}};
  spec["encoding"] = {
      {"x", kTimeAxis},
      {"y", {{"field", "tokens"}, {"type", "quantitative"}, {"stack", "zero"}, {"title", "tokens in the step"}}},
      {"color", {{"field", "kind"}, {"type", "nominal"}, {"title", "tokens"},
                 {"scale", {{"domain", {"prompt tokens", "decode tokens"}},
                            {"range", {kPrefillColor, kDecodeColor}}}}}}};
  std::string note = std::to_string(d.mixed_ms.size()) + " mixed steps (prompt and decode tokens) and " +
                     std::to_string(d.decode_only_ms.size()) + " decode-only steps";
  if (!d.mixed_ms.empty() && !d.decode_only_ms.empty())
    note += "; median step " + runner::csv_number(runner::median(d.mixed_ms)) + " ms mixed against " +
            runner::csv_number(runner::median(d.decode_only_ms)) + " ms decode-only";
  return {"load-step-tokens", "Serving load", title,
          "batch_steps.csv, first repetition of the load case with the most goodput (or output throughput): each "
          "step's prompt tokens (prefill, or a prefill chunk) stacked on its decode tokens, over the run.",
          spec, note + "."};
}

Chart queue_chart(const std::string& case_id, const StepData& d) {
  const std::string title = "KV cache and queue over a run: " + case_id;
  json spec = base_spec(title);
  spec["data"] = {{"values", d.queue}};
  spec["mark"] = {{"type", "line"}, {"interpolate", "step-after"}, {"strokeWidth", 1.5}};
  const json counts = {{"format", "d"}, {"tickMinStep", 1}};
  spec["encoding"] = {{"x", kTimeAxis},
                      {"y", {{"field", "value"}, {"type", "quantitative"}, {"title", nullptr}, {"axis", counts}}},
                      {"row", {{"field", "measure"}, {"type", "nominal"}, {"title", nullptr}}},
                      {"color", {{"field", "measure"}, {"type", "nominal"}, {"legend", nullptr}}}};
  spec["resolve"] = {{"scale", {{"y", "independent"}}}};
  spec["height"] = 110;
  return {"load-step-queue", "Serving load", title,
          "batch_steps.csv, the same run: KV cache blocks in use after each step, and requests that had arrived but "
          "were not admitted (no slot or no cache room) when it started.",
          spec, ""};
}

// Each operator's time per step of the case's first run: the steps that
// prefilled prompt tokens (beside any decode tokens: ops.csv's prefill
// phase) against the decode-only steps. The embedding runs once a step, so
// its calls count each phase's steps.
Chart step_ops_chart(const runner::Table& ops, const std::string& case_id) {
  std::map<std::string, double> steps;
  for (const Row& row : ops.rows)
    if (cell(ops, row, "case_id") == case_id && cell(ops, row, "rep") == "0" && cell(ops, row, "op") == "embedding")
      steps[cell(ops, row, "phase")] = number(ops, row, "calls");
  json values = json::array();
  for (const Row& row : ops.rows) {
    if (cell(ops, row, "case_id") != case_id || cell(ops, row, "rep") != "0") continue;
    const std::string& phase = cell(ops, row, "phase");
    const double n = steps[phase];
    if (!(n > 0)) continue;
    values.push_back({{"op", cell(ops, row, "op")},
                      {"steps", phase == "prefill" ? "steps with prompt tokens" : "decode-only steps"},
                      {"ms", number(ops, row, "ms") / n}});
  }
  const std::string title = "Where a step's time goes: " + case_id;
  json spec = base_spec(title);
  spec["data"] = {{"values", values}};
  spec["mark"] = {{"type", "bar"}};
  spec["encoding"] = {
      {"y", {{"field", "op"}, {"type", "nominal"}, {"title", nullptr}, {"sort", "-x"}}},
      {"yOffset", {{"field", "steps"}}},
      {"x", {{"field", "ms"}, {"type", "quantitative"}, {"title", "time per step, first run (ms)"}}},
      {"color", {{"field", "steps"}, {"type", "nominal"}, {"title", "steps"},
                 {"scale", {{"domain", {"steps with prompt tokens", "decode-only steps"}},
                            {"range", {kPrefillColor, kDecodeColor}}}}}},
      {"tooltip", json::array({{{"field", "op"}, {"title", "operator"}}, {{"field", "steps"}, {"title", "steps"}},
                               value_field("ms", "ms per step")})}};
  return {"load-step-ops", "Serving load", title,
          "ops.csv, the same case's first run: each operator's time per step in the steps that prefilled prompt "
          "tokens (with the decode tokens beside them) and in the decode-only steps; a step's count is its "
          "embedding's calls.",
          spec, ""};
}

}  // namespace

std::vector<Chart> batch_step_charts(const std::vector<RunData>& runs) {
  for (const RunData& run : runs) {
    const std::string case_id = best_case(run);
    if (case_id.empty()) continue;
    std::vector<Chart> charts;
    if (const StepData d = step_data(run.batch_steps, case_id); !d.tokens.empty()) {
      charts.push_back(tokens_chart(case_id, d));
      charts.push_back(queue_chart(case_id, d));
    }
    if (Chart c = step_ops_chart(run.ops, case_id); !c.spec["data"]["values"].empty()) charts.push_back(std::move(c));
    return charts;
  }
  return {};
}

}  // namespace pdbench::report
