#include "bench/report/cases.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "bench/runner/stats.h"
#include "engine/util/error.h"

namespace pdbench::report {

namespace {

bool is_numeric_axis(const std::string& axis) {
  return axis != "kv_type_k" && axis != "kv_type_v" && axis != "kv_cache" && axis != "weight_type" &&
         axis != "sampling" && axis != "prefix_sharing";
}

std::string integer(const nlohmann::json& value) {
  return value.is_number() ? std::to_string(value.get<long>()) : value.dump();
}

std::string axis_label(const std::string& axis, const nlohmann::json& s) {
  const nlohmann::json& v = s.contains(axis) ? s.at(axis) : nlohmann::json();
  if (axis == "prompt_tokens") return "prompt " + integer(v);
  if (axis == "output_tokens") return integer(v) + " out";
  if (axis == "context_depth") return "depth " + integer(v);
  if (axis == "threads") return v.is_number() ? threads_label(v.get<long>()) : "threads ?";
  if (axis == "batch") return "batch " + integer(v);
  if (axis == "kv") return "KV " + s.value("kv", std::string("?"));
  if (axis == "kv_block") return "block " + integer(v);
  if (axis == "kv_capacity") return "capacity " + integer(v);
  if (axis == "kv_cache") return "KV cache " + v.get<std::string>();
  if (axis == "weight_type") return "weights " + v.get<std::string>();
  if (axis == "shared_prefix_tokens") return "shared prefix " + integer(v);
  if (axis == "prefix_sharing") return "prefix sharing " + (v.is_string() ? v.get<std::string>() : v.dump());
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

const std::vector<std::string>& case_axes() {
  static const std::vector<std::string> kAxes{
      "prompt_tokens", "output_tokens", "context_depth", "threads",     "batch",    "kv_type_k",     "kv_type_v",
      "kv_block",      "kv_capacity",   "kv_cache",      "weight_type", "sampling", "shared_prefix_tokens",
      "prefix_sharing"};
  return kAxes;
}

std::vector<std::string> varying_axes(const std::vector<RunData>& runs) {
  std::vector<std::string> varying;
  for (const auto& axis : case_axes()) {
    std::set<std::string> values;
    for (const auto& run : runs)
      if (has_column(run.summary, axis))
        for (const auto& row : run.summary.rows) values.insert(cell(run.summary, row, axis));
    if (values.size() > 1) varying.push_back(axis);
  }
  return varying;
}

nlohmann::json case_settings(const runner::Table& table, const Row& row) {
  nlohmann::json s = nlohmann::json::object();
  s["case_id"] = cell(table, row, "case_id");
  for (const auto& axis : case_axes()) {
    if (!has_column(table, axis)) continue;
    if (is_numeric_axis(axis)) {
      const double v = number(table, row, axis);
      s[axis] = std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v);
    } else {
      s[axis] = cell(table, row, axis);
    }
  }
  const std::string k = s.value("kv_type_k", std::string("?"));
  const std::string v = s.value("kv_type_v", std::string("?"));
  s["kv"] = k == v ? k : k + "/" + v;
  return s;
}

std::string series_label(const nlohmann::json& settings, const std::vector<std::string>& varying,
                         const std::vector<std::string>& leave_out, const std::vector<std::string>& always) {
  const auto named = [&](const std::string& axis) {
    return std::find(varying.begin(), varying.end(), axis) != varying.end() ||
           std::find(always.begin(), always.end(), axis) != always.end();
  };
  // The axes a chart is about (`always`) lead the label.
  std::string first, rest;
  for (std::string axis : case_axes()) {
    if (axis == "kv_type_v") continue;
    const bool kv = axis == "kv_type_k";
    if (kv) axis = "kv";
    const bool shown = kv ? named("kv") || named("kv_type_k") || named("kv_type_v") : named(axis);
    if (!shown || std::find(leave_out.begin(), leave_out.end(), axis) != leave_out.end()) continue;
    std::string& part = std::find(always.begin(), always.end(), axis) != always.end() ? first : rest;
    part += (part.empty() ? "" : " · ") + axis_label(axis, settings);
  }
  const std::string label = first + (first.empty() || rest.empty() ? "" : " · ") + rest;
  return label.empty() ? "all cases" : label;
}

std::string threads_label(long threads) {
  if (threads == 0) return "all cores";
  return std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

const Row* summary_row(const RunData& run, const std::string& case_id) {
  for (const auto& row : run.summary.rows)
    if (cell(run.summary, row, "case_id") == case_id) return &row;
  return nullptr;
}

std::vector<OpMedian> op_medians(const runner::Table& ops) {
  using Key = std::tuple<std::string, std::string, std::string>;
  struct Values {
    size_t order = 0;
    std::vector<double> ms, gflop, gbyte, calls;
  };
  std::map<Key, Values> groups;
  const size_t c_case = ops.column("case_id"), c_phase = ops.column("phase"), c_op = ops.column("op");
  for (const auto& row : ops.rows) {
    auto [it, added] = groups.try_emplace(Key{row[c_case], row[c_phase], row[c_op]});
    if (added) it->second.order = groups.size();
    it->second.ms.push_back(number(ops, row, "ms"));
    it->second.gflop.push_back(number(ops, row, "gflop"));
    it->second.gbyte.push_back(number(ops, row, "gbyte"));
    it->second.calls.push_back(number(ops, row, "calls"));
  }
  std::vector<std::pair<size_t, OpMedian>> ordered;
  for (const auto& [key, v] : groups)
    ordered.push_back({v.order, OpMedian{std::get<0>(key), std::get<1>(key), std::get<2>(key), runner::median(v.ms),
                                         runner::median(v.gflop), runner::median(v.gbyte), runner::median(v.calls)}});
  std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<OpMedian> out;
  for (auto& [order, o] : ordered) out.push_back(std::move(o));
  return out;
}

std::vector<OpMedian> group_small_ops(const std::vector<OpMedian>& ops, double min_share_pct) {
  using Key = std::pair<std::string, std::string>;  // (case, phase)
  std::map<Key, double> total_ms;
  for (const auto& o : ops) total_ms[{o.case_id, o.phase}] += o.ms;
  std::vector<OpMedian> out;
  std::map<Key, OpMedian> other;
  std::vector<Key> order;  // groups as first seen, for where each "other" goes
  for (const auto& o : ops) {
    const Key key{o.case_id, o.phase};
    if (std::find(order.begin(), order.end(), key) == order.end()) order.push_back(key);
    const double total = total_ms[key];
    if (total > 0 && 100 * o.ms / total >= min_share_pct) {
      out.push_back(o);
      continue;
    }
    auto [it, added] = other.try_emplace(key, OpMedian{o.case_id, o.phase, kOtherOps});
    it->second.ms += o.ms;
    it->second.gflop += o.gflop;
    it->second.gbyte += o.gbyte;
    it->second.calls += o.calls;
  }
  // Each group's "other" right after its last kept op.
  std::vector<OpMedian> placed;
  for (const Key& key : order) {
    for (const auto& o : out)
      if (o.case_id == key.first && o.phase == key.second) placed.push_back(o);
    if (const auto it = other.find(key); it != other.end()) placed.push_back(it->second);
  }
  return placed;
}

std::vector<StepMedian> step_medians(const runner::Table& steps) {
  using Key = std::pair<std::string, double>;
  struct Values {
    size_t order = 0;
    double kv_length = 0;
    std::vector<double> step_ms, forward_ms;
  };
  std::map<Key, Values> groups;
  const size_t c_case = steps.column("case_id");
  for (const auto& row : steps.rows) {
    auto [it, added] = groups.try_emplace(Key{row[c_case], number(steps, row, "step")});
    if (added) {
      it->second.order = groups.size();
      it->second.kv_length = number(steps, row, "kv_length");
    }
    it->second.step_ms.push_back(number(steps, row, "step_ms"));
    it->second.forward_ms.push_back(number(steps, row, "forward_ms"));
  }
  std::vector<std::pair<size_t, StepMedian>> ordered;
  for (const auto& [key, v] : groups)
    ordered.push_back({v.order, StepMedian{key.first, key.second, v.kv_length, runner::median(v.step_ms),
                                           runner::median(v.forward_ms)}});
  std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<StepMedian> out;
  for (auto& [order, s] : ordered) out.push_back(std::move(s));
  return out;
}

std::optional<runner::Limits> run_limits(const RunData& run) {
  const nlohmann::json* limits = nullptr;
  if (run.meta.contains("fingerprint") && run.meta["fingerprint"].contains("limits"))
    limits = &run.meta["fingerprint"]["limits"];
  if (limits == nullptr || !limits->is_object()) return std::nullopt;
  const runner::Limits l = runner::limits_from_json(*limits);
  if (l.read_gb_s_all <= 0 || l.fp32_gflop_s_all <= 0) return std::nullopt;
  return l;
}

GemmPrecision weights_precision(const RunData& run, const std::string& weight_type) {
  using P = nlohmann::json::json_pointer;
  const P own("/models/" + weight_type + "/gemm_precision");
  const P only("/model/gemm_precision");
  const nlohmann::json& m = run.meta;
  const P* field = m.contains(own) ? &own : m.contains(only) ? &only : nullptr;
  if (field == nullptr) return GemmPrecision::F32;  // results from before it was recorded
  const nlohmann::json& name = m.at(*field);
  try {
    return parse_gemm_precision(name.is_string() ? name.get<std::string>() : name.dump());
  } catch (const Error& e) {
    fail_file(run.dir + "/meta.json", field->to_string() + ": " + e.what());
  }
}

}  // namespace pdbench::report
