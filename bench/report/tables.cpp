#include "bench/report/tables.h"

#include <cmath>
#include <filesystem>
#include <functional>
#include <set>

#include "bench/report/insights.h"
#include "bench/runner/sysinfo.h"

namespace pdbench::report {

namespace {

std::string text(const nlohmann::json& j, const nlohmann::json::json_pointer& at) {
  if (!j.contains(at)) return "-";
  const auto& v = j.at(at);
  if (v.is_null()) return "-";
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string rate(const nlohmann::json& limits, const char* one, const char* all, const char* unit) {
  if (!limits.is_object() || !limits.contains(one)) return "not measured (results of a pdbench that did not measure them)";
  return readable(limits.value(one, 0.0)) + " " + unit + " (1 thread), " + readable(limits.value(all, 0.0)) + " " + unit +
         " (all cores)";
}

std::string caches(const nlohmann::json& fp) {
  if (!fp.contains("caches")) return "-";
  std::string out;
  for (const auto& c : fp["caches"]) {
    if (c.value("type", "") == "Instruction") continue;
    out += (out.empty() ? "" : ", ") + ("L" + c.value("level", std::string("?"))) + " " + c.value("size", std::string("?"));
  }
  return out;
}

}  // namespace

TextTable key_table(const RunData& run) {
  TextTable t{{"case", "TTFT median (ms)", "TTFT CV (%)", "prefill (tokens/s)", "decode (tokens/s)",
               "inter-token CV (%)", "runs"},
              {}};
  const auto& s = run.summary;
  const auto value = [&](const std::vector<std::string>& row, const char* column) {
    const double v = number(s, row, column);
    return std::isnan(v) ? std::string("-") : readable(v);
  };
  // Thread counts above the CPUs the run had (meta.json): their timings
  // include threads waiting for a core, and the table says so.
  std::set<std::string> oversubscribed;
  for (const auto& n : run.meta.value("oversubscribed_threads", nlohmann::json::array()))
    if (n.is_number_integer()) oversubscribed.insert(std::to_string(n.get<long>()));
  const auto case_label = [&](const std::vector<std::string>& row) {
    const std::string id = cell(s, row, "case_id");
    return oversubscribed.contains(cell(s, row, "threads")) ? id + " (oversubscribed)" : id;
  };
  for (const auto& row : s.rows)
    t.rows.push_back({case_label(row), value(row, "ttft_median_ms"), value(row, "ttft_cv_pct"),
                      value(row, "prefill_median_tok_s"), value(row, "decode_median_tok_s"), value(row, "itl_cv_pct"),
                      cell(s, row, "samples")});
  return t;
}

TextTable fingerprint_table(const std::vector<RunData>& runs) {
  TextTable t;
  t.header.push_back("");
  for (const auto& run : runs) t.header.push_back(run.label);
  using P = nlohmann::json::json_pointer;
  const std::vector<std::pair<std::string, std::function<std::string(const nlohmann::json&)>>> facts{
      {"CPU", [](const nlohmann::json& fp) { return text(fp, P("/cpu/model")); }},
      {"cores (physical / logical)",
       [](const nlohmann::json& fp) { return text(fp, P("/cpu/physical_cores")) + " / " + text(fp, P("/cpu/logical_cpus")); }},
      {"caches", caches},
      {"memory", [](const nlohmann::json& fp) {
         return fp.contains("memory_bytes") ? readable_bytes(fp["memory_bytes"].get<double>()) : std::string("-");
       }},
      {"read bandwidth", [](const nlohmann::json& fp) {
         return rate(fp.value("limits", nlohmann::json()), "read_gb_s_1t", "read_gb_s_all", "GB/s");
       }},
      {"FP32 peak", [](const nlohmann::json& fp) {
         return rate(fp.value("limits", nlohmann::json()), "fp32_gflop_s_1t", "fp32_gflop_s_all", "GFLOP/s");
       }},
      {"BF16 GEMM peak", [](const nlohmann::json& fp) {
         return rate(fp.value("limits", nlohmann::json()), "bf16_gflop_s_1t", "bf16_gflop_s_all", "GFLOP/s");
       }},
      {"INT8 GEMM peak", [](const nlohmann::json& fp) {
         return rate(fp.value("limits", nlohmann::json()), "int8_gop_s_1t", "int8_gop_s_all", "GOP/s");
       }},
      {"limits measured", [](const nlohmann::json& fp) {
         const nlohmann::json limits = fp.value("limits", nlohmann::json());
         return limits.is_object() ? runner::limits_provenance(runner::limits_from_json(limits)) : std::string("-");
       }},
      {"kernel", [](const nlohmann::json& fp) { return text(fp, P("/kernel")); }},
      {"transparent huge pages", [](const nlohmann::json& fp) { return text(fp, P("/transparent_hugepages")); }},
      {"governor", [](const nlohmann::json& fp) { return text(fp, P("/governor")); }},
      {"compiler", [](const nlohmann::json& fp) { return text(fp, P("/compiler")) + ", " + text(fp, P("/build_type")); }},
      {"flags", [](const nlohmann::json& fp) { return text(fp, P("/cxx_flags")); }},
      {"oneDNN", [](const nlohmann::json& fp) { return text(fp, P("/onednn")); }},
      {"commit", [](const nlohmann::json& fp) { return text(fp, P("/git_commit")); }},
  };
  for (const auto& [name, get] : facts) {
    std::vector<std::string> row{name};
    for (const auto& run : runs)
      row.push_back(run.meta.contains("fingerprint") ? get(run.meta["fingerprint"]) : std::string("-"));
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string run_line(const RunData& run) {
  using P = nlohmann::json::json_pointer;
  const auto& m = run.meta;
  std::string line = run.label + ": scenario " + text(m, P("/scenario/name"));
  if (m.contains(P("/model/path")))
    line += ", model " + std::filesystem::path(m.at(P("/model/path")).get<std::string>()).filename().string() + " (" +
            text(m, P("/model/architecture")) + ", " + text(m, P("/model/layers")) + " layers, dim " +
            text(m, P("/model/dim")) + ")";
  // A run sent to a server names it: its model file then only tokenized.
  if (m.value(P("/target/kind"), std::string()) == "openai")
    line += ", served by " + text(m, P("/target/url")) + " (model " + text(m, P("/target/model")) + ")";
  line += ", " + std::to_string(run.summary.rows.size()) + " cases x " + text(m, P("/repetitions")) + " runs";
  line += ", started " + text(m, P("/started_at"));
  if (m.value("finished_at", nlohmann::json()).is_null()) line += " (unfinished)";
  return line;
}

}  // namespace pdbench::report
