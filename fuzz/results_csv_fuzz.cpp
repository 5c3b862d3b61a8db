// Results CSVs as merge and compare read them back (bench/runner/csv_table.*,
// results.*, merge.*; bench/compare/compare_table.*). The input is a results
// folder's samples.csv, then optionally a form feed and its steps.csv; the
// folder's meta.json is fixed. The folder is compared with itself, and
// merged (as one shard) into a new folder.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "bench/compare/compare_table.h"
#include "bench/compare/markdown.h"
#include "bench/runner/merge.h"
#include "fuzz/fuzz_support.h"

namespace {

using namespace pdbench;

constexpr char kFileSeparator = '\f';
constexpr std::string_view kMeta =
    R"({"scenario": {"sha256": "fuzz"}, "cases": 1, "shard": "1/1",)"
    R"( "started_at": "2025-01-01T00:00:00Z", "finished_at": "2025-01-01T00:00:01Z"})";

// The results folder holding the input's files.
std::string write_run(std::string_view input) {
  namespace fs = std::filesystem;
  static const std::string dir = [] {
    const std::string run = fuzz::scratch_dir() + "/run";
    fs::create_directory(run);
    fuzz::write_scratch_file("run/meta.json", kMeta);
    return run;
  }();
  const size_t separator = input.find(kFileSeparator);
  fuzz::write_scratch_file("run/samples.csv", input.substr(0, separator));
  if (separator == std::string_view::npos)
    fs::remove(dir + "/steps.csv");
  else
    fuzz::write_scratch_file("run/steps.csv", input.substr(separator + 1));
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string run = write_run(fuzz::as_text(data, size));
  fuzz::allow_errors([&] {
    const compare::RunData side = compare::load_run_dir(run);
    const compare::Comparison comparison = compare::compare_runs(side, side, compare::Rule{});
    compare::text_report(comparison);
    compare::markdown_report(comparison);
  });
  const std::string merged = fuzz::scratch_dir() + "/merged";
  fuzz::allow_errors([&] { runner::merge_results(merged, {run}); });
  std::filesystem::remove_all(merged);
  return 0;
}
