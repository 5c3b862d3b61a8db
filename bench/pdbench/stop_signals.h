#pragma once
// SIGINT and SIGTERM during `pdbench run`: the first asks the run to stop
// (it abandons the run in progress, writes what finished and exits
// 128 + signal); a second one ends the process at once with _exit. That is
// safe because results files are only ever replaced whole (a temporary file
// renamed over the old one), and the next run deletes stale temporaries.
#include <atomic>

namespace pdbench::cli {

class StopSignals {
 public:
  StopSignals();   // installs the handlers
  ~StopSignals();  // restores the previous ones
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // 0, or the first signal received.
  const std::atomic<int>& received() const;
};

// "SIGINT", "SIGTERM"
const char* signal_name(int signal);

}  // namespace pdbench::cli
