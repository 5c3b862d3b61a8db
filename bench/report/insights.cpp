#include "bench/report/insights.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>

#include "bench/report/cases.h"
#include "bench/report/confidence.h"
#include "bench/runner/load_results.h"

namespace pdbench::report {

namespace {

// Above this fraction of a roof a phase is called bound by it.
constexpr double kBoundFraction = 0.6;

std::string pct(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100 * fraction);
  return buf;
}

struct Case {
  const Row* row = nullptr;
  nlohmann::json settings;
};

// The precision of the weights' GEMMs in this case: its compute roof.
GemmPrecision case_precision(const RunData& run, const Case& c) {
  return weights_precision(run, c.settings.value("weight_type", std::string("file")));
}

std::string peak_name(GemmPrecision precision) {
  return precision == GemmPrecision::BF16 ? "BF16" : precision == GemmPrecision::Int8 ? "INT8" : "FP32";
}

// INT8 GEMMs count integer operations, not floating-point ones.
std::string ops_unit(GemmPrecision precision) { return precision == GemmPrecision::Int8 ? "GOP/s" : "GFLOP/s"; }

// What comes before a bound's verdict when the phase's median is noisy.
std::string noisy_caveat(const Estimate& e) {
  if (!e.noisy()) return "";
  return "noisy (CV " + readable(e.cv_pct) + "% above the " + readable(kMaxCvPct) +
         "% limit), so what follows is indicative only: ";
}

std::vector<Case> cases_of(const RunData& run) {
  std::vector<Case> out;
  for (const auto& row : run.summary.rows) out.push_back({&row, case_settings(run.summary, row)});
  return out;
}

double axis(const Case& c, const char* name) {
  return c.settings.contains(name) && c.settings[name].is_number() ? c.settings[name].get<double>() : 0;
}

double metric(const RunData& run, const Case& c, const char* column) { return number(run.summary, *c.row, column); }

// The case settings a sentence names: "64-token prompt, depth 0, 1 thread".
std::string describe(const Case& c) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.0f-token prompt at depth %.0f, %s", axis(c, "prompt_tokens"),
                axis(c, "context_depth"), threads_label(static_cast<long>(axis(c, "threads"))).c_str());
  return buf;
}

// Cases equal on every axis except those named.
bool same_except(const Case& a, const Case& b, const std::vector<std::string>& except) {
  for (const auto& name : case_axes()) {
    if (std::find(except.begin(), except.end(), name) != except.end()) continue;
    if (a.settings.value(name, nlohmann::json()) != b.settings.value(name, nlohmann::json())) return false;
  }
  return true;
}

// The first case by `better`, breaking ties by case order.
template <class Better>
const Case* pick(const std::vector<Case>& cases, Better better) {
  const Case* best = nullptr;
  for (const auto& c : cases)
    if (best == nullptr || better(c, *best)) best = &c;
  return best;
}

// The largest data or unified cache, from the fingerprint ("2048K").
std::optional<std::pair<double, std::string>> largest_cache(const RunData& run) {
  if (!run.meta.contains("fingerprint") || !run.meta["fingerprint"].contains("caches")) return std::nullopt;
  std::optional<std::pair<double, std::string>> best;
  for (const auto& c : run.meta["fingerprint"]["caches"]) {
    if (c.value("type", "") == "Instruction") continue;
    const std::string size = c.value("size", "");
    char* end = nullptr;
    double bytes = std::strtod(size.c_str(), &end);
    if (end == size.c_str()) continue;
    if (*end == 'K') bytes *= 1024;
    if (*end == 'M') bytes *= 1024.0 * 1024;
    if (*end == 'G') bytes *= 1024.0 * 1024 * 1024;
    if (!best || bytes > best->first) best = {bytes, "L" + c.value("level", std::string("?"))};
  }
  return best;
}

double share(const std::vector<OpMedian>& ops, const std::string& case_id, const std::string& phase,
             const std::string& op) {
  const double all = phase_totals(ops, case_id, phase, [](const OpMedian&) { return true; }).ms;
  const double part = phase_totals(ops, case_id, phase, [&](const OpMedian& o) { return o.op == op; }).ms;
  return all > 0 ? part / all : 0;
}

std::string count(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", value);
  return buf;
}

// How close a phase (or part of one) comes to the two roofs, and what that
// makes it: "it moves 1.2 GB/s, 17% of ...: overhead-bound ...".
std::string bound_clause(const RunData& run, const Case& c, const PhaseTotals& t) {
  const auto limits = run_limits(run);
  const auto threads = static_cast<size_t>(axis(c, "threads"));
  const double gb_s = t.gbyte / (t.ms / 1000), gflop_s = t.gflop / (t.ms / 1000);
  if (!limits)
    return "it moves " + readable(gb_s) + " GB/s at " + readable(gflop_s) +
           " GFLOP/s (meta.json has no measured limits to compare them with)";
  const GemmPrecision roof = limits->roof_precision(case_precision(run, c));
  const double bw = limits->read_gb_s(threads), peak = limits->peak_gflop_s(threads, roof);
  const double bw_frac = gb_s / bw, flop_frac = gflop_s / peak;
  std::string s = "it moves " + readable(gb_s) + " GB/s, " + pct(bw_frac) + " of the measured " + readable(bw) +
                  " GB/s memory read bandwidth, at " + readable(gflop_s) + " GFLOP/s, " + pct(flop_frac) +
                  " of the " + peak_name(roof) + " peak: ";
  const double weights = run.meta.contains("model") ? run.meta["model"].value("weights_bytes", 0.0) : 0.0;
  const auto cache = largest_cache(run);
  const bool cached = weights > 0 && cache && weights <= cache->first;
  const std::string fits = cached ? "its " + readable_bytes(weights) + " of weights fit in the " +
                                        readable_bytes(cache->first) + " " + cache->second + " cache"
                                  : "";
  if (bw_frac > 1 && cached)
    return s + "more than memory delivers, so it reads from the caches (" + fits +
           "); cache-resident, and bound by per-operator overheads rather than DRAM";
  // The nearer roof bounds it. Above a roof, that roof under-reads this
  // machine (measured while it was busy, say) or, for bytes, part of what is
  // read stays in the caches between steps: still bound by it.
  const bool memory = bw_frac >= flop_frac;
  const double nearer = std::max(bw_frac, flop_frac);
  if (nearer >= kBoundFraction)
    return s + (memory ? "memory-bound" : "compute-bound") +
           (nearer > 1 ? memory ? " (above the measured bandwidth: part of what it reads stays in the caches, or the "
                                  "bandwidth measurement under-reads this machine)"
                                : " (above the measured peak, which under-reads this machine: re-measure with "
                                  "`pdbench sysinfo --refresh` on a quiet machine)"
                       : "");
  if (cached) return s + "overhead-bound at this model size (" + fits + ", so fixed per-operator costs set the pace)";
  return s + "far from both roofs, so per-operator overheads and synchronisation dominate";
}

void prefill_sentences(const RunData& run, const std::vector<Case>& cases, const std::vector<OpMedian>& ops,
                       std::vector<Insight>& out) {
  // The longest prompt, then the shallowest, then the fastest.
  const Case* c = pick(cases, [&](const Case& a, const Case& b) {
    if (axis(a, "prompt_tokens") != axis(b, "prompt_tokens")) return axis(a, "prompt_tokens") > axis(b, "prompt_tokens");
    if (axis(a, "context_depth") != axis(b, "context_depth")) return axis(a, "context_depth") < axis(b, "context_depth");
    return metric(run, a, "prefill_median_tok_s") > metric(run, b, "prefill_median_tok_s");
  });
  if (c == nullptr) return;
  const std::string id = c->settings["case_id"];
  const long threads = static_cast<long>(axis(*c, "threads"));
  const PhaseTotals whole = phase_totals(ops, id, "prefill", [](const OpMedian&) { return true; });
  const Estimate prefill = estimate(run.summary, *c->row, "prefill");
  std::string text = "Prefill (" + describe(*c) + ") runs at " + readable(metric(run, *c, "prefill_median_tok_s")) +
                     " tokens/s (" + rate_interval_text(prefill, 1000 * axis(*c, "prompt_tokens"), "tokens/s") + ")";
  if (whole.ms > 0) text += "; " + noisy_caveat(prefill) + bound_clause(run, *c, whole);
  const Estimate ttft = estimate(run.summary, *c->row, "ttft");
  if (ttft.median > 0)
    text += ". TTFT is " + readable(ttft.median) + " ms (" + interval_text(ttft) + "), " +
            pct(prefill.median / ttft.median) + " of it prefill and " +
            pct(metric(run, *c, "tokenize_median_ms") / ttft.median) + " tokenizing";
  out.push_back({"Prefill", run.label, text + "."});
  if (whole.ms <= 0) return;

  // Matmuls (operators with FLOPs counted, attention aside) against the
  // rest: which part of prefill sets its pace.
  const PhaseTotals matmul =
      phase_totals(ops, id, "prefill", [](const OpMedian& o) { return o.gflop > 0 && o.op != "attention"; });
  const auto limits = run_limits(run);
  std::string parts;
  if (matmul.ms > 0) {
    const double gflop_s = matmul.gflop / (matmul.ms / 1000);
    const double peak = limits ? limits->peak_gflop_s(static_cast<size_t>(threads), case_precision(run, *c)) : 0;
    const double of_peak = peak > 0 ? gflop_s / peak : 0;
    parts = "Prefill matmuls reach " + readable(gflop_s) + " " + ops_unit(case_precision(run, *c)) +
            (limits ? " (" + pct(of_peak) + " of peak" + (of_peak > 1 ? ", so the measured peak under-reads" : "") + ")"
                    : "") +
            " and take " + pct(matmul.ms / whole.ms) + " of prefill; ";
  }
  parts += "attention is " + pct(share(ops, id, "prefill", "attention")) + " of prefill at " +
           count(axis(*c, "prompt_tokens")) + " tokens";
  // The same settings at the shortest prompt show how the share grows.
  const Case* shortest = pick(cases, [&](const Case& a, const Case& b) {
    const bool a_ok = same_except(a, *c, {"prompt_tokens"}), b_ok = same_except(b, *c, {"prompt_tokens"});
    if (a_ok != b_ok) return a_ok;
    return axis(a, "prompt_tokens") < axis(b, "prompt_tokens");
  });
  if (shortest != nullptr && shortest != c && same_except(*shortest, *c, {"prompt_tokens"}))
    parts += " (" + pct(share(ops, shortest->settings["case_id"], "prefill", "attention")) + " at " +
             count(axis(*shortest, "prompt_tokens")) + ")";
  const OpMedian* top = nullptr;
  for (const auto& o : ops)
    if (o.case_id == id && o.phase == "prefill" && (top == nullptr || o.ms > top->ms)) top = &o;
  if (top != nullptr) parts += "; the largest operator is " + top->op + " at " + pct(top->ms / whole.ms);
  out.push_back({"Prefill", run.label, parts + "."});
}

void decode_sentences(const RunData& run, const std::vector<Case>& cases, const std::vector<OpMedian>& ops,
                      std::vector<Insight>& out) {
  // Depths measured with the same other settings: the case with the most
  // starts a fit of step time against context over many positions.
  // Counted once per case: the comparisons below would otherwise rescan
  // every case for each pair.
  std::vector<size_t> depth_count;
  for (const auto& a : cases) {
    std::set<double> seen;
    for (const auto& other : cases)
      if (same_except(other, a, {"prompt_tokens", "context_depth"})) seen.insert(axis(other, "context_depth"));
    depth_count.push_back(seen.size());
  }
  const auto depths = [&](const Case& a) { return depth_count[static_cast<size_t>(&a - cases.data())]; };
  // The most depths, then the shallowest context, then the shortest prompt, then the fastest.
  const Case* c = pick(cases, [&](const Case& a, const Case& b) {
    if (depths(a) != depths(b)) return depths(a) > depths(b);
    if (axis(a, "context_depth") != axis(b, "context_depth")) return axis(a, "context_depth") < axis(b, "context_depth");
    if (axis(a, "prompt_tokens") != axis(b, "prompt_tokens")) return axis(a, "prompt_tokens") < axis(b, "prompt_tokens");
    return metric(run, a, "decode_median_tok_s") > metric(run, b, "decode_median_tok_s");
  });
  if (c == nullptr || !(metric(run, *c, "itl_median_ms") > 0)) return;
  const std::string id = c->settings["case_id"];
  const long threads = static_cast<long>(axis(*c, "threads"));
  const PhaseTotals whole = phase_totals(ops, id, "decode", [](const OpMedian&) { return true; });
  const Estimate itl = estimate(run.summary, *c->row, "itl");
  std::string text = "Decode (" + describe(*c) + ") takes " + readable(itl.median) + " ms per token (" +
                     interval_text(itl) + "; " + readable(metric(run, *c, "decode_median_tok_s")) + " tokens/s)";
  if (whole.ms > 0) text += "; " + noisy_caveat(itl) + bound_clause(run, *c, whole);
  out.push_back({"Decode", run.label, text + "."});

  // Step time against context over the cases that differ from it only in
  // where decode starts: a least-squares line.
  std::vector<double> xs, ys;
  const Case* deepest = c;
  const auto steps = step_medians(run.steps);
  for (const auto& other : cases) {
    if (!same_except(other, *c, {"prompt_tokens", "context_depth"})) continue;
    if (axis(other, "context_depth") > axis(*deepest, "context_depth")) deepest = &other;
    for (const auto& s : steps)
      if (s.case_id == other.settings["case_id"]) xs.push_back(s.kv_length), ys.push_back(s.step_ms);
  }
  // One depth's steps span a few dozen positions: too little, and too
  // noisy, to fit a growth with context to.
  if (xs.size() < 2 || depths(*c) < 2) return;
  const LineFit line = least_squares(xs, ys);
  if (!line.valid) return;
  const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  const auto per_1000 = [](double ms_per_position) { return readable(ms_per_position * 1000); };
  const std::string interval = "95% interval " + per_1000(line.slope - line.half_width) + " to " +
                               per_1000(line.slope + line.half_width) + " ms per 1,000 tokens over " +
                               count(static_cast<double>(xs.size())) + " step medians";
  // An interval that holds zero (or either sign) says nothing about growth.
  if (std::abs(line.slope) <= line.half_width) {
    out.push_back({"Decode", run.label,
                   "Decode step time shows no clear growth with context (" + threads_label(threads) +
                       ", positions " + count(*lo) + " to " + count(*hi) + "): the least-squares slope's " + interval +
                       " includes zero."});
    return;
  }
  std::string growth = "Each decode step " + std::string(line.slope >= 0 ? "grows" : "shrinks") + " by " +
                       per_1000(std::abs(line.slope)) + " ms per 1,000 tokens of context (least-squares fit, " +
                       threads_label(threads) + "; " + interval + "): from " + readable(line.at(*lo)) +
                       " ms at position " + count(*lo) + " to " + readable(line.at(*hi)) + " ms at " + count(*hi);
  growth += "; attention is " + pct(share(ops, id, "decode", "attention")) + " of decode at depth " +
            count(axis(*c, "context_depth"));
  if (deepest != c)
    growth += " and " + pct(share(ops, deepest->settings["case_id"], "decode", "attention")) + " at depth " +
              count(axis(*deepest, "context_depth"));
  out.push_back({"Decode", run.label, growth + "."});
}

// The first case equal to `like` on every axis but those named, for which
// `accept` holds.
template <class Accept>
const Case* twin(const std::vector<Case>& cases, const Case& like, const std::vector<std::string>& except,
                 Accept accept) {
  for (const auto& c : cases)
    if (same_except(c, like, except) && accept(c)) return &c;
  return nullptr;
}

// Aggregate decode throughput at the largest batch against batch 1 with
// the same other settings: a step reads the weights once for every sequence.
void batch_sentence(const RunData& run, const std::vector<Case>& cases, std::vector<Insight>& out) {
  const Case* widest = pick(cases, [&](const Case& a, const Case& b) { return axis(a, "batch") > axis(b, "batch"); });
  if (widest == nullptr || axis(*widest, "batch") < 2) return;
  const Case* one = twin(cases, *widest, {"batch"}, [](const Case& c) { return axis(c, "batch") == 1; });
  if (one == nullptr) return;
  const double single = metric(run, *one, "decode_aggregate_median_tok_s");
  const double batched = metric(run, *widest, "decode_aggregate_median_tok_s");
  if (!(single > 0) || !(batched > 0)) return;
  // Time per token of the whole batch: the inter-token time over the batch.
  const Estimate per_token = estimate(run.summary, *widest->row, "itl").divided(axis(*widest, "batch"));
  const std::string why = unclear_because(per_token, estimate(run.summary, *one->row, "itl"));
  std::string text = "Batching " + count(axis(*widest, "batch")) + " sequences decodes " + readable(batched) +
                     " tokens/s in all against " + readable(single) + " for one (" + readable(batched / single) + "x";
  out.push_back({"Decode", run.label,
                 why.empty() ? text + "; 95% intervals apart): each step reads the weights once for every sequence in "
                                      "it, so a memory-bound step grows less than the batch."
                             : text + "): no clear difference (" + why + ")."});
}

std::string kv_types(const Case& c) {
  return c.settings.value("kv_type_k", std::string("f32")) + "/" + c.settings.value("kv_type_v", std::string("f32"));
}

// Decode at the deepest context, each KV cache type against f32 K and V:
// attention reads every cached position, at the type's bytes.
void kv_type_sentence(const RunData& run, const std::vector<Case>& cases, std::vector<Insight>& out) {
  const Case* deepest =
      pick(cases, [&](const Case& a, const Case& b) { return axis(a, "context_depth") > axis(b, "context_depth"); });
  if (deepest == nullptr || !(axis(*deepest, "context_depth") > 0)) return;
  const std::vector<std::string> kv_axes = {"kv_type_k", "kv_type_v"};
  const Case* f32 = twin(cases, *deepest, kv_axes, [](const Case& c) { return kv_types(c) == "f32/f32"; });
  if (f32 == nullptr || !(metric(run, *f32, "tpot_median_ms") > 0)) return;
  const Estimate base = estimate(run.summary, *f32->row, "tpot");
  std::string others;
  bool any_faster = false;
  for (const auto& c : cases) {
    if (&c == f32 || !same_except(c, *deepest, kv_axes) || !(metric(run, c, "tpot_median_ms") > 0)) continue;
    const Estimate e = estimate(run.summary, *c.row, "tpot");
    const std::string why = unclear_because(e, base);
    any_faster = any_faster || (why.empty() && e.median < base.median);
    others += ", " + readable(e.median) + " ms with " + kv_types(c) +
              (why.empty() ? " (" + readable(e.median / base.median) + "x; 95% intervals apart)"
                           : " (no clear difference: " + why + ")");
  }
  if (others.empty()) return;
  out.push_back({"Decode", run.label,
                 "At depth " + count(axis(*deepest, "context_depth")) + " a decode step takes " +
                     readable(base.median) + " ms with an f32/f32 KV cache (K/V; " + interval_text(base) + ")" +
                     others +
                     (any_faster ? ": attention reads every cached position, in fewer bytes with the smaller types."
                                 : ".")});
}

// Whether two runs' cases have the same load settings (rate, slots,
// requests, length distributions): none for a case of one request.
bool same_load(const RunData& a, const Case& ca, const RunData& b, const Case& cb) {
  for (const auto& column : runner::load_case_columns())
    if (has_column(a.summary, column) && has_column(b.summary, column) &&
        cell(a.summary, *ca.row, column) != cell(b.summary, *cb.row, column))
      return false;
  return true;
}

void overall_sentences(const RunData& run, const std::vector<Case>& cases, std::vector<Insight>& out) {
  // Thread scaling: every case against its one-thread twin.
  std::vector<Pair> prefill, decode;
  long most = 1;
  for (const auto& c : cases) {
    const long t = static_cast<long>(axis(c, "threads"));
    if (t == 1) continue;
    for (const auto& one : cases)
      if (axis(one, "threads") == 1 && same_except(c, one, {"threads"}) && same_load(run, c, run, one)) {
        prefill.push_back({estimate(run.summary, *c.row, "prefill"), estimate(run.summary, *one.row, "prefill")});
        decode.push_back({estimate(run.summary, *c.row, "itl"), estimate(run.summary, *one.row, "itl")});
        most = t == 0 || most == 0 ? 0 : std::max(most, t);
      }
  }
  if (!prefill.empty()) {
    bool p_clear = false, d_clear = false;
    double p = 0, d = 0;
    const std::string p_text = speed_ratio(prefill, p_clear, p), d_text = speed_ratio(decode, d_clear, d);
    // Only a clear slow-down of both phases says the work is too small to split.
    const bool no_gain = p_clear && d_clear && p < 1 && d < 1;
    out.push_back({"Overall", run.label,
                   "More threads (" + threads_label(most) + ") against 1 thread, over " +
                       std::to_string(prefill.size()) + " matched cases (median tokens/s ratio): prefill " + p_text +
                       ", decode " + d_text +
                       (no_gain ? ": at this model size the work per operator is too small to split." : ".")});
  }
  // Noise: the case whose medians deserve the least trust.
  const Case* noisy = nullptr;
  std::string metric_name;
  double worst = 0;
  for (const auto& c : cases)
    for (const char* m : {"ttft_cv_pct", "itl_cv_pct"})
      if (metric(run, c, m) > worst) worst = metric(run, c, m), noisy = &c, metric_name = m;
  if (noisy != nullptr && worst > kMaxCvPct)
    out.push_back({"Overall", run.label,
                   "The noisiest case is " + noisy->settings["case_id"].get<std::string>() + ": " +
                       (metric_name == "ttft_cv_pct" ? "TTFT" : "inter-token time") + " varies with a CV of " +
                       readable(worst) + "% over " + count(metric(run, *noisy, "samples")) +
                       " runs, above the " + readable(kMaxCvPct) +
                       "% limit, so the machine was busy or unsettled; read its medians by their intervals."});
}

bool served(const RunData& run) {
  return run.meta.value(nlohmann::json::json_pointer("/target/kind"), std::string()) == "openai";
}

// A served run's threads are the server's, set where it started (its
// cases say 0), so its cases pair with the other run's whatever their threads.
void comparison_sentence(const RunData& base, const RunData& other, std::vector<Insight>& out) {
  std::vector<Pair> prefill, decode;
  const auto base_cases = cases_of(base);
  const std::vector<std::string> except =
      served(base) || served(other) ? std::vector<std::string>{"threads"} : std::vector<std::string>{};
  for (const auto& c : cases_of(other))
    for (const auto& b : base_cases)
      if (same_except(c, b, except) && same_load(other, c, base, b)) {
        prefill.push_back({estimate(other.summary, *c.row, "prefill"), estimate(base.summary, *b.row, "prefill")});
        decode.push_back({estimate(other.summary, *c.row, "itl"), estimate(base.summary, *b.row, "itl")});
      }
  if (prefill.empty()) {
    out.push_back({"Overall", other.label, other.label + " and " + base.label + " share no case settings to compare."});
    return;
  }
  bool clear = false;
  double ratio = 0;
  const std::string p_text = speed_ratio(prefill, clear, ratio), d_text = speed_ratio(decode, clear, ratio);
  out.push_back({"Overall", other.label,
                 other.label + " against " + base.label + " on their " + std::to_string(prefill.size()) +
                     " common cases (median tokens/s ratio): prefill " + p_text + ", decode " + d_text + "."});
}

}  // namespace

std::string readable(double value) {
  char buf[48];
  const double a = std::abs(value);
  const int decimals = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : a >= 0.01 ? 3 : 5;
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string readable_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  size_t u = 0;
  while (bytes >= 1024 && u + 1 < std::size(units)) bytes /= 1024, ++u;
  return readable(bytes) + " " + units[u];
}

std::vector<Insight> insights(const std::vector<RunData>& runs) {
  std::vector<Insight> out;
  for (const auto& run : runs) {
    const auto cases = cases_of(run);
    const auto ops = op_medians(run.ops);
    prefill_sentences(run, cases, ops, out);
    decode_sentences(run, cases, ops, out);
    kv_type_sentence(run, cases, out);
    batch_sentence(run, cases, out);
    overall_sentences(run, cases, out);
  }
  for (size_t i = 1; i < runs.size(); ++i) comparison_sentence(runs.front(), runs[i], out);
  // Phase by phase, runs in order within each.
  std::stable_sort(out.begin(), out.end(), [](const Insight& a, const Insight& b) {
    const auto rank = [](const std::string& p) { return p == "Prefill" ? 0 : p == "Decode" ? 1 : 2; };
    return rank(a.phase) < rank(b.phase);
  });
  return out;
}

}  // namespace pdbench::report
