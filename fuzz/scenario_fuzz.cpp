// Scenario parser (bench/runner/scenario.*): parses the TOML text as a
// scenario file in the scratch folder (so a relative trace path points
// there), then checks what the engine supports.
#include <cstddef>
#include <cstdint>
#include <string>

#include "bench/runner/scenario.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pdbench;
  static const std::string path = fuzz::scratch_dir() + "/scenario.toml";
  fuzz::allow_errors([&] {
    const runner::Scenario scenario = runner::parse_scenario(std::string(fuzz::as_text(data, size)), path);
    runner::require_supported(scenario);
  });
  return 0;
}
