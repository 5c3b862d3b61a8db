#pragma once
// SIGINT and SIGTERM during `pdbench run`: the first asks the run to stop
// (it abandons the run in progress, writes what finished and exits
// 128 + signal); a second one removes the temporary files being written and
// ends the process at once with _exit. That is safe because files are only
// ever replaced whole (AtomicFile: a temporary file renamed over the old
// one). Every other command ends at the first signal, also without leaving
// a temporary file (end_on_signals).
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
  // While true (as it starts), there is nothing measured to write: a signal
  // ends the process at once, as outside `run`, instead of asking the run
  // to stop. The runner sets it false before its first measured run (a
  // synthetic model being generated, for one, has no place to stop at).
  std::atomic<bool>& ending_at_once();
};

// "SIGINT", "SIGTERM"
const char* signal_name(int signal);

// Installs the handlers outside `run`: SIGINT, SIGTERM and SIGHUP remove
// the temporary files being written, then end the process as the signal
// would have (same exit status for the shell).
void end_on_signals();

}  // namespace pdbench::cli
