#pragma once
// Prefill GEMMs through oneDNN's matmul primitive: Y[M][N] = X[M][K] * W^T,
// W being model matrices of K columns stacked into N rows (Q, K and V as one
// GEMM; gate and up as one), so one call reads the input once. The weights are converted
// and reordered once, at construction, into the blocked layout oneDNN's
// brgemm kernels read; primitives are created per M on first use and cached,
// since oneDNN 2.6's brgemm rejects run-time dimensions.
//
// Compute type follows the stored weights (GemmPrecision): F32 matrices run
// an f32 GEMM, so an f32 model's prefill stays within rounding of the
// reference; F16/BF16 a bf16 GEMM with f32 accumulation; Q8_0/Q4_0, whose
// weights are 8 bits or fewer already, an s8 x s8 GEMM (VNNI brgemm) on a
// copy requantized with one scale per output row, activations quantized to
// s8 per token at each call. Measured here at M=512, K=N=2048 with oneDNN
// 2.6 on 2 threads: s8 1320 GOP/s, bf16 160 GFLOP/s (this CPU's bf16 dot
// products run at an eighth of its int8 rate), so the quantized formats
// take the int8 path rather than a bf16 copy.
//
// oneDNN opens its own OpenMP region per execute: never call run() from
// inside a parallel region.
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "engine/kernels/matrix_view.h"

namespace dnnl {
class engine;
class memory;
class matmul;
}  // namespace dnnl

namespace pdbench {

enum class GemmPrecision { F32, BF16, Int8 };
// The precision for stacked matrices of these types (see above).
GemmPrecision gemm_precision(std::span<const MatrixView> stacked);

class OnednnGemm {
 public:
  // All of `stacked` share one column count; rows are concatenated in order.
  explicit OnednnGemm(std::span<const MatrixView> stacked);
  ~OnednnGemm();
  OnednnGemm(OnednnGemm&&) noexcept;
  OnednnGemm& operator=(OnednnGemm&&) noexcept;

  // y = x * W^T for m rows of x (K floats each) into m rows of y (N floats each).
  void run(const float* x, float* y, size_t m);

  size_t rows() const { return n_; }
  size_t cols() const { return k_; }
  GemmPrecision precision() const { return precision_; }
  std::string implementation(size_t m);  // oneDNN's name for the kernel at this M

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  size_t n_ = 0;
  size_t k_ = 0;
  GemmPrecision precision_ = GemmPrecision::F32;
};

// oneDNN's version ("2.7.3") and the ISA its kernels dispatch to on this
// CPU ("avx512_core_vnni", dnnl::get_effective_cpu_isa()), for fingerprints.
std::string onednn_version();
std::string onednn_cpu_isa();

}  // namespace pdbench
