#pragma once
// CPU feature checks that __builtin_cpu_supports cannot make on every
// supported compiler: clang before 15 does not know "f16c", nor GCC 12 and
// clang 14 "avxvnni".
#include <cpuid.h>

namespace pdbench {

// F16C (half <-> float conversion instructions): CPUID leaf 1, ECX bit 29.
inline bool cpu_supports_f16c() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
}

// AVX-VNNI (VEX-encoded vpdpbusd on 256 bits): CPUID leaf 7 subleaf 1,
// EAX bit 4. The OS's saving of the ymm registers is AVX2's check.
inline bool cpu_supports_avx_vnni() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) != 0 && (eax & (1u << 4)) != 0;
}

}  // namespace pdbench
