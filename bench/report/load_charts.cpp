#include "bench/report/load_charts.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "bench/report/batch_step_charts.h"
#include "bench/report/cases.h"

namespace pdbench::report {

namespace {

using json = nlohmann::json;

// "4 slots", with the run's label in front when there are several runs.
std::string slots_label(const RunData& run, const Row& row, bool multi_run) {
  const std::string slots = cell(run.summary, row, "max_concurrency") + " slots";
  return multi_run ? run.label + " · " + slots : slots;
}

// The summary rows of load cases, each as the datum every load chart starts
// from; with finite_only, those sent at a finite rate (inf has no place on a
// rate axis).
json load_rows(const std::vector<RunData>& runs, bool finite_only) {
  json rows = json::array();
  for (const RunData& run : runs) {
    if (!has_column(run.summary, "request_rate")) continue;  // a folder from before load cases
    for (const Row& row : run.summary.rows) {
      const double rate = number(run.summary, row, "request_rate");
      if (std::isnan(rate) || (finite_only && !std::isfinite(rate))) continue;
      rows.push_back({{"run", run.label},
                      {"case_id", cell(run.summary, row, "case_id")},
                      {"request_rate", rate},
                      {"slots", slots_label(run, row, runs.size() > 1)},
                      {"row", &row - run.summary.rows.data()}});
    }
  }
  return rows;
}

const RunData& run_of(const std::vector<RunData>& runs, const json& datum) {
  for (const RunData& run : runs)
    if (run.label == datum["run"]) return run;
  return runs.front();
}

// Lines over the request rate (log axis): y, colored by one field and
// dashed by another, a line per case detail.
struct RateLines {
  std::string y, y_title;
  json y_scale;
  std::string color, color_title, dash, dash_title;
};

json rate_lines_spec(const std::string& title, const json& values, const RateLines& l) {
  json spec = base_spec(title);
  spec["data"] = {{"values", values}};
  spec["mark"] = {{"type", "line"}, {"strokeWidth", 2}, {"point", {{"size", 50}, {"filled", true}}}};
  spec["encoding"] = {
      {"x", {{"field", "request_rate"}, {"type", "quantitative"}, {"title", "request rate (requests/s)"},
             {"scale", {{"type", "log"}}}}},
      {"y", {{"field", l.y}, {"type", "quantitative"}, {"title", l.y_title}, {"scale", l.y_scale}}},
      {"color", {{"field", l.color}, {"type", "nominal"}, {"title", l.color_title}}},
      {"strokeDash", {{"field", l.dash}, {"type", "nominal"}, {"title", l.dash_title}}},
      {"detail", {{"field", "case_id"}, {"type", "nominal"}}},
      {"tooltip", json::array({{{"field", "case_id"}, {"title", "case"}}, value_field("request_rate", "rate (requests/s)"),
                               {{"field", l.color}, {"title", l.color_title}}, {{"field", l.dash}, {"title", l.dash_title}},
                               value_field(l.y, l.y_title)})}};
  return spec;
}

Chart latency_chart(const std::vector<RunData>& runs, const json& rows) {
  json values = json::array();
  for (const json& r : rows) {
    const RunData& run = run_of(runs, r);
    const Row& row = run.summary.rows[r["row"].get<size_t>()];
    for (const char* metric : {"ttft", "tpot"})
      for (const char* p : {"p50", "p90", "p99"}) {
        const double ms = number(run.summary, row, std::string(metric) + "_" + p + "_ms");
        if (!std::isfinite(ms)) continue;
        json d = {{"run", r["run"]}, {"case_id", r["case_id"]}, {"request_rate", r["request_rate"]},
                  {"slots", r["slots"]}, {"ms", ms}};
        d["latency"] = std::string(metric == std::string("ttft") ? "TTFT " : "TPOT ") + p;
        values.push_back(std::move(d));
      }
  }
  const std::string title = "Latency percentiles vs request rate";
  const json spec = rate_lines_spec(title, values,
                                    {"ms", "latency over every request (ms)", {{"type", "log"}}, "latency", "percentile",
                                     "slots", "max_concurrency"});
  return {"load-latency", "Serving load", title,
          "summary.csv: p50, p90 and p99 of TTFT and TPOT over every request of every run of a load case, against "
          "its request rate; one line per percentile and slot count.",
          spec, ""};
}

// What each run's [rate_search] found (meta.json), one sentence a setting.
std::string rate_search_sentences(const std::vector<RunData>& runs, bool multi_run) {
  std::string out;
  for (const RunData& run : runs)
    for (const json& s : run.meta.value("rate_search", json::array())) {
      const json& best = s["highest_rate_met"];
      const size_t n = s["probes"].size();
      const std::string probes = std::to_string(n) + (n == 1 ? " rate measured" : " rates measured");
      out += std::string(out.empty() ? "" : " ") + "Rate search" + (multi_run ? " (" + run.label + ")" : "") + ", " +
             s["setting"].get<std::string>() + ": " +
             (best.is_null() ? "no rate searched meets the SLA"
                             : "the highest rate meeting the SLA is " + runner::csv_number(best.get<double>()) + " req/s") +
             " (" + probes + ").";
    }
  return out;
}

Chart goodput_chart(const std::vector<RunData>& runs, const json& rows) {
  json values = json::array();
  bool any_sla = false;
  for (const json& r : rows) {
    const RunData& run = run_of(runs, r);
    const Row& row = run.summary.rows[r["row"].get<size_t>()];
    const double goodput = number(run.summary, row, "goodput_median_req_s");
    any_sla = any_sla || std::isfinite(goodput);
    for (const auto& [series, column] : {std::pair{"goodput", "goodput_median_req_s"},
                                         std::pair{"throughput", "request_throughput_median_req_s"}}) {
      const double v = number(run.summary, row, column);
      if (std::isfinite(v))
        values.push_back({{"run", r["run"]}, {"case_id", r["case_id"]}, {"request_rate", r["request_rate"]},
                          {"slots", r["slots"]}, {"req_s", v}, {"measure", series}});
    }
  }
  const std::string title = "Goodput vs request rate";
  const json spec = rate_lines_spec(title, values,
                                    {"req_s", "requests/s, median over runs", json::object(), "slots", "max_concurrency",
                                     "measure", "measure"});
  return {"load-goodput", "Serving load", title,
          "summary.csv: requests/s within the [sla] limits (goodput) and all requests/s (throughput) against the "
          "request rate; one color per slot count.",
          spec, any_sla ? rate_search_sentences(runs, runs.size() > 1) : "No [sla] limits: only the request throughput is drawn."};
}

// Whether another point has no more latency and no less throughput, and
// is better in one of them.
bool dominated(const json& a, const json& points) {
  const double x = a["tpot_ms"], y = a["tok_s"];
  for (const json& b : points) {
    const double bx = b["tpot_ms"], by = b["tok_s"];
    if (bx <= x && by >= y && (bx < x || by > y)) return true;
  }
  return false;
}

// Output throughput against the median request's TPOT for every load case,
// and the front no other setting beats in both: what each slot count and
// rate buys in throughput for the per-token latency it costs.
Chart pareto_chart(const std::vector<RunData>& runs, const json& rows) {
  json points = json::array();
  for (const json& r : rows) {
    const RunData& run = run_of(runs, r);
    const Row& row = run.summary.rows[r["row"].get<size_t>()];
    const double tpot = number(run.summary, row, "tpot_p50_ms");
    const double tok_s = number(run.summary, row, "output_median_tok_s");
    if (!std::isfinite(tpot) || !std::isfinite(tok_s)) continue;
    json d = r;
    d["rate"] = cell(run.summary, row, "request_rate");
    d["tpot_ms"] = tpot;
    d["tok_s"] = tok_s;
    points.push_back(std::move(d));
  }
  json front = json::array();
  for (const json& p : points)
    if (!dominated(p, points)) front.push_back(p);
  std::sort(front.begin(), front.end(), [](const json& a, const json& b) { return a["tpot_ms"] < b["tpot_ms"]; });
  const std::string title = "Throughput vs latency: the Pareto front";
  json spec = base_spec(title);
  const json x = {{"field", "tpot_ms"}, {"type", "quantitative"}, {"title", "TPOT p50 over every request (ms)"},
                  {"scale", {{"zero", false}}}};
  const json y = {{"field", "tok_s"}, {"type", "quantitative"}, {"title", "output tokens/s, median over runs"}};
  const json tooltip = json::array({{{"field", "case_id"}, {"title", "case"}}, {{"field", "rate"}, {"title", "rate (req/s)"}},
                                    {{"field", "slots"}, {"title", "max_concurrency"}},
                                    value_field("tpot_ms", "TPOT p50 (ms)"), value_field("tok_s", "output tokens/s")});
  spec["layer"] = json::array();
  spec["layer"].push_back({{"data", {{"values", front}}},
                           {"mark", {{"type", "line"}, {"color", "#555"}, {"strokeDash", {4, 3}}, {"interpolate", "step-after"}}},
                           {"encoding", {{"x", x}, {"y", y}}}});
  spec["layer"].push_back(
      {{"data", {{"values", points}}},
       {"mark", {{"type", "point"}, {"filled", true}, {"size", 70}}},
       {"encoding",
        {{"x", x}, {"y", y}, {"color", {{"field", "slots"}, {"type", "nominal"}, {"title", "max_concurrency"}}}, {"tooltip", tooltip}}}});
  return {"load-pareto", "Serving load", title,
          "summary.csv: each load case's output tokens/s against its median TPOT, one color per slot count; the "
          "dashed line joins the settings no other beats in both (the Pareto front).",
          spec, std::to_string(front.size()) + " of " + std::to_string(points.size()) + " settings are on the front."};
}

}  // namespace

std::vector<Chart> load_charts(const std::vector<RunData>& runs) {
  std::vector<Chart> charts;
  if (const json rows = load_rows(runs, true); !rows.empty()) {
    charts.push_back(latency_chart(runs, rows));
    charts.push_back(goodput_chart(runs, rows));
  }
  if (const json rows = load_rows(runs, false); !rows.empty()) charts.push_back(pareto_chart(runs, rows));
  for (Chart& c : batch_step_charts(runs)) charts.push_back(std::move(c));
  return charts;
}

}  // namespace pdbench::report
