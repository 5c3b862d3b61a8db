#pragma once
// How much memory a large allocation may take. Linux overcommits: an
// allocation beyond free RAM succeeds and the process is killed later, when
// its pages are touched, so big buffers are checked against MemAvailable
// first (/proc/meminfo: what the kernel can hand out without swapping).
// PDBENCH_MEM_AVAILABLE_MIB, when set, is used instead: to leave room for
// other jobs on a shared machine, and for tests.
#include <cstddef>
#include <string>

namespace pdbench {

inline constexpr const char* kMemAvailableVariable = "PDBENCH_MEM_AVAILABLE_MIB";

// Throws Error "WHAT: X needed, but only Y of memory is available (source)"
// when `bytes` exceed the memory available; nothing when that is unknown.
void require_memory(size_t bytes, const std::string& what);
// Whether `bytes` fit in the memory available (true when that is unknown).
bool memory_fits(size_t bytes);

// "512 B", "1.5 MiB", "2.3 GiB": sizes in messages.
std::string format_bytes(size_t bytes);

}  // namespace pdbench
