// Scenario parser (bench/runner/scenario.*): parses the TOML text as a
// scenario file in the scratch folder (so a relative trace path points
// there), checks what the engine supports, then expands its sweeps into
// cases, which the size limits (scenario_limits.h) keep bounded.
#include <cstddef>
#include <cstdint>
#include <string>

#include "bench/runner/scenario.h"
#include "bench/runner/sweep.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pdbench;
  static const std::string path = fuzz::scratch_dir() + "/scenario.toml";
  fuzz::allow_errors([&] {
    const runner::Scenario scenario = runner::parse_scenario(std::string(fuzz::as_text(data, size)), path);
    runner::require_supported(scenario);
    runner::expand(scenario);
  });
  return 0;
}
