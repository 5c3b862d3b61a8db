#include "bench/report/insights.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>

#include "bench/report/cases.h"
#include "bench/runner/stats.h"

namespace pdbench::report {

namespace {

// Above this fraction of a roof a phase is called bound by it.
constexpr double kBoundFraction = 0.6;
// Above this CV (%) a case is called noisy.
constexpr double kNoisyCvPct = 10;

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
           " GFLOP/s (meta.json has no measured limits: run `pdbench sysinfo` to compare them with this machine's roofs)";
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
  std::string text = "Prefill (" + describe(*c) + ") runs at " + readable(metric(run, *c, "prefill_median_tok_s")) +
                     " tokens/s";
  if (whole.ms > 0) text += "; " + bound_clause(run, *c, whole);
  const double ttft = metric(run, *c, "ttft_median_ms");
  if (ttft > 0)
    text += ". TTFT is " + readable(ttft) + " ms, " + pct(metric(run, *c, "prefill_median_ms") / ttft) +
            " of it prefill and " + pct(metric(run, *c, "tokenize_median_ms") / ttft) + " tokenizing";
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
    parts = "Prefill matmuls reach " + readable(gflop_s) + " GFLOP/s" +
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
  std::string text = "Decode (" + describe(*c) + ") takes " + readable(metric(run, *c, "itl_median_ms")) +
                     " ms per token (" + readable(metric(run, *c, "decode_median_tok_s")) + " tokens/s)";
  if (whole.ms > 0) text += "; " + bound_clause(run, *c, whole);
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
  const auto mean = [](const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += x;
    return sum / static_cast<double>(v.size());
  };
  const double mx = mean(xs), my = mean(ys);
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < xs.size(); ++i) sxy += (xs[i] - mx) * (ys[i] - my), sxx += (xs[i] - mx) * (xs[i] - mx);
  if (sxx <= 0) return;
  const double slope = sxy / sxx;  // ms per position
  const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  const auto fit = [&](double x) { return my + slope * (x - mx); };
  std::string growth = "Each decode step " + std::string(slope >= 0 ? "grows" : "shrinks") + " by " +
                       readable(std::abs(slope) * 1000) + " ms per 1,000 tokens of context (least-squares fit, " +
                       threads_label(threads) + "): from " + readable(fit(*lo)) + " ms at position " + count(*lo) +
                       " to " + readable(fit(*hi)) + " ms at " + count(*hi);
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
  out.push_back({"Decode", run.label,
                 "Batching " + count(axis(*widest, "batch")) + " sequences decodes " + readable(batched) +
                     " tokens/s in all against " + readable(single) + " for one (" + readable(batched / single) +
                     "x): each step reads the weights once for every sequence in it, so a memory-bound step "
                     "grows less than the batch."});
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
  std::string others;
  for (const auto& c : cases)
    if (&c != f32 && same_except(c, *deepest, kv_axes) && metric(run, c, "tpot_median_ms") > 0)
      others += ", " + readable(metric(run, c, "tpot_median_ms")) + " ms with " + kv_types(c);
  if (others.empty()) return;
  out.push_back({"Decode", run.label,
                 "At depth " + count(axis(*deepest, "context_depth")) + " a decode step takes " +
                     readable(metric(run, *f32, "tpot_median_ms")) + " ms with an f32/f32 KV cache (K/V)" + others +
                     ": attention reads every cached position, in fewer bytes with the smaller types."});
}

void overall_sentences(const RunData& run, const std::vector<Case>& cases, std::vector<Insight>& out) {
  // Thread scaling: every case against its one-thread twin.
  std::vector<double> prefill_ratio, decode_ratio;
  long most = 1;
  for (const auto& c : cases) {
    const long t = static_cast<long>(axis(c, "threads"));
    if (t == 1) continue;
    for (const auto& one : cases)
      if (axis(one, "threads") == 1 && same_except(c, one, {"threads"})) {
        prefill_ratio.push_back(metric(run, c, "prefill_median_tok_s") / metric(run, one, "prefill_median_tok_s"));
        decode_ratio.push_back(metric(run, c, "decode_median_tok_s") / metric(run, one, "decode_median_tok_s"));
        most = t == 0 || most == 0 ? 0 : std::max(most, t);
      }
  }
  if (!prefill_ratio.empty()) {
    const double p = runner::median(prefill_ratio), d = runner::median(decode_ratio);
    const auto verdict = [](double r) { return r >= 1.1 ? "faster" : r <= 0.9 ? "slower" : "no different"; };
    out.push_back({"Overall", run.label,
                   "More threads (" + threads_label(most) + ") against 1 thread, median over " +
                       std::to_string(prefill_ratio.size()) + " matched cases: prefill " + readable(p) + "x (" +
                       verdict(p) + "), decode " + readable(d) + "x (" + verdict(d) + ")" +
                       (p < 1.1 && d < 1.1 ? ": at this model size the work per operator is too small to split." : ".")});
  }
  // Noise: the case whose medians deserve the least trust.
  const Case* noisy = nullptr;
  std::string metric_name;
  double worst = 0;
  for (const auto& c : cases)
    for (const char* m : {"ttft_cv_pct", "itl_cv_pct"})
      if (metric(run, c, m) > worst) worst = metric(run, c, m), noisy = &c, metric_name = m;
  if (noisy != nullptr && worst > kNoisyCvPct)
    out.push_back({"Overall", run.label,
                   "The noisiest case is " + noisy->settings["case_id"].get<std::string>() + ": " +
                       (metric_name == "ttft_cv_pct" ? "TTFT" : "inter-token time") + " varies with a CV of " +
                       readable(worst) + "% over " + count(metric(run, *noisy, "samples")) +
                       " runs, so the machine was busy or unsettled; read medians and their intervals, not single runs."});
}

void comparison_sentence(const RunData& base, const RunData& other, std::vector<Insight>& out) {
  std::vector<double> prefill, decode;
  const auto base_cases = cases_of(base);
  for (const auto& c : cases_of(other))
    for (const auto& b : base_cases)
      if (same_except(c, b, {})) {
        prefill.push_back(metric(other, c, "prefill_median_tok_s") / metric(base, b, "prefill_median_tok_s"));
        decode.push_back(metric(other, c, "decode_median_tok_s") / metric(base, b, "decode_median_tok_s"));
      }
  if (prefill.empty()) {
    out.push_back({"Overall", other.label, other.label + " and " + base.label + " share no case settings to compare."});
    return;
  }
  out.push_back({"Overall", other.label,
                 other.label + " against " + base.label + " on their " + std::to_string(prefill.size()) +
                     " common cases (median ratio): prefill " + readable(runner::median(prefill)) + "x, decode " +
                     readable(runner::median(decode)) + "x the tokens/s."});
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
