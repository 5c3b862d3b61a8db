#include "bench/pdbench/store_run.h"

#include <cstdio>

#include "bench/resultsdb/history.h"
#include "engine/util/error.h"

namespace pdbench::cli {

void store_run(const std::string& db, const std::string& results_dir) {
  int64_t run_id = 0;
  try {
    run_id = resultsdb::History(db).append(results_dir);
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + "\n" + "the results in " + results_dir +
                " are whole; store them later with: pdbench merge " + results_dir + " --db " +
                resultsdb::redact_password(db));
  }
  std::fprintf(stderr, "stored as run %lld in %s\n", static_cast<long long>(run_id),
               resultsdb::redact_password(db).c_str());
}

}  // namespace pdbench::cli
