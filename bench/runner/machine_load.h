#pragma once
// Whether something else used the CPU while a run was measured: the load
// average (/proc/loadavg) and the CPU time of every other process, the
// machine's busy time (/proc/stat) less this process's (/proc/self/stat),
// sampled before the measurements and between runs during them. Recorded
// in meta.json `machine_load` (docs/RESULTS.md); the report and `pdbench
// run` put a busy machine and unstable warm-ups at the top (run_notes).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/runner/csv_table.h"

namespace pdbench::runner {

// Other processes averaging at least this many CPUs before or during the
// measurements make the machine "busy".
inline constexpr double kBusyOtherCpus = 0.25;

// One reading of the counters.
struct CpuReading {
  double wall_s = 0;       // steady clock
  double machine_busy_s = 0;  // every CPU's non-idle time (steal included), summed
  double self_s = 0;       // this process's user + system time, every thread
  double loadavg_1m = 0;
};
// Reads /proc; a counter that cannot be read stays 0 (then nothing is busy).
CpuReading read_cpu();

// Other processes' CPUs, on average, between two readings.
double other_cpus(const CpuReading& from, const CpuReading& to);

class MachineLoad {
 public:
  // Starts the window "before": call as the run starts. With server_here
  // (a remote target on this machine, serves_from_this_machine), the
  // server's work counts among the other processes during the
  // measurements, so only "before" can make the machine busy.
  explicit MachineLoad(bool server_here = false);
  // Ends "before" and starts "during": call before the first warm-up. A
  // window shorter than kMinBeforeSeconds is waited out, so the average
  // means something.
  void measurements_start();
  // Between runs: the busiest stretch of at least a second is kept.
  void between_runs();
  // meta.json `machine_load`: "during" once measurements_start was called.
  nlohmann::json json() const;

  static constexpr double kMinBeforeSeconds = 0.25;

 private:
  CpuReading start_, measuring_, stretch_, last_;
  bool server_here_;
  bool measuring_started_ = false;
  double peak_ = 0;
};

// Lines that qualify every figure of a run: the machine's load (meta.json
// `machine_load`, busy or quiet, or that it was not recorded), and the
// cases whose warm-up hit warmup_max (summary.csv `warmup_stable`).
std::vector<std::string> run_notes(const nlohmann::json& meta, const Table& summary);

}  // namespace pdbench::runner
