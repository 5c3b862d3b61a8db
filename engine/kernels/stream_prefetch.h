#pragma once
// How far ahead the AVX-512 grouped kernels prefetch rows they stream from
// memory into L1 (decode, and the first tile of a prefill's rows): 2 KiB,
// which suited an AMD EPYC Zen 4, or as far as into L2 up to 4 KiB (two
// rows: RowRead::StreamedFarL1, gemv_isa.h), which streamed Llama-3.2-1B's
// Q4_K gate/up rows 11-16% faster on an AMD EPYC Zen 5 (gemv_avx512_grouped.h).
// Which is faster is the CPU's, so it is measured, once per process and ISA.
#include <string>

#include "engine/util/isa.h"

namespace pdbench {

inline constexpr const char* kL1PrefetchVariable = "PDBENCH_L1_PREFETCH";

struct StreamPrefetch {
  bool far_l1 = false;
  double near_ms = 0;  // the probe's best times; 0 when it did not run
  double far_ms = 0;
  std::string source;  // "measured", kL1PrefetchVariable, "avx512 only" or "not measured: memory short"
};

// PDBENCH_L1_PREFETCH=near|far when set (any other value is an Error naming
// it); else, on AVX-512, the probe: one token through 64 MiB of Q4_K rows
// of 2048 columns (twice a Zen 5 CCD's L3, so they come from memory), each
// way, alternating, five runs each on the calling thread, the smaller best
// time winning (70-180 ms on the Zen 5, filling the rows included); near,
// not measured, when twice that memory is not available
// (available_memory.h). Other ISAs have nothing to choose.
StreamPrefetch choose_stream_prefetch(Isa isa);

// choose_stream_prefetch's answer, asked once per process and ISA.
const StreamPrefetch& stream_prefetch(Isa isa);

}  // namespace pdbench
