// meta.json reader (bench/runner/meta_json.*): reads the file as a results
// folder's meta.json. A file it accepts has every key pdbench writes in
// its documented type, so reading any of them typed cannot throw.
#include <cstddef>
#include <cstdint>
#include <string>

#include "bench/runner/meta_json.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pdbench;
  const std::string path = fuzz::write_scratch_file("meta.json", fuzz::as_text(data, size));
  const std::string dir = fuzz::scratch_dir();
  fuzz::allow_errors([&] {
    const nlohmann::json meta = runner::read_meta_json(dir);
    fuzz::require(meta.is_object(), "an accepted meta.json is an object");
    runner::check_meta_types(meta, path);  // idempotent on what it accepted
  });
  return 0;
}
