#pragma once
// How the rows of matrices stacked into one row space (fused Q/K/V or
// gate/up) are dealt to threads: in pieces of the whole stack, so the stack
// costs one barrier instead of one per matrix. Each thread owns an equal run
// of pieces and takes them in order, so its rows stream as one; a thread
// done with its own takes the next pieces of the others' (OpenMP's
// schedule(dynamic) hands pieces out in one order to whoever asks, so a
// thread's consecutive pieces would rarely be adjacent rows). A static half
// each left one thread waiting whenever the other's CPU ran slower: on a
// 2-vCPU KVM guest the two ran a dependent-add loop at 3.4 and 1.2 G adds/s,
// and which one was slow changed within minutes.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "engine/kernels/matrix_view.h"

namespace pdbench {

// How many pieces each of n_threads owns of a stack of `bytes`: one for one
// thread, else up to 8, none under 256 KiB.
inline size_t stacked_row_pieces_each(size_t bytes, int n_threads) {
  if (n_threads == 1) return 1;
  return std::clamp<size_t>((bytes / static_cast<size_t>(n_threads)) >> 18, 1, 8);
}

// The pieces' owners' counters. Inside a parallel region: every thread
// calls reset(thread), then after a barrier take(...).
class PieceDealer {
 public:
  explicit PieceDealer(int max_threads)
      : counters_(std::make_unique<Counter[]>(static_cast<size_t>(max_threads))), max_threads_(max_threads) {}
  int max_threads() const { return max_threads_; }

  void reset(int thread) { counters_[static_cast<size_t>(thread)].next.store(0, std::memory_order_relaxed); }

  // fn(piece) for the pieces `thread` takes of n_threads * each: its own
  // first, in order, then what is left of the next threads'.
  template <typename Fn>
  void take(int thread, int n_threads, size_t each, Fn fn) {
    for (int k = 0; k < n_threads; ++k) {
      const auto owner = static_cast<size_t>((thread + k) % n_threads);
      for (size_t i; (i = counters_[owner].next.fetch_add(1, std::memory_order_relaxed)) < each;) fn(owner * each + i);
    }
  }

 private:
  struct alignas(64) Counter {
    std::atomic<size_t> next{0};
  };
  std::unique_ptr<Counter[]> counters_;
  int max_threads_;
};

// fn(i, base, lo, hi) for the rows [lo, hi) of part i (parts[i].view(), a
// MatrixView) in piece `piece` of n_pieces, base being the rows of the
// parts before it. Pieces are equal in bytes, not rows: the parts' types
// may differ (Q4_K_M keeps V in Q6_K beside Q and K in Q4_K), and a
// piece's time follows the bytes it reads. A row is the piece's whose
// first byte falls in it.
template <typename Part, typename Fn>
void split_stacked_rows(std::span<const Part> parts, size_t piece, size_t n_pieces, Fn fn) {
  size_t total = 0;
  for (const Part& part : parts) total += part.view().bytes();
  const size_t from = total * piece / n_pieces;
  const size_t to = total * (piece + 1) / n_pieces;
  size_t offset = 0;
  int64_t base = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const MatrixView& w = parts[i].view();
    const size_t stride = w.row_stride();
    auto first_row_at = [&](size_t byte) {
      const size_t row = byte <= offset ? 0 : (byte - offset + stride - 1) / stride;
      return static_cast<int64_t>(std::min(row, static_cast<size_t>(w.rows)));
    };
    const int64_t lo = first_row_at(from);
    const int64_t hi = first_row_at(to);
    if (lo < hi) fn(i, base, lo, hi);
    offset += w.bytes();
    base += w.rows;
  }
}

}  // namespace pdbench
