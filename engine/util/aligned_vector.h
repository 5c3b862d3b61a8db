#pragma once
// std::vector storage for buffers the SIMD kernels stream through.
//  - Every buffer starts on a cache line. The kernels load 64 bytes at a
//    time; from a malloc'd buffer (16-byte aligned) every such load spans two
//    lines, which measured ~30% slower for the batch GEMV with its
//    activations in L1 (2.0 against 1.4 G vpdpbusd/s per core).
//  - A buffer of 2 MiB or more starts on a 2 MiB boundary and asks for
//    transparent huge pages (this machine's THP mode is "madvise": nothing
//    is huge unless asked). Decode streams every weight once per token;
//    through 4 KiB pages the 1B model's 279 MB LM head took 12.9-13.9 ms per
//    token, through 2 MiB pages 9.9-10.0 (pdbench run, Q8_0, 2 threads).
#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <vector>

namespace pdbench {

inline constexpr size_t kCacheLine = 64;
inline constexpr size_t kHugePage = size_t{2} << 20;

template <typename T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <typename U>
  explicit AlignedAllocator(const AlignedAllocator<U>& /*other*/) {}

  static std::align_val_t alignment(size_t n) {
    return std::align_val_t{n * sizeof(T) >= kHugePage ? kHugePage : kCacheLine};
  }
  T* allocate(size_t n) {
    void* p = ::operator new(n * sizeof(T), alignment(n));
    // Before the first touch, so the pages fault in huge; advice only: a
    // kernel without THP leaves them small.
    if (alignment(n) == std::align_val_t{kHugePage}) madvise(p, n * sizeof(T), MADV_HUGEPAGE);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) { ::operator delete(p, alignment(n)); }
  friend bool operator==(const AlignedAllocator&, const AlignedAllocator&) { return true; }
};

template <typename T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

}  // namespace pdbench
