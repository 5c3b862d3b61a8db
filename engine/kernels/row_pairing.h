#pragma once
// Whether gemm_rows reads a block's rows from L2 two at a time, each
// activation chunk loaded once for both rows' vpdpbusd, or one at a time.
// Which is faster is the CPU's and the format's: an AMD EPYC Zen 4 loads one
// 64-byte vector a cycle, and pairs took Llama-3.2-1B's gate/up at 512
// tokens from 79.5 to 66.6 ms (Q8_0, 1 thread), while Q5_K's paired rows
// spill registers and ran 2% slower (gemv_avx512_grouped.h); an Intel Xeon
// loads two a cycle. So it is measured, once per process, ISA and format.
#include <string>

#include "engine/format/tensor_type.h"
#include "engine/util/isa.h"

namespace pdbench {

inline constexpr const char* kRowPairsVariable = "PDBENCH_ROW_PAIRS";

struct RowPairing {
  bool pairs = false;
  double one_ms = 0;  // the probe's best times; 0 when it did not run
  double pairs_ms = 0;
  std::string source;  // "measured", kRowPairsVariable, or "no paired kernel"
};

// PDBENCH_ROW_PAIRS=on|off when set (any other value is an Error naming
// it); else, where `isa`'s kernel for `type` can pair (can_pair_rows), the
// probe: gemm_rows on 512 rows of 2048 columns and 64 tokens each way,
// alternating, five runs each on the calling thread, the smaller best time
// winning (some 10 ms a format on the Zen 4, setup included). Where the two are close,
// either is as good.
RowPairing row_pairing(Isa isa, TensorType type);

}  // namespace pdbench
