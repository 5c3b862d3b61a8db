#pragma once
// Which of oneDNN's GEMMs runs a BF16 file's prefill faster on this CPU: f32
// on a copy widened to f32, or bf16 on the file's own values (activations
// rounded to bf16, as llama.cpp's CPU dot products for BF16 weights round
// them). The winner is the machine's, not the format's: oneDNN 2.6.3 at
// M = 512, Llama-3.2-1B gate/up, 2 threads (bench/micro BM_onednn_gemm): f32
// 286 and bf16 160 GFLOP/s on an Intel Xeon (AVX512-BF16, no AMX), f32 224
// and bf16 440 on an AMD EPYC Zen 5. So it is measured, once per process.
#include <string>

#include "engine/kernels/weight_format.h"

namespace pdbench {

inline constexpr const char* kFloatGemmVariable = "PDBENCH_FLOAT_GEMM";

struct FloatGemmChoice {
  GemmPrecision precision = GemmPrecision::F32;  // F32 or BF16
  double f32_ms = 0;                             // the probe's best times; 0 when the variable chose
  double bf16_ms = 0;
  std::string source;  // "measured" or kFloatGemmVariable
};

// PDBENCH_FLOAT_GEMM=f32|bf16 when set (any other value is an Error naming
// it); else the probe: a 1024 x 1024 GEMM at M = 256 in each precision,
// alternating, four runs each, the smaller best time winning (some 20 ms
// on 2 threads, on the threads OpenMP has then). The two differ by about 2x
// either way on the CPUs above, so noise does not flip it; where they are
// close, either is as good.
FloatGemmChoice float_gemm_choice();

}  // namespace pdbench
