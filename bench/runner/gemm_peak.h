#pragma once
// The rate oneDNN's bf16 and s8 GEMMs reach on this machine at a large
// square shape: the compute roofs of prefill on 16-bit and quantized weights
// (engine/kernels/onednn_gemm.h runs those GEMMs), measured like the FP32
// peak, best of several passes.
#include "engine/kernels/onednn_gemm.h"

namespace pdbench::runner {

// The side of the square GEMM: large enough that packing and threading
// overheads vanish, small enough to take well under a second.
inline constexpr long kPeakGemmSize = 2048;

// GFLOP/s (for Int8: GOP/s) of an M = N = K = kPeakGemmSize matmul of
// `precision` inputs (f32 or s32 accumulation and output) on `threads`
// OpenMP threads. F32 is not measured here (sysinfo's FMA loop is its peak).
double onednn_gemm_peak(GemmPrecision precision, int threads);

}  // namespace pdbench::runner
