#pragma once
// CPU feature checks that __builtin_cpu_supports cannot make on every
// supported compiler: clang before 15 does not know "f16c".
#include <cpuid.h>

namespace pdbench {

// F16C (half <-> float conversion instructions): CPUID leaf 1, ECX bit 29.
inline bool cpu_supports_f16c() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
}

}  // namespace pdbench
