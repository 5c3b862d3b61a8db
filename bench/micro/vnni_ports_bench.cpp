// Which execution resources vpdpbusd shares, on this CPU: the bound under
// the grouped kernels' prefill (gemv_avx512_grouped.h). Each iteration
// runs 12 independent zmm vpdpbusd chains (enough to hide its latency)
// plus a few independent instructions of one kind; items/s counts the
// vpdpbusd. Where the extra instructions leave the vpdpbusd rate as it is,
// they run beside it; where it drops, they take its units (or, for loads,
// the load ports). Compare variants within one run:
// --benchmark_filter=BM_vnni_ports --benchmark_repetitions=3.
//
// BM_vnni_ports/alone: 12 vpdpbusd; /fma4, /mul4, /cvt4, /add4, /and4:
// plus 4 vfmadd231ps, vmulps, vcvtdq2ps, vaddps or vpandd; /load9: plus 9
// aligned 64-byte loads; /split_load9: the same loads 32 bytes off the
// line, so each spans two cache lines.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>

#include "engine/util/aligned_vector.h"

namespace pdbench {
namespace {

#define PDB_DPBUSD12                                                                                      \
  "vpdpbusd %%zmm30, %%zmm31, %%zmm0\n vpdpbusd %%zmm30, %%zmm31, %%zmm1\n"                               \
  "vpdpbusd %%zmm30, %%zmm31, %%zmm2\n vpdpbusd %%zmm30, %%zmm31, %%zmm3\n"                               \
  "vpdpbusd %%zmm30, %%zmm31, %%zmm4\n vpdpbusd %%zmm30, %%zmm31, %%zmm5\n"                               \
  "vpdpbusd %%zmm30, %%zmm31, %%zmm6\n vpdpbusd %%zmm30, %%zmm31, %%zmm7\n"                               \
  "vpdpbusd %%zmm30, %%zmm31, %%zmm8\n vpdpbusd %%zmm30, %%zmm31, %%zmm9\n"                               \
  "vpdpbusd %%zmm30, %%zmm31, %%zmm10\n vpdpbusd %%zmm30, %%zmm31, %%zmm11\n"
#define PDB_FOUR(op) op " %%zmm30, %%zmm31, %%zmm12\n" op " %%zmm30, %%zmm31, %%zmm13\n" \
                     op " %%zmm30, %%zmm31, %%zmm14\n" op " %%zmm30, %%zmm31, %%zmm15\n"
#define PDB_LOAD(n, at) "vmovdqu64 " #at "(%1), %%zmm" #n "\n"
#define PDB_LOADS9                                                                                        \
  PDB_LOAD(12, 0) PDB_LOAD(13, 64) PDB_LOAD(14, 128) PDB_LOAD(15, 192) PDB_LOAD(16, 256) PDB_LOAD(17, 320) \
  PDB_LOAD(18, 384) PDB_LOAD(19, 448) PDB_LOAD(20, 512)

// Every operand 1.0f (or its bits): no denormals or NaNs to slow the float ops.
#define PDB_ONES                                                                                           \
  "vpbroadcastd %k2, %%zmm30\n vmovdqa64 %%zmm30, %%zmm31\n vmovdqa64 %%zmm30, %%zmm12\n"                  \
  "vmovdqa64 %%zmm30, %%zmm13\n vmovdqa64 %%zmm30, %%zmm14\n vmovdqa64 %%zmm30, %%zmm15\n"

// n iterations of 12 vpdpbusd and `extra`, reading from `data` (loads only).
#define PDB_PORT_LOOP(name, extra)                                                                \
  __attribute__((target("avx512f,avx512vnni"), noinline)) void name(size_t n, const std::byte* data) { \
    asm volatile(PDB_ONES "1:\n" PDB_DPBUSD12 extra "dec %0\n jnz 1b\n"                         \
                 : "+r"(n)                                                                        \
                 : "r"(data), "r"(0x3f800000)                                                     \
                 : "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",     \
                   "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", \
                   "xmm17", "xmm18", "xmm19", "xmm20", "xmm30", "xmm31");                                           \
  }

PDB_PORT_LOOP(alone, "")
PDB_PORT_LOOP(fma4, PDB_FOUR("vfmadd231ps"))
PDB_PORT_LOOP(mul4, PDB_FOUR("vmulps"))
PDB_PORT_LOOP(add4, PDB_FOUR("vaddps"))
PDB_PORT_LOOP(and4, PDB_FOUR("vpandd"))
PDB_PORT_LOOP(cvt4, "vcvtdq2ps %%zmm30, %%zmm12\n vcvtdq2ps %%zmm30, %%zmm13\n"
                    "vcvtdq2ps %%zmm30, %%zmm14\n vcvtdq2ps %%zmm30, %%zmm15\n")
PDB_PORT_LOOP(load9, PDB_LOADS9)

using PortLoop = void (*)(size_t, const std::byte*);

void BM_vnni_ports(benchmark::State& state, PortLoop loop, size_t offset) {
  if (!__builtin_cpu_supports("avx512vnni")) return state.SkipWithError("no AVX-512 VNNI");
  AlignedVector<std::byte> data(1024);
  constexpr size_t kIterations = 1 << 20;
  for (auto _ : state) loop(kIterations, data.data() + offset);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * 12 * kIterations));
}

BENCHMARK_CAPTURE(BM_vnni_ports, alone, alone, 0);
BENCHMARK_CAPTURE(BM_vnni_ports, fma4, fma4, 0);
BENCHMARK_CAPTURE(BM_vnni_ports, mul4, mul4, 0);
BENCHMARK_CAPTURE(BM_vnni_ports, cvt4, cvt4, 0);
BENCHMARK_CAPTURE(BM_vnni_ports, add4, add4, 0);
BENCHMARK_CAPTURE(BM_vnni_ports, and4, and4, 0);
BENCHMARK_CAPTURE(BM_vnni_ports, load9, load9, 0);
BENCHMARK_CAPTURE(BM_vnni_ports, split_load9, load9, 32);

}  // namespace
}  // namespace pdbench
