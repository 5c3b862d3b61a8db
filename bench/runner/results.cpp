#include "bench/runner/results.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "bench/runner/load_results.h"
#include "bench/runner/stats.h"
#include "bench/runner/thread_count.h"
#include "engine/util/error.h"

namespace pdbench::runner {

namespace {

namespace fs = std::filesystem;

std::vector<std::string> with(std::vector<std::string> head, const std::vector<std::string>& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

const std::vector<std::string> kCaseColumns =
    with({"case_index", "case_id", "model", "model_sha256", "prompt_tokens", "output_tokens", "context_depth",
          "threads", "threads_used", "batch", "kv_type_k", "kv_type_v", "kv_block", "kv_capacity", "kv_cache",
          "weight_type", "weights", "sampling", "shared_prefix_tokens", "prefix_sharing", "trace_row",
          "trace_arrival_ms"},
         load_case_columns());

// The files a run writes; a temporary one is FILE.tmp.XXXXXX (AtomicFile).
const std::vector<std::string> kResultFiles = {"samples.csv", "steps.csv",       "ops.csv",    "requests.csv",
                                               "batch_steps.csv", "summary.csv", "meta.json"};
constexpr size_t kTempSuffixLength = std::string_view(".tmp.XXXXXX").size();

// Metrics summarized per case: column prefix, samples column ("" for the
// pooled step times), and requests column a load case pools instead ("":
// over runs as any case).
struct TimeMetric {
  std::string prefix;
  std::string samples_column;
  std::string requests_column;
};
const std::vector<TimeMetric> kTimeMetrics = {
    {"tokenize", "tokenize_ms", ""}, {"prefill", "prefill_ms", "prefill_ms"}, {"ttft", "ttft_ms", "ttft_ms"},
    {"decode", "decode_ms", "decode_ms"}, {"e2e", "e2e_ms", "e2e_ms"}, {"tpot", "tpot_ms", "tpot_ms"},
    {"itl", "", ""}, {"queue", "queue_ms", "queue_ms"}};

// A memory reading, empty when there is none (0).
std::string kib(long value) { return value > 0 ? std::to_string(value) : std::string(); }

std::vector<std::string> case_cells(const Case& c, const ModelColumns& model) {
  return with({std::to_string(c.index), c.id, model.file, model.sha256, std::to_string(c.prompt_tokens),
               std::to_string(c.output_tokens), std::to_string(c.context_depth), std::to_string(c.threads),
               std::to_string(resolved_threads(c.threads)), std::to_string(c.batch), c.kv_type_k, c.kv_type_v,
               std::to_string(c.kv_block), std::to_string(c.kv_capacity), c.kv_cache, c.weight_type, model.weights,
               c.sampling, std::to_string(c.shared_prefix_tokens), c.prefix_sharing, std::to_string(c.trace_row),
               c.trace_arrival_ms ? csv_number(*c.trace_arrival_ms) : ""},
              load_case_cells(c));
}

// (case_id, rep): one run's rows in every file.
std::pair<std::string, std::string> run_key(const Table& t, const std::vector<std::string>& row) {
  return {row[t.column("case_id")], row[t.column("rep")]};
}

// The largest number in a column over some rows, or empty when all are empty.
std::string largest(const Table& t, const std::vector<const std::vector<std::string>*>& rows, const std::string& column) {
  std::optional<double> most;
  for (const auto* r : rows)
    if (!(*r)[t.column(column)].empty()) most = std::max(most.value_or(0.0), cell_number(t, *r, column));
  return most ? csv_number(*most) : std::string();
}

void require_columns(const Table& t, const std::vector<std::string>& expected, const std::string& path) {
  if (t.columns != expected)
    fail_file(path, "columns differ from this pdbench version's (written by another version?); use a new folder");
}

}  // namespace

const std::vector<std::string>& case_columns() { return kCaseColumns; }

std::string described_axis(const std::string& column) {
  if (column == "threads_used") return "threads";
  if (column == "weights") return "weight_type";
  if (column == "model_sha256") return "model";
  return column;
}

const std::vector<std::string>& samples_columns() {
  static const auto columns =
      with(kCaseColumns, {"rep", "warmup_runs", "warmup_stable", "prompt_input", "prefix_hit_tokens",
                          "generated_tokens", "tokenize_ms", "prefill_ms", "ttft_ms", "decode_ms", "e2e_ms",
                          "tpot_ms", "itl_median_ms", "prefill_tok_s", "kv_bytes_allocated", "kv_bytes_used",
                          "weights_bytes", "peak_rss_kib", "rss_prefill_peak_kib", "rss_decode_peak_kib",
                          "queue_ms"});
  static const auto all = with(columns, load_sample_columns());
  return all;
}

const std::vector<std::string>& steps_columns() {
  static const std::vector<std::string> columns = {"case_index", "case_id", "rep",       "step",
                                                   "kv_length",  "step_ms", "forward_ms"};
  return columns;
}

const std::vector<std::string>& ops_columns() {
  static const std::vector<std::string> columns = {
      "case_index", "case_id", "rep",   "phase",   "op",   "calls",
      "ms",         "gflop",   "gbyte", "gflop_s", "gb_s", "peak_flop_fraction", "bandwidth_fraction"};
  return columns;
}

const std::vector<std::string>& requests_columns() {
  static const auto columns = with({"case_index", "case_id", "rep", "request"}, requests_value_columns());
  return columns;
}

const std::vector<std::string>& summary_columns() {
  static const auto columns = [] {
    auto c = with(kCaseColumns, {"samples", "warmup_runs", "warmup_stable", "prompt_input", "prefix_hit_tokens"});
    for (const TimeMetric& m : kTimeMetrics)
      for (const char* stat : {"median_ms", "mean_ms", "stddev_ms", "cv_pct", "p50_ms", "p90_ms", "p99_ms",
                               "ci95_lo_ms", "ci95_hi_ms"})
        c.push_back(m.prefix + "_" + stat);
    c = with(c, {"prefill_median_tok_s", "decode_median_tok_s", "decode_aggregate_median_tok_s", "kv_bytes_allocated",
                 "kv_bytes_used", "weights_bytes", "peak_rss_kib", "rss_prefill_peak_kib", "rss_decode_peak_kib"});
    return with(c, load_summary_columns());
  }();
  return columns;
}

Results empty_results() {
  return {{samples_columns(), {}}, {steps_columns(), {}}, {ops_columns(), {}}, {requests_columns(), {}},
          {batch_steps_columns(), {}}};
}

Results load_results(const std::string& dir) {
  Results r = empty_results();
  std::vector<std::pair<Table*, std::string>> files = {{&r.samples, "samples.csv"}};
  for (const IndexedTable& t : kIndexedTables) files.emplace_back(&(r.*t.table), t.file);
  for (const auto& [table, name] : files) {
    const std::string path = (fs::path(dir) / name).string();
    if (!fs::exists(path)) continue;
    const std::vector<std::string> expected = table->columns;
    *table = read_csv(path);
    require_columns(*table, expected, path);
  }
  // samples.csv is written last (write_results), so a process killed between
  // files can leave steps and ops of runs it does not list: drop them, the
  // runs are measured again.
  std::set<std::pair<std::string, std::string>> runs;
  for (const auto& row : r.samples.rows) runs.insert(run_key(r.samples, row));
  for (const IndexedTable& indexed : kIndexedTables) {
    Table& t = r.*indexed.table;
    std::erase_if(t.rows, [&](const auto& row) { return !runs.contains(run_key(t, row)); });
  }
  return r;
}

void append_run(Results& results, const PreparedCase& c, size_t rep, const WarmUp& warmup, const RunResult& run,
                const RunContext& context) {
  const Timings& t = run.timings;
  std::vector<double> step_ms;
  for (const StepPoint& s : run.steps) step_ms.push_back(s.step_ms);
  const double prompt = static_cast<double>(c.spec.prompt_tokens);
  results.samples.rows.push_back(with(
      case_cells(c.spec, context.model),
      {std::to_string(rep), std::to_string(warmup.runs), warmup.stable ? "1" : "0",
       c.prompts.front().is_text() ? "text" : "ids", std::to_string(run.prefix_hit_tokens),
       std::to_string(run.generated), csv_number(t.tokenize_ms), csv_number(t.prefill_ms),
       csv_number(t.ttft_ms), csv_number(t.decode_ms), csv_number(t.e2e_ms),
       run.generated > 1 ? csv_number(t.decode_ms / static_cast<double>(run.generated - 1)) : "",
       step_ms.empty() ? "" : csv_number(median(step_ms)),
       t.prefill_ms > 0 ? csv_number(1000.0 * prompt / t.prefill_ms) : "",
       std::to_string(run.kv_bytes_allocated), std::to_string(run.kv_bytes_used),
       std::to_string(context.weights_bytes), std::to_string(context.peak_rss_kib), kib(context.memory.prefill_kib),
       kib(context.memory.decode_kib), c.spec.is_load() ? csv_number(t.queue_ms) : ""}));
  results.samples.rows.back() = with(results.samples.rows.back(), load_sample_cells(c.spec, run, context.sla));
  append_requests(results.requests, c.spec, rep, run, context.sla);
  append_batch_steps(results.batch_steps, c.spec, rep, run);
  const std::string index = std::to_string(c.spec.index);
  for (const StepPoint& s : run.steps)
    results.steps.rows.push_back({index, c.spec.id, std::to_string(rep), std::to_string(s.step),
                                  std::to_string(s.kv_length), csv_number(s.step_ms), csv_number(s.forward_ms)});
  for (const auto& [phase, profile] : {std::pair{"prefill", &run.prefill}, std::pair{"decode", &run.decode}})
    for (size_t i = 0; i < kOpCount; ++i) {
      const OpStats s = profile->total(static_cast<Op>(i));
      if (s.calls == 0) continue;
      const double ms = static_cast<double>(s.ns) / 1e6;
      const double gflop_s = ms > 0 ? s.flops / ms / 1e6 : 0;
      const double gb_s = ms > 0 ? s.bytes / ms / 1e6 : 0;
      const auto fraction = [&](double achieved, double limit) {
        return context.limits && limit > 0 && achieved > 0 ? csv_number(achieved / limit) : std::string();
      };
      const std::string_view op = op_name(static_cast<Op>(i));
      const GemmPrecision precision = op_compute_precision(op, context.weights_precision);
      results.ops.rows.push_back(
          {index, c.spec.id, std::to_string(rep), phase, std::string(op), std::to_string(s.calls), csv_number(ms),
           csv_number(s.flops / 1e9), csv_number(s.bytes / 1e9), csv_number(gflop_s), csv_number(gb_s),
           fraction(gflop_s, context.limits ? context.limits->peak_gflop_s(c.spec.threads, precision) : 0),
           fraction(gb_s, context.limits ? context.limits->read_gb_s(c.spec.threads) : 0)});
    }
}

namespace {

// One case's rows in the results files.
struct Group {
  std::vector<const std::vector<std::string>*> rows;
  std::vector<const std::vector<std::string>*> requests;  // a load case's
  std::vector<double> itl;
};

// The values a metric summarizes: the pooled steps, a load case's requests,
// or one per run.
std::vector<double> metric_values(const TimeMetric& m, const Group& g, const Table& samples, const Table& requests) {
  if (m.samples_column.empty()) return g.itl;
  std::vector<double> values;
  const bool pooled = !g.requests.empty() && !m.requests_column.empty();
  const Table& t = pooled ? requests : samples;
  const std::string& column = pooled ? m.requests_column : m.samples_column;
  for (const auto* r : pooled ? g.requests : g.rows)
    if (!(*r)[t.column(column)].empty()) values.push_back(cell_number(t, *r, column));
  return values;
}

}  // namespace

Table summary_table(const Table& samples, const Table& steps, const Table& requests) {
  std::map<std::pair<size_t, std::string>, Group> groups;  // by (case_index, case_id)
  const size_t id_col = samples.column("case_id");
  for (const auto& row : samples.rows)
    groups[{static_cast<size_t>(cell_number(samples, row, "case_index")), row[id_col]}].rows.push_back(&row);
  for (const auto& row : steps.rows) {
    const auto it = groups.find({static_cast<size_t>(cell_number(steps, row, "case_index")), row[steps.column("case_id")]});
    if (it != groups.end()) it->second.itl.push_back(cell_number(steps, row, "step_ms"));
  }
  for (const auto& row : requests.rows) {
    const auto it =
        groups.find({static_cast<size_t>(cell_number(requests, row, "case_index")), row[requests.column("case_id")]});
    if (it != groups.end()) it->second.requests.push_back(&row);
  }
  Table out{summary_columns(), {}};
  for (const auto& [key, g] : groups) {
    const auto& first = *g.rows.front();
    std::vector<std::string> row;
    for (const auto& col : kCaseColumns) row.push_back(first[samples.column(col)]);
    double warmup_runs = 0;
    bool stable = true;
    std::vector<double> hits;
    for (const auto* r : g.rows) {
      warmup_runs = std::max(warmup_runs, cell_number(samples, *r, "warmup_runs"));
      stable = stable && (*r)[samples.column("warmup_stable")] == "1";
      hits.push_back(cell_number(samples, *r, "prefix_hit_tokens"));
    }
    row.insert(row.end(), {std::to_string(g.rows.size()), csv_number(warmup_runs), stable ? "1" : "0",
                           first[samples.column("prompt_input")], csv_number(median(hits))});
    std::map<std::string, double> medians;
    std::map<std::string, std::string> p99s;
    for (const TimeMetric& m : kTimeMetrics) {
      const std::vector<double> values = metric_values(m, g, samples, requests);
      if (values.empty()) {
        row.insert(row.end(), 9, "");
        continue;
      }
      const Summary s = summarize(values);
      medians[m.prefix] = s.median;
      p99s[m.prefix] = csv_number(s.p99);
      row.insert(row.end(), {csv_number(s.median), csv_number(s.mean), csv_number(s.stddev), csv_number(s.cv_pct),
                             csv_number(s.p50), csv_number(s.p90), csv_number(s.p99), csv_number(s.ci95_lo),
                             csv_number(s.ci95_hi)});
    }
    // Rates come from median times, never from averaged rates.
    const double prompt = cell_number(samples, first, "prompt_tokens");
    const double batch = cell_number(samples, first, "batch");
    const auto rate = [&](const char* metric, double per) {
      const auto it = medians.find(metric);
      return it != medians.end() && it->second > 0 ? csv_number(1000.0 * per / it->second) : std::string();
    };
    row.push_back(rate("prefill", prompt));
    row.push_back(rate("itl", 1));
    row.push_back(rate("itl", batch));
    for (const char* col : {"kv_bytes_allocated", "kv_bytes_used", "weights_bytes"})
      row.push_back(first[samples.column(col)]);
    for (const char* col : {"peak_rss_kib", "rss_prefill_peak_kib", "rss_decode_peak_kib"})
      row.push_back(largest(samples, g.rows, col));
    row = with(row, load_summary_cells(samples, g.rows, p99s["ttft"], p99s["tpot"]));
    out.rows.push_back(std::move(row));
  }
  return out;
}

void write_results(const std::string& dir, const Results& results) {
  // samples.csv after the files it indexes: a run it lists has its steps, ops and requests.
  for (const IndexedTable& t : kIndexedTables) write_csv((fs::path(dir) / t.file).string(), results.*t.table);
  write_csv((fs::path(dir) / "samples.csv").string(), results.samples);
  write_csv((fs::path(dir) / "summary.csv").string(), summary_table(results.samples, results.steps, results.requests));
}

void remove_stale_temporaries(const std::string& dir) {
  std::vector<fs::path> stale;  // listed first: removing while iterating is unspecified
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (std::any_of(kResultFiles.begin(), kResultFiles.end(), [&](const std::string& file) {
          return name.size() == file.size() + kTempSuffixLength && name.starts_with(file + ".tmp.");
        }))
      stale.push_back(entry.path());
  }
  for (const fs::path& path : stale) fs::remove(path, ec);
}

bool has_sample(const Table& samples, const std::string& case_id, size_t rep) {
  const size_t id_col = samples.column("case_id");
  const size_t rep_col = samples.column("rep");
  const std::string rep_text = std::to_string(rep);
  return std::any_of(samples.rows.begin(), samples.rows.end(),
                     [&](const auto& row) { return row[id_col] == case_id && row[rep_col] == rep_text; });
}

}  // namespace pdbench::runner
