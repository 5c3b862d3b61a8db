#pragma once
// How the phases of one forward call run on the OpenMP threads. A single
// decode token runs the whole pass inside ONE parallel region: every thread
// walks the same layer loop and the threads meet at a barrier after each
// phase, so a step pays one thread wake-up instead of one per op. With more
// tokens in flight each phase forks a region of its own, since oneDNN's
// GEMMs and the tiled prefill attention open theirs and must not be called
// from inside one.
#include <omp.h>

#include "engine/util/error.h"

namespace pdbench {

class ThreadTeam {
 public:
  // in_region: called by every thread of an enclosing parallel region.
  explicit ThreadTeam(bool in_region) : in_region_(in_region) {}

  bool in_region() const { return in_region_; }

  // Every thread runs fn(thread, n_threads), then all meet.
  template <typename Fn>
  void all(Fn&& fn) const {
    each(fn);
    meet();
  }

  // Every thread runs fn(thread, n_threads) and goes on without waiting
  // for the others: for a phase whose results the next phase reads only on
  // the same thread (each thread's own tokens, shared out the same way).
  // Outside a region the phase's own region still ends in a join.
  template <typename Fn>
  void each(Fn&& fn) const {
    if (in_region_) return fn(omp_get_thread_num(), omp_get_num_threads());
#pragma omp parallel
    fn(omp_get_thread_num(), omp_get_num_threads());
  }

  // All threads wait for each other (nothing to wait for outside a region).
  void meet() const {
    if (!in_region_) return;
#pragma omp barrier
  }

  // One thread runs fn; the others wait for it.
  template <typename Fn>
  void one(Fn&& fn) const {
    if (!in_region_) return fn();
#pragma omp single
    fn();
  }

  // fn opens its own parallel region (a oneDNN GEMM, the prefill
  // attention), so it may only run from a team outside one.
  template <typename Fn>
  void forking(Fn&& fn) const {
    if (in_region_) throw Error("ThreadTeam: a forking phase inside a parallel region");
    fn();
  }

 private:
  bool in_region_;
};

}  // namespace pdbench
