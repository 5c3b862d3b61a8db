#pragma once
// The process's peak resident memory (VmHWM in /proc/self/status), and its
// reset: writing "5" to /proc/self/clear_refs (Linux 4.0+) lowers the mark
// to the current resident size, so a phase's peak can be read on its own.
// Where the reset is not allowed the mark only grows, and a phase's reading
// is the process's peak so far.
namespace pdbench::runner {

class RssHighWater {
 public:
  RssHighWater();  // tries a reset once, to learn whether resets work here

  bool resettable() const { return resettable_; }
  void reset();           // nothing when not resettable
  long peak_kib() const;  // since the last reset; 0 when /proc cannot be read
  // The whole process's peak, resets notwithstanding (getrusage's would
  // forget what came before a reset).
  long process_peak_kib() const;

 private:
  long before_reset_kib_ = 0;  // the largest peak a reset cleared
  bool resettable_ = false;
};

}  // namespace pdbench::runner
