// Inputs the fuzz targets found (fuzz/README.md): each once crashed a reader
// and must now be rejected with a pdbench::Error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench/runner/csv_table.h"
#include "bench/runner/merge.h"
#include "bench/runner/results.h"
#include "bench/runner/scenario.h"
#include "engine/util/error.h"
#include "tests/support/test_paths.h"

namespace pdbench::runner {
namespace {

namespace fs = std::filesystem;

// A results folder whose samples.csv has one row, every cell 1 but `column`,
// which holds `value`.
std::string results_dir_with(const std::string& column, const std::string& value) {
  const std::string dir = test::temp_dir("fuzz-regression");
  Table samples{samples_columns(), {std::vector<std::string>(samples_columns().size(), "1")}};
  samples.rows[0][samples.column(column)] = value;
  write_csv(dir + "/samples.csv", samples);
  std::ofstream(dir + "/meta.json") << R"({"scenario": {"sha256": "fuzz"}})";
  return dir;
}

// merge sorted rows by std::stod of their keys; "pe_02" made it throw
// std::invalid_argument instead of an Error.
TEST(FuzzRegression, MergeRejectsASortKeyThatIsNotACount) {
  for (const std::string bad : {"pe_02", "", "-1", "1.5", "nan", "99999999999999999999999"}) {
    const std::string dir = results_dir_with("rep", bad);
    EXPECT_THROW(merge_results(dir + "/merged", {dir}), Error) << "rep = '" << bad << "'";
  }
}

// The serving-load summary read its medians and SLA limits by std::stod; a
// damaged cell threw std::invalid_argument instead of an Error.
TEST(FuzzRegression, MergeRejectsALoadCellThatIsNotANumber) {
  for (const char* column : {"requests_sent", "output_tok_s", "sla_ttft_p99_ms"})
    for (const std::string bad : {"x", "1x", "-"}) {
      const std::string dir = results_dir_with(column, bad);
      EXPECT_THROW(merge_results(dir + "/merged", {dir}), Error) << column << " = '" << bad << "'";
    }
}

// A trace (or any CSV) that is a folder opened, then the first read threw
// std::ios_base::failure instead of an Error.
TEST(FuzzRegression, ScenarioTraceThatIsAFolderIsAnError) {
  EXPECT_THROW(parse_scenario("trace=\"/\"\n[model]\npath=\"0\"#", "fuzz.toml"), Error);
  const std::string dir = test::temp_dir("fuzz-regression");
  EXPECT_THROW(read_csv(dir), Error);
}

}  // namespace
}  // namespace pdbench::runner
