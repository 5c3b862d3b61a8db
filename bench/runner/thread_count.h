#pragma once
// OpenMP threads for a scope, restored after it, so what one case, the
// accuracy scoring or a peak measurement sets does not leak into the next
// one's fingerprint (meta.json records omp_get_max_threads). oneDNN sizes
// its thread partition when a primitive is made.
#include <omp.h>

namespace pdbench::runner {

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
