// The command line's number lists (bench/pdbench/options.*: -p/-n/-d/-t/-b,
// items N or llama-bench's FIRST-LAST[+STEP|*MULT]): the input is one
// option value. A list it accepts is 1 to 4096 values, each at least the
// option's minimum; anything else is an Error naming the flag, or CLI11's
// own parse error, never a hang on a huge range.
#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/pdbench/options.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pdbench;
  const std::string value(fuzz::as_text(data, size));
  for (uint64_t min : {uint64_t{0}, uint64_t{1}}) {
    CLI::App app("cli_numbers_fuzz");
    std::vector<size_t> values;
    cli::add_number_list(app, "-p,--prompt-tokens", values, min, "prompt lengths");
    fuzz::allow_errors([&] {
      try {
        app.parse(std::vector<std::string>{value, "-p"});  // CLI11 takes the arguments last first
      } catch (const CLI::ParseError&) {
        return;
      }
      fuzz::require(!values.empty() && values.size() <= 4096, "an accepted list has 1 to 4096 values");
      for (size_t v : values) fuzz::require(v >= min, "every accepted value is at least the minimum");
    });
  }
  return 0;
}
