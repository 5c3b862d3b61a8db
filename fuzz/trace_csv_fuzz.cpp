// Trace CSV reader (bench/runner/trace.*, over csv_table.*): reads the
// file as a request trace to replay.
#include <cstddef>
#include <cstdint>
#include <string>

#include "bench/runner/trace.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pdbench;
  const std::string path = fuzz::write_scratch_file("trace.csv", fuzz::as_text(data, size));
  fuzz::allow_errors([&] { runner::read_trace(path); });
  return 0;
}
