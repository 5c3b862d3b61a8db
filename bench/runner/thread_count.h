#pragma once
// OpenMP threads for a scope, restored after it, so what one case, the
// accuracy scoring or a peak measurement sets does not leak into the next
// one's fingerprint (meta.json records omp_get_max_threads). oneDNN sizes
// its thread partition when a primitive is made.
#include <omp.h>

#include <cstddef>

namespace pdbench::runner {

// The threads a case's `threads` runs on: itself, or 0 for every CPU the
// process may use (results record both: threads, threads_used).
inline size_t resolved_threads(size_t asked) { return asked > 0 ? asked : static_cast<size_t>(omp_get_num_procs()); }

class ThreadCount {
 public:
  explicit ThreadCount(int threads) : saved_(omp_get_max_threads()) { omp_set_num_threads(threads); }
  ~ThreadCount() { omp_set_num_threads(saved_); }
  ThreadCount(const ThreadCount&) = delete;
  ThreadCount& operator=(const ThreadCount&) = delete;

 private:
  int saved_;
};

}  // namespace pdbench::runner
