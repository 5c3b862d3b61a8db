#pragma once
// What the soak tests share (scripts/soak.sh: tests/model/soak_test.cpp in
// process, tests/server/http_soak_test.cpp over HTTP): the request mix and
// the memory a leak would grow.
#include <malloc.h>
#include <unistd.h>

#include <cstddef>
#include <fstream>
#include <iterator>

#include "engine/runtime/generator.h"

#if defined(__SANITIZE_ADDRESS__)
// libasan exports it; GCC 12 ships no header for it.
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace pdbench::test {

#if defined(__SANITIZE_ADDRESS__)
// AddressSanitizer keeps freed memory in a quarantine (256 MiB by default)
// before reuse, so the resident set grows by design until it is full; the
// allocator's live bytes are what a leak would grow.
inline size_t memory_in_use() { return __sanitizer_get_current_allocated_bytes(); }
#else
// The heap's live bytes, every arena and the mmapped chunks. Not the
// resident set: glibc gives each new thread's arena pages it keeps after
// free, so the resident set of a test with client threads per wave climbs
// for a while with nothing leaked.
inline size_t memory_in_use() {
  const struct mallinfo2 m = ::mallinfo2();
  return m.uordblks + m.hblkhd;
}
#endif

// Resident pages of this process, in bytes (/proc/self/statm's second
// field): what the soak prints for the record.
inline size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  size_t total = 0, resident = 0;
  statm >> total >> resident;
  return resident * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
}

// Memory in use may grow this much past the first wave's before it counts
// as a leak (allocator caches, thread stacks of a busier wave).
inline constexpr size_t kSoakMemorySlack = size_t{8} << 20;

inline constexpr const char* kSoakPrompts[] = {
    "Once upon a time",  "Lily and Tom went to the park", "The cat sat on the mat and looked at the bird",
    "One day",           "Tim had a big red ball. He liked to play with it every day", "The sun was hot",
    "Sue and her mom",   "There was a little dog named Max who loved to run and jump in the grass",
};
inline constexpr size_t kSoakLengths[] = {1, 3, 16, 48};

// Request i of the soak: prompt, length and sampling cycle at different
// periods, so neighbours in a batch differ; one in three samples, seeded.
inline GenerateRequest soak_request(size_t i) {
  GenerateRequest r;
  r.prompt = kSoakPrompts[i % std::size(kSoakPrompts)];
  r.max_new_tokens = kSoakLengths[(i / 3) % std::size(kSoakLengths)];
  if (i % 3 == 2) {
    r.sampling.temperature = 0.9f;
    r.sampling.seed = i % 5;
  }
  return r;
}

}  // namespace pdbench::test
