#include "bench/report/chart_specs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "bench/report/cases.h"
#include "bench/report/insights.h"
#include "bench/report/load_charts.h"

namespace pdbench::report {

namespace {

using json = nlohmann::json;

constexpr int kWidth = 470;
constexpr int kHeight = 280;
const char* const kNumber = ".5~r";  // tooltips: five significant digits
// The per-operator chart draws ops under this share of their phase as one
// "other" bar (their sum), so a dozen slivers do not need a dozen colours.
constexpr double kSmallOpSharePct = 3;

}  // namespace

json base_spec(const std::string& title) {
  return {{"width", kWidth},
          {"height", kHeight},
          {"title", {{"text", title}, {"anchor", "start"}, {"fontSize", 14}}},
          {"config",
           {{"font", "system-ui, -apple-system, Segoe UI, Roboto, sans-serif"},
            {"axis", {{"labelFontSize", 11}, {"titleFontSize", 12}, {"titleFontWeight", "normal"}}},
            {"legend", {{"labelFontSize", 11}, {"titleFontSize", 11}, {"labelLimit", 320}}},
            {"range", {{"category", {{"scheme", "tableau10"}}}}}}}};
}

json value_field(const std::string& field, const std::string& title) {
  return {{"field", field}, {"title", title}, {"type", "quantitative"}, {"format", kNumber}};
}

namespace {

// What every chart's data knows about the runs.
struct Context {
  const std::vector<RunData>& runs;
  std::vector<std::string> varying;
  bool multi_run;
};

json axis_field(const std::string& field, const std::string& title, const std::vector<double>& values) {
  json enc = {{"field", field}, {"type", "quantitative"}, {"title", title}};
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (double v : values)
    if (v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
  // Sweeps double their lengths; a log axis spaces them evenly.
  if (hi > 0 && hi / lo >= 8) enc["scale"] = {{"type", "log"}, {"base", 2}};
  return enc;
}

// Times spanning orders of magnitude (a 16- and a 1024-token prompt) read
// better on a log axis.
json y_scale(const std::vector<double>& values) {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (double v : values)
    if (v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
  return hi > 0 && hi / lo >= 30 ? json{{"type", "log"}} : json::object();
}

// Tooltip rows: the run, the case's settings, then the chart's own values.
json tooltip(const Context& ctx, const json& values) {
  json t = json::array();
  if (ctx.multi_run) t.push_back({{"field", "run"}, {"title", "run"}});
  t.push_back({{"field", "case_id"}, {"title", "case"}});
  t.push_back({{"field", "prompt_tokens"}, {"title", "prompt (tokens)"}});
  t.push_back({{"field", "context_depth"}, {"title", "depth (tokens)"}});
  t.push_back({{"field", "output_tokens"}, {"title", "output (tokens)"}});
  t.push_back({{"field", "threads_label"}, {"title", "threads"}});
  t.push_back({{"field", "batch"}, {"title", "batch"}});
  t.push_back({{"field", "kv"}, {"title", "KV type"}});
  for (const auto& v : values) t.push_back(v);
  return t;
}

// One run: color tells the series apart. Several: color is the run and
// the series becomes the dash pattern / point shape.
void encode_series(const Context& ctx, json& encoding, const std::string& series_title) {
  const json legend = {{"orient", "bottom"}, {"direction", "vertical"}, {"columns", 2}};
  if (ctx.multi_run) {
    encoding["color"] = {{"field", "run"}, {"type", "nominal"}, {"title", "run"}, {"legend", legend}};
    encoding["strokeDash"] = {{"field", "series"}, {"type", "nominal"}, {"title", series_title}, {"legend", legend}};
  } else {
    encoding["color"] = {{"field", "series"}, {"type", "nominal"}, {"title", series_title}, {"legend", legend}};
  }
}

json case_datum(const Context& ctx, size_t run, const Row& row, const std::vector<std::string>& leave_out,
                const std::vector<std::string>& always = {}) {
  json d = case_settings(ctx.runs[run].summary, row);
  d["run"] = ctx.runs[run].label;
  d["series"] = series_label(d, ctx.varying, leave_out, always);
  d["threads_label"] = d["threads"].is_number() ? threads_label(d["threads"].get<long>()) : "?";
  return d;
}

std::vector<double> column_of(const json& values, const std::string& field) {
  std::vector<double> out;
  for (const auto& v : values)
    if (v.contains(field) && v[field].is_number()) out.push_back(v[field].get<double>());
  return out;
}

// A line through medians with 95% CI rules, over prompt length.
Chart prompt_chart(const Context& ctx, const std::string& id, const std::string& title, const std::string& caption,
                   const std::string& y, const std::string& y_title, const std::string& lo, const std::string& hi,
                   const json& extra_tooltip, const std::function<void(json&, const runner::Table&, const Row&)>& fill) {
  json values = json::array();
  for (size_t r = 0; r < ctx.runs.size(); ++r)
    for (const auto& row : ctx.runs[r].summary.rows) {
      json d = case_datum(ctx, r, row, {"prompt_tokens"});
      fill(d, ctx.runs[r].summary, row);
      values.push_back(std::move(d));
    }
  json spec = base_spec(title);
  spec["data"] = {{"values", values}};
  json enc = {{"x", axis_field("prompt_tokens", "prompt length (tokens)", column_of(values, "prompt_tokens"))}};
  encode_series(ctx, enc, "case");
  json line_enc = {{"y", {{"field", y}, {"type", "quantitative"}, {"title", y_title}}}};
  json rule_enc = {{"y", {{"field", lo}, {"type", "quantitative"}}}, {"y2", {{"field", hi}}}};
  // On a noisy machine a few wide intervals would flatten every median;
  // the axis then follows the medians and the interval rules are clipped.
  const auto medians = column_of(values, y), highs = column_of(values, hi);
  const double top = medians.empty() ? 0 : *std::max_element(medians.begin(), medians.end());
  const bool clip = !highs.empty() && *std::max_element(highs.begin(), highs.end()) > 2 * top;
  line_enc["y"]["scale"] = y_scale(medians);
  if (clip) line_enc["y"]["scale"]["domainMax"] = 1.5 * top;
  json point_enc = line_enc;
  point_enc["tooltip"] = tooltip(ctx, extra_tooltip);
  if (ctx.multi_run) point_enc["shape"] = {{"field", "series"}, {"type", "nominal"}, {"legend", nullptr}};
  spec["encoding"] = enc;
  spec["layer"] = {{{"mark", {{"type", "rule"}, {"strokeWidth", 1.5}, {"opacity", 0.5}, {"clip", true}}}, {"encoding", rule_enc}},
                   {{"mark", {{"type", "line"}, {"strokeWidth", 2}}}, {"encoding", line_enc}},
                   {{"mark", {{"type", "point"}, {"filled", true}, {"size", 60}}}, {"encoding", point_enc}}};
  return {id, "Prefill", title, caption, spec, ""};
}

// Prefill or decode? Each case's request as a bar: its phases' medians
// stacked (a load case's queueing first), so the longer part shows.
// One horizontal bar per case, stacked by `part` in the order of `domain`
// (each datum's `order_field`): the request and per-operator charts.
json stacked_case_bars(const std::string& x_title, const std::string& part_title, const std::vector<std::string>& domain,
                       const json& colors, const std::string& order_field, json tooltip_fields, int legend_columns) {
  json legend = {{"orient", "bottom"}, {"direction", "horizontal"}};
  if (legend_columns > 0) legend["columns"] = legend_columns;
  return {{"y", {{"field", "case"}, {"type", "nominal"}, {"title", nullptr}, {"sort", nullptr}}},
          {"x", {{"field", "ms"}, {"type", "quantitative"}, {"title", x_title}, {"stack", "zero"}}},
          {"color", {{"field", "part"}, {"type", "nominal"}, {"title", part_title},
                     {"scale", {{"domain", domain}, {"range", colors}}}, {"legend", legend}}},
          {"order", {{"field", order_field}, {"type", "quantitative"}}},
          {"tooltip", std::move(tooltip_fields)}};
}

Chart request_chart(const Context& ctx) {
  const std::string title = "Where a request's time goes: tokenize, prefill, decode";
  const std::vector<std::pair<std::string, std::string>> parts = {
      {"queue", "queue"}, {"tokenize", "tokenize"}, {"prefill", "prefill"}, {"first_sample", "first token's sampling"},
      {"decode", "decode"}};
  json values = json::array();
  for (size_t r = 0; r < ctx.runs.size(); ++r) {
    const runner::Table& t = ctx.runs[r].summary;
    for (const auto& row : t.rows) {
      const auto median = [&](const std::string& metric) {
        const double v = has_column(t, metric + "_median_ms") ? number(t, row, metric + "_median_ms") : 0;
        return std::isnan(v) ? 0 : v;
      };
      // TTFT is tokenize + prefill + the first sampling (docs/METRICS.md).
      const std::map<std::string, double> ms = {
          {"queue", median("queue")},
          {"tokenize", median("tokenize")},
          {"prefill", median("prefill")},
          {"first_sample", std::max(0.0, median("ttft") - median("tokenize") - median("prefill") - median("queue"))},
          {"decode", median("decode")}};
      for (size_t i = 0; i < parts.size(); ++i) {
        if (!(ms.at(parts[i].first) > 0)) continue;
        json d = case_datum(ctx, r, row, {});
        d["case"] = ctx.multi_run ? ctx.runs[r].label + ": " + d["case_id"].get<std::string>() : d["case_id"].get<std::string>();
        d["part"] = parts[i].second;
        d["part_index"] = i;
        d["ms"] = ms.at(parts[i].first);
        d["e2e_median_ms"] = median("e2e");
        values.push_back(std::move(d));
      }
    }
  }
  Chart chart{"request", "Request", title,
              "summary.csv: each phase's median per case, stacked (tokenize + prefill + the first token's sampling "
              "is TTFT; decode is the rest of the request); the sum is close to, not equal to, the median E2E.",
              nullptr, ""};
  if (values.empty()) {
    chart.note = "Skipped: summary.csv has no phase times.";
    return chart;
  }
  std::vector<std::string> domain;
  for (const auto& [key, name] : parts) domain.push_back(name);
  json spec = base_spec(title);
  spec["height"] = {{"step", 16}};
  spec["data"] = {{"values", values}};
  spec["mark"] = {{"type", "bar"}};
  spec["encoding"] = stacked_case_bars(
      "time per request, medians stacked (ms)", "phase", domain,
      {"#b279a2", "#bab0ac", kPrefillColor, "#9ecae9", kDecodeColor}, "part_index",
      tooltip(ctx, {{{"field", "part"}, {"title", "phase"}}, value_field("ms", "median (ms)"),
                    value_field("e2e_median_ms", "E2E median (ms)")}),
      0);
  chart.spec = spec;
  return chart;
}

Chart ttft_chart(const Context& ctx) {
  return prompt_chart(
      ctx, "ttft", "Time to first token vs prompt length",
      "summary.csv: median TTFT (tokenize + prefill + first sampling) per case; bars are the bootstrap 95% CI of the "
      "median.",
      "ttft_median_ms", "TTFT, median (ms)", "ttft_ci95_lo_ms", "ttft_ci95_hi_ms",
      {value_field("ttft_median_ms", "TTFT median (ms)"), value_field("ttft_ci95_lo_ms", "TTFT 95% CI low (ms)"),
       value_field("ttft_ci95_hi_ms", "TTFT 95% CI high (ms)"), value_field("ttft_cv_pct", "TTFT CV (%)"),
       value_field("prefill_median_ms", "prefill median (ms)"), value_field("tokenize_median_ms", "tokenize median (ms)")},
      [](json& d, const runner::Table& t, const Row& row) {
        for (const char* c : {"ttft_median_ms", "ttft_ci95_lo_ms", "ttft_ci95_hi_ms", "ttft_cv_pct", "prefill_median_ms",
                              "tokenize_median_ms"})
          d[c] = number(t, row, c);
      });
}

Chart prefill_rate_chart(const Context& ctx) {
  return prompt_chart(
      ctx, "prefill-rate", "Prefill throughput vs prompt length",
      "summary.csv: prompt tokens / median prefill time; bars are the 95% CI of the median time turned into a rate.",
      "prefill_median_tok_s", "prefill throughput (tokens/s)", "prefill_tok_s_lo", "prefill_tok_s_hi",
      {value_field("prefill_median_tok_s", "prefill (tokens/s)"), value_field("prefill_median_ms", "prefill median (ms)"),
       value_field("prefill_cv_pct", "prefill CV (%)")},
      [](json& d, const runner::Table& t, const Row& row) {
        const double p = number(t, row, "prompt_tokens");
        d["prefill_median_tok_s"] = number(t, row, "prefill_median_tok_s");
        d["prefill_median_ms"] = number(t, row, "prefill_median_ms");
        d["prefill_cv_pct"] = number(t, row, "prefill_cv_pct");
        d["prefill_tok_s_lo"] = 1000 * p / number(t, row, "prefill_ci95_hi_ms");
        d["prefill_tok_s_hi"] = 1000 * p / number(t, row, "prefill_ci95_lo_ms");
      });
}

Chart decode_steps_chart(const Context& ctx) {
  json values = json::array();
  for (size_t r = 0; r < ctx.runs.size(); ++r) {
    const RunData& run = ctx.runs[r];
    for (const auto& s : step_medians(run.steps)) {
      const Row* row = summary_row(run, s.case_id);
      if (row == nullptr) continue;
      json d = case_datum(ctx, r, *row, {"output_tokens"}, {"kv"});
      d["step"] = s.step;
      d["kv_length"] = s.kv_length;
      d["step_ms"] = s.step_ms;
      d["forward_ms"] = s.forward_ms;
      values.push_back(std::move(d));
    }
  }
  const std::string title = "Decode step time vs context position";
  Chart chart{"decode-steps", "Decode", title,
              "steps.csv: each decode step's time (forward + sampling + detokenizing), median over repetitions, at the "
              "KV length after the step; one line per case, colored by its KV cache type and every setting that varies.",
              nullptr, ""};
  if (values.empty()) {
    chart.note = "steps.csv holds no decode steps (every case generated a single token).";
    return chart;
  }
  json spec = base_spec(title);
  spec["data"] = {{"values", values}};
  json enc = {{"x", {{"field", "kv_length"}, {"type", "quantitative"}, {"title", "context position: KV length (tokens)"}}},
              {"y", {{"field", "step_ms"}, {"type", "quantitative"}, {"title", "decode step, median (ms/token)"},
                     {"scale", y_scale(column_of(values, "step_ms"))}}},
              {"detail", {{"field", "case_id"}, {"type", "nominal"}}},
              {"tooltip", tooltip(ctx, {value_field("step", "step"), value_field("kv_length", "KV length (tokens)"),
                                        value_field("step_ms", "step median (ms)"),
                                        value_field("forward_ms", "forward median (ms)")})}};
  encode_series(ctx, enc, "KV type · settings");
  enc["color"]["legend"]["columns"] = 1;
  spec["encoding"] = enc;
  spec["mark"] = {{"type", "line"}, {"strokeWidth", 1.5}, {"point", {{"size", 14}, {"filled", true}}}};
  chart.spec = spec;
  return chart;
}

Chart latency_throughput_chart(const Context& ctx) {
  json values = json::array();
  for (size_t r = 0; r < ctx.runs.size(); ++r)
    for (const auto& row : ctx.runs[r].summary.rows) {
      json d = case_datum(ctx, r, row, {"batch"});
      const runner::Table& t = ctx.runs[r].summary;
      for (const char* c : {"itl_median_ms", "decode_median_tok_s", "decode_aggregate_median_tok_s", "itl_cv_pct"})
        d[c] = number(t, row, c);
      values.push_back(std::move(d));
    }
  const std::string title = "Decode: aggregate throughput vs per-sequence latency";
  json spec = base_spec(title);
  spec["data"] = {{"values", values}};
  json enc = {
      {"x", {{"field", "itl_median_ms"}, {"type", "quantitative"}, {"title", "per-sequence latency: median inter-token time (ms)"}}},
      {"y", {{"field", "decode_aggregate_median_tok_s"}, {"type", "quantitative"}, {"title", "aggregate decode throughput (tokens/s)"}}},
      {"order", {{"field", "batch"}, {"type", "quantitative"}}},
      {"tooltip", tooltip(ctx, {value_field("itl_median_ms", "inter-token median (ms)"),
                                value_field("decode_median_tok_s", "per sequence (tokens/s)"),
                                value_field("decode_aggregate_median_tok_s", "aggregate (tokens/s)"),
                                value_field("itl_cv_pct", "inter-token CV (%)")})}};
  const bool batched = std::find(ctx.varying.begin(), ctx.varying.end(), "batch") != ctx.varying.end();
  encode_series(ctx, enc, "case");
  // Without batch curves there are no lines to dash: runs are told apart
  // by color, cases by their tooltips.
  if (!batched) enc.erase("strokeDash");
  spec["encoding"] = enc;
  spec["mark"] = batched ? json{{"type", "line"}, {"strokeWidth", 2}, {"point", {{"size", 60}, {"filled", true}}}}
                         : json{{"type", "point"}, {"size", 60}, {"filled", true}};
  return {"latency-throughput", "Decode", title,
          "summary.csv: batch x 1000 / median inter-token time against that time, one line per setting through its "
          "batch sizes.",
          spec, batched ? "" : "All cases ran batch 1, so each case is one point rather than a curve."};
}

// Bytes in the unit that keeps the largest value readable.
std::pair<double, std::string> byte_unit(double largest) {
  if (largest >= 1024.0 * 1024 * 1024) return {1024.0 * 1024 * 1024, "GiB"};
  if (largest >= 1024.0 * 1024) return {1024.0 * 1024, "MiB"};
  return {1024.0, "KiB"};
}

Chart kv_chart(const Context& ctx) {
  const std::string title = "KV cache size vs context";
  Chart chart{"kv-bytes", "Memory", title,
              "samples.csv: KV bytes filled at the end of each case (points) over the positions it held; the line "
              "is those bytes per token over the measured positions only; dashed: bytes allocated, where it fits "
              "beside them.",
              nullptr, ""};
  struct Measured {
    json datum;
    double tokens, used, allocated;
  };
  std::vector<Measured> measured;
  for (size_t r = 0; r < ctx.runs.size(); ++r) {
    const RunData& run = ctx.runs[r];
    if (!has_column(run.summary, "kv_bytes_used")) continue;
    for (const auto& row : run.summary.rows) {
      const double used = number(run.summary, row, "kv_bytes_used");
      // The last generated token is sampled, never run through the model.
      const double tokens = number(run.summary, row, "context_depth") + number(run.summary, row, "prompt_tokens") +
                            number(run.summary, row, "output_tokens") - 1;
      if (!(used > 0) || !(tokens > 0)) continue;
      json d = case_datum(ctx, r, row, {"prompt_tokens", "context_depth", "output_tokens", "threads", "sampling"}, {"kv"});
      measured.push_back({d, tokens, used, number(run.summary, row, "kv_bytes_allocated")});
    }
  }
  if (measured.empty()) {
    chart.note = "Skipped: summary.csv has no kv_bytes_used values to derive bytes per token from.";
    return chart;
  }
  // Drawn over the measured positions: an extrapolation to the model's
  // context would crush the points into a corner.
  double most_tokens = 0, most_used = 0, most_allocated = 0;
  for (const auto& m : measured)
    most_tokens = std::max(most_tokens, m.tokens), most_used = std::max(most_used, m.used),
    most_allocated = std::max(most_allocated, m.allocated);
  const bool rules_fit = most_allocated <= 2 * most_used;
  if (!rules_fit)
    chart.note = "The cache allocated up to " + readable_bytes(most_allocated) +
                 " (capacity for the longest case), more than twice the most filled: not drawn.";
  const auto [scale, unit] = byte_unit(rules_fit ? std::max(most_used, most_allocated) : most_used);
  json points = json::array(), lines = json::array(), rules = json::array();
  std::set<std::string> drawn;  // one line and rule per run and series
  for (const auto& m : measured) {
    json d = m.datum;
    d["tokens"] = m.tokens;
    d["kv"] = m.datum["kv"];
    d["bytes_per_token"] = m.used / m.tokens;
    d["used"] = m.used / scale;
    d["allocated"] = m.allocated / scale;
    points.push_back(d);
    const std::string key = d["run"].get<std::string>() + "\n" + d["series"].get<std::string>();
    if (!drawn.insert(key).second) continue;
    for (double x : {0.0, most_tokens}) {
      json l = {{"run", d["run"]}, {"series", d["series"]}, {"tokens", x}, {"used", m.used / m.tokens * x / scale}};
      lines.push_back(l);
    }
    if (m.allocated > 0 && rules_fit) rules.push_back({{"run", d["run"]}, {"series", d["series"]}, {"allocated", m.allocated / scale}});
  }
  json spec = base_spec(title);
  const json x = {{"field", "tokens"}, {"type", "quantitative"}, {"title", "context: positions in the KV cache (tokens)"},
                  {"axis", {{"tickCount", 8}}}};
  const json y = {{"field", "used"}, {"type", "quantitative"}, {"title", "KV cache (" + unit + ")"}};
  json color_enc = json::object();
  encode_series(ctx, color_enc, "KV type");
  color_enc.erase("strokeDash");
  const auto with = [&](json enc) {
    enc["color"] = color_enc["color"];
    return enc;
  };
  json point_enc = with({{"x", x},
                         {"y", y},
                         {"tooltip", tooltip(ctx, {value_field("tokens", "positions held (tokens)"),
                                                   value_field("bytes_per_token", "bytes per token"),
                                                   value_field("used", "filled (" + unit + ")"),
                                                   value_field("allocated", "allocated (" + unit + ")")})}});
  json rule_enc = with({{"y", {{"field", "allocated"}, {"type", "quantitative"}}},
                        {"tooltip", json::array({{{"field", "run"}, {"title", "run"}},
                                                 {{"field", "allocated"}, {"title", "allocated (" + unit + ")"}, {"format", kNumber}}})}});
  spec["layer"] = json::array();
  if (!rules.empty())
    spec["layer"].push_back({{"data", {{"values", rules}}},
                             {"mark", {{"type", "rule"}, {"strokeDash", {6, 4}}, {"strokeWidth", 1.5}}},
                             {"encoding", rule_enc}});
  spec["layer"].push_back({{"data", {{"values", lines}}},
                           {"mark", {{"type", "line"}, {"strokeWidth", 1.5}, {"opacity", 0.8}}},
                           {"encoding", with({{"x", x}, {"y", y}})}});
  spec["layer"].push_back({{"data", {{"values", points}}},
                           {"mark", {{"type", "point"}, {"filled", true}, {"size", 70}}},
                           {"encoding", point_enc}});
  chart.spec = spec;
  return chart;
}

// Attention-block projections in blues, attention itself red, FFN in
// oranges, norms in greys: the same operator has the same color everywhere.
json op_colors(const std::vector<std::string>& ops) {
  static const std::map<std::string, std::string> kColors{
      {"embedding", "#9d755d"}, {"attn_norm", "#bab0ac"},   {"qkv_proj", "#4c78a8"}, {"rope", "#9ecae9"},
      {"attention", "#e45756"}, {"out_proj", "#72b7b2"},    {"ffn_norm", "#d4cfcc"}, {"ffn_gate_up", "#f58518"},
      {"ffn_down", "#ffbf79"},  {"output_norm", "#8c8c8c"}, {"lm_head", "#54a24b"},  {"sampling", "#b279a2"},
      {kOtherOps, "#c7c7c7"}};
  static const std::vector<std::string> kSpare{"#eeca3b", "#ff9da6", "#88d27a", "#d67195", "#79706e"};
  json range = json::array();
  size_t spare = 0;
  for (const auto& op : ops) {
    const auto it = kColors.find(op);
    range.push_back(it != kColors.end() ? it->second : kSpare[spare++ % kSpare.size()]);
  }
  return range;
}

// Prefill time is per prompt; decode time per generated token, so the two
// phases read on scales of their own.
Chart ops_chart(const Context& ctx) {
  const std::string title = "Time per operator, prefill and decode";
  json values = json::array();
  std::vector<std::string> op_order;
  for (size_t r = 0; r < ctx.runs.size(); ++r) {
    const RunData& run = ctx.runs[r];
    const auto medians = group_small_ops(op_medians(run.ops), kSmallOpSharePct);
    for (const auto& o : medians) {
      const Row* row = summary_row(run, o.case_id);
      if (row == nullptr) continue;
      if (std::find(op_order.begin(), op_order.end(), o.op) == op_order.end()) op_order.push_back(o.op);
      const double steps = o.phase == "decode" ? number(run.summary, *row, "output_tokens") - 1 : 1;
      const double phase_ms = phase_totals(medians, o.case_id, o.phase, [](const OpMedian&) { return true; }).ms;
      json d = case_datum(ctx, r, *row, {});
      d["case"] = ctx.multi_run ? run.label + ": " + o.case_id : o.case_id;
      d["phase"] = o.phase == "decode" ? "decode: ms per generated token" : "prefill: ms per prompt";
      d["part"] = o.op;
      d["ms"] = steps > 0 ? o.ms / steps : o.ms;
      d["share_pct"] = phase_ms > 0 ? 100 * o.ms / phase_ms : 0;
      d["calls"] = o.calls;
      d["gflop_s"] = o.ms > 0 ? o.gflop / (o.ms / 1000) : 0;
      values.push_back(std::move(d));
    }
  }
  Chart chart{"ops", "Where the time goes", title,
              "ops.csv: each operator's time from the engine's per-op timers, summed over layers, median over "
              "repetitions; prefill per prompt forward, decode per generated token; \"other\" sums the operators "
              "under 3% of their phase.",
              nullptr, ""};
  if (values.empty()) {
    chart.note = "Skipped: ops.csv is empty.";
    return chart;
  }
  // "other" last in the legend and the stacks, whichever case first had it.
  if (const auto it = std::find(op_order.begin(), op_order.end(), kOtherOps); it != op_order.end())
    std::rotate(it, it + 1, op_order.end());
  json spec = base_spec(title);
  spec.erase("width");
  spec.erase("height");
  spec["data"] = {{"values", values}};
  spec["facet"] = {{"column",
                    {{"field", "phase"},
                     {"type", "nominal"},
                     {"title", nullptr},
                     {"sort", {"prefill: ms per prompt", "decode: ms per generated token"}},
                     {"header", {{"labelFontSize", 12}, {"labelFontWeight", "bold"}}}}}};
  spec["resolve"] = {{"scale", {{"x", "independent"}}}};
  spec["spec"] = {
      {"width", 250},
      {"height", {{"step", 16}}},
      {"mark", {{"type", "bar"}}},
      {"encoding", stacked_case_bars("time (ms)", "operator", op_order, op_colors(op_order), "op_index",
                                     tooltip(ctx, {{{"field", "phase"}, {"title", "phase"}},
                                                   {{"field", "part"}, {"title", "operator"}}, value_field("ms", "time (ms)"),
                                                   value_field("share_pct", "share of phase (%)"),
                                                   value_field("calls", "calls"), value_field("gflop_s", "GFLOP/s")}),
                                     6)}};
  for (auto& v : spec["data"]["values"])
    v["op_index"] = std::find(op_order.begin(), op_order.end(), v["part"].get<std::string>()) - op_order.begin();
  chart.spec = spec;
  return chart;
}

Chart roofline_chart(const Context& ctx) {
  const std::string title = "Roofline: operators against this machine's limits";
  Chart chart{"roofline", "Where the time goes", title,
              "ops.csv: GFLOP and GB counted by the engine per operator (small points) and per whole phase (large), "
              "median over repetitions, against the read bandwidth and the compute peak measured by `pdbench sysinfo` "
              "for the precision the work runs in (weight matmuls and whole phases: the weights' GEMM precision, "
              "FP32, BF16 or INT8; other operators: FP32); "
              "points above the bandwidth roof read their data from the caches, not DRAM.",
              nullptr, ""};
  json points = json::array();
  std::set<std::string> roofs_needed;  // run label, "1" or "all" threads, precision
  for (size_t r = 0; r < ctx.runs.size(); ++r) {
    const RunData& run = ctx.runs[r];
    const auto limits = run_limits(run);
    const auto medians = op_medians(run.ops);
    const auto add = [&](const std::string& case_id, const std::string& phase, const std::string& op,
                         const PhaseTotals& t, const std::string& level) {
      if (!(t.gflop > 0) || !(t.gbyte > 0) || !(t.ms > 0)) return;
      const Row* row = summary_row(run, case_id);
      if (row == nullptr) return;
      json d = case_datum(ctx, r, *row, {});
      const long threads = d["threads"].is_number() ? d["threads"].get<long>() : 0;
      d["phase"] = phase;
      d["op"] = op;
      d["level"] = level;
      d["intensity"] = t.gflop / t.gbyte;
      d["gflop_s"] = t.gflop / (t.ms / 1000);
      d["gb_s"] = t.gbyte / (t.ms / 1000);
      d["ms"] = t.ms;
      d["int8"] = op != runner::kWholePhase &&
                  runner::op_compute_precision(op, weights_precision(run, d.value("weight_type", std::string("file")))) ==
                      GemmPrecision::Int8;
      if (limits) {
        const GemmPrecision precision = limits->roof_precision(
            runner::op_compute_precision(op, weights_precision(run, d.value("weight_type", std::string("file")))));
        d["peak_pct"] = 100 * d["gflop_s"].get<double>() / limits->peak_gflop_s(static_cast<size_t>(threads), precision);
        d["bandwidth_pct"] = 100 * d["gb_s"].get<double>() / limits->read_gb_s(static_cast<size_t>(threads));
        roofs_needed.insert(run.label + "\n" + (threads == 1 ? "1" : "all") + "\n" + std::string(gemm_precision_name(precision)));
      }
      points.push_back(std::move(d));
    };
    for (const auto& o : medians) add(o.case_id, o.phase, o.op, {o.ms, o.gflop, o.gbyte}, "operator");
    std::set<std::pair<std::string, std::string>> phases;
    for (const auto& o : medians) phases.insert({o.case_id, o.phase});
    for (const auto& [case_id, phase] : phases)
      add(case_id, phase, std::string(runner::kWholePhase),
          phase_totals(medians, case_id, phase, [](const OpMedian&) { return true; }), "whole phase");
  }
  // Labels for the longest-running case of each run and phase: its whole
  // phase by its settings, its operators by name (every case's would pile up).
  std::map<std::string, std::pair<double, std::string>> longest;  // run + phase -> ms, case
  for (const auto& p : points)
    if (p["level"] == "whole phase") {
      auto& l = longest[p["run"].get<std::string>() + "\n" + p["phase"].get<std::string>()];
      if (p["ms"].get<double>() > l.first) l = {p["ms"].get<double>(), p["case_id"].get<std::string>()};
    }
  bool int8 = false;
  for (auto& p : points) {
    const bool whole = p["level"] == "whole phase";
    const auto& l = longest[p["run"].get<std::string>() + "\n" + p["phase"].get<std::string>()];
    if (p["case_id"] == l.second)
      p["label"] = whole ? p["phase"].get<std::string>() + " (whole) · " + p["series"].get<std::string>() : p["op"].get<std::string>();
    int8 = int8 || p["int8"].get<bool>();
  }
  if (points.empty()) {
    chart.note = "Skipped: ops.csv counts no FLOPs and bytes.";
    return chart;
  }
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = 0, y_lo = x_lo, y_hi = 0;
  for (const auto& p : points) {
    x_lo = std::min(x_lo, p["intensity"].get<double>()), x_hi = std::max(x_hi, p["intensity"].get<double>());
    y_lo = std::min(y_lo, p["gflop_s"].get<double>()), y_hi = std::max(y_hi, p["gflop_s"].get<double>());
  }
  json roofs = json::array();
  std::set<std::string> roof_names;
  for (const auto& run : ctx.runs) {
    const auto limits = run_limits(run);
    if (!limits) continue;
    for (const bool one : {true, false})
      for (const GemmPrecision precision : {GemmPrecision::F32, GemmPrecision::BF16, GemmPrecision::Int8}) {
        if (!roofs_needed.contains(run.label + "\n" + (one ? "1" : "all") + "\n" + std::string(gemm_precision_name(precision))))
          continue;
        const double bw = limits->read_gb_s(one ? 1 : 0);
        const double peak = limits->peak_gflop_s(one ? 1 : 0, precision);
        char buf[160];
        std::snprintf(buf, sizeof buf, "%s, %s: %.1f GB/s, %.1f %s", one ? "1 thread" : "all cores",
                      std::string(gemm_precision_name(precision)).c_str(), bw, peak,
                      precision == GemmPrecision::Int8 ? "GOP/s" : "GFLOP/s");
        const std::string name = buf;
        if (!roof_names.insert(name).second) continue;  // same machine: draw its roofs once
        x_lo = std::min(x_lo, peak / bw), x_hi = std::max(x_hi, peak / bw);
        y_hi = std::max(y_hi, peak);
        roofs.push_back(json{{"roof", name}, {"intensity", peak / bw}, {"gflop_s", peak}});
      }
  }
  x_lo /= 4, x_hi *= 4, y_lo /= 4, y_hi *= 2;
  // Each roof: bandwidth-bound slope up to its ridge point, then flat.
  json roof_lines = json::array();
  for (const auto& ridge : roofs) {
    const double bw = ridge["gflop_s"].get<double>() / ridge["intensity"].get<double>();
    const double peak = ridge["gflop_s"].get<double>();
    for (double x : {x_lo, ridge["intensity"].get<double>(), x_hi})
      roof_lines.push_back({{"roof", ridge["roof"]}, {"intensity", x}, {"gflop_s", std::min(peak, bw * x)}});
  }
  json spec = base_spec(title);
  const json x = {{"field", "intensity"}, {"type", "quantitative"}, {"title", "arithmetic intensity (FLOP/byte)"},
                  {"scale", {{"type", "log"}, {"domain", {x_lo, x_hi}}}}};
  // INT8 GEMMs count integer operations: GOP/s, not GFLOP/s.
  const std::string y_title = int8 ? "achieved (GFLOP/s; GOP/s for INT8 matmuls)" : "achieved (GFLOP/s)";
  const json y = {{"field", "gflop_s"}, {"type", "quantitative"}, {"title", y_title},
                  {"scale", {{"type", "log"}, {"domain", {y_lo, y_hi}}}}};
  json point_enc = {
      {"x", x},
      {"y", y},
      {"color", {{"field", "phase"}, {"type", "nominal"}, {"title", "phase"},
                 {"scale", {{"domain", {"prefill", "decode"}}, {"range", {kPrefillColor, kDecodeColor}}}},
                 {"legend", {{"orient", "right"}}}}},
      {"size", {{"field", "level"}, {"type", "ordinal"}, {"title", "point"},
                {"scale", {{"domain", {"operator", "whole phase"}}, {"range", {35, 170}}}},
                {"legend", {{"orient", "right"}}}}},
      {"tooltip", tooltip(ctx, {{{"field", "phase"}, {"title", "phase"}}, {{"field", "op"}, {"title", "operator"}},
                                value_field("intensity", "FLOP/byte"), value_field("gflop_s", y_title),
                                value_field("gb_s", "GB/s"), value_field("peak_pct", "% of compute peak"),
                                value_field("bandwidth_pct", "% of read bandwidth"), value_field("ms", "time (ms)")})}};
  if (ctx.multi_run) point_enc["shape"] = {{"field", "run"}, {"type", "nominal"}, {"title", "run"}, {"legend", {{"orient", "right"}}}};
  spec["layer"] = json::array();
  if (!roofs.empty()) {
    spec["layer"].push_back(
        {{"data", {{"values", roof_lines}}},
         {"mark", {{"type", "line"}, {"color", "#555"}, {"strokeWidth", 1.5}, {"clip", true}}},
         {"encoding", {{"x", x}, {"y", y}, {"strokeDash", {{"field", "roof"}, {"type", "nominal"}, {"title", "roof"},
                                                          {"legend", {{"orient", "right"}}}}}}}});
  } else {
    chart.note = "No measured limits in meta.json (results of a pdbench that did not measure them): roofs not drawn.";
  }
  spec["layer"].push_back({{"data", {{"values", points}}},
                           {"mark", {{"type", "point"}, {"filled", true}, {"opacity", 0.75}, {"clip", true}}},
                           {"encoding", point_enc}});
  spec["layer"].push_back({{"data", {{"values", points}}},
                           {"transform", json::array({{{"filter", "datum.label != null"}}})},
                           {"mark", {{"type", "text"}, {"align", "left"}, {"dx", 7}, {"fontSize", 9}, {"clip", true},
                                     {"color", "#333"}}},
                           {"encoding", {{"x", x}, {"y", y}, {"text", {{"field", "label"}}}}}});
  spec["resolve"] = {{"legend", {{"strokeDash", "independent"}}}};
  chart.spec = spec;
  return chart;
}

}  // namespace

std::vector<Chart> build_charts(const std::vector<RunData>& runs) {
  const Context ctx{runs, varying_axes(runs), runs.size() > 1};
  std::vector<Chart> charts = {request_chart(ctx), ttft_chart(ctx), prefill_rate_chart(ctx), decode_steps_chart(ctx),
                               latency_throughput_chart(ctx), kv_chart(ctx), ops_chart(ctx), roofline_chart(ctx)};
  for (Chart& c : load_charts(runs)) charts.push_back(std::move(c));
  return charts;
}

}  // namespace pdbench::report
