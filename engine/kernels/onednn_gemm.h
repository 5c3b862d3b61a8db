#pragma once
// Prefill GEMMs through oneDNN's matmul primitive: Y[M][N] = X[M][K] * W^T,
// W being model matrices of K columns stacked into N rows (Q, K and V as one
// GEMM; gate and up as one), so one call reads the input once. The weights are converted
// and reordered once, at construction, into the blocked layout oneDNN's
// brgemm kernels read; primitives are created per M on first use and cached,
// since oneDNN 2.6's brgemm rejects run-time dimensions. M is rounded up to
// gemm_rows_bucket(M) (the extra rows computed and dropped): continuous
// batching gives nearly every step another M, and a primitive per M, each a
// JIT compile and some 20 KB, grew a server's heap without bound.
//
// Compute type (GemmPrecision): float matrices (F32, F16, BF16) run an f32
// GEMM on a copy widened to f32, which is exact, so their prefill stays
// within rounding of the reference. BF16 matrices run a bf16 GEMM instead
// where this CPU runs it faster (float_gemm_choice.h: 1.8x slower on an
// Intel Xeon, 2x faster on an AMD EPYC Zen 5), and every 16-bit float where
// the f32 copies, twice the file's size, do not fit in memory
// (`NarrowFloats`). Int8, an s8 x s8 GEMM on
// a copy requantized with one scale per output row and activations with one
// per token, is the int8 compute roof sysinfo measures (gemm_peak.h); the
// forward pass does not run it, since those scales lose a quantized file's
// block scales (the integer formats' prefill runs gemm_rows, gemv.h).
//
// oneDNN opens its own OpenMP region per execute: never call run() from
// inside a parallel region.
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/kernels/matrix_view.h"
#include "engine/kernels/weight_format.h"

namespace dnnl {
class engine;
class memory;
class matmul;
}  // namespace dnnl

namespace pdbench {

// "f32", "bf16", "int8": the names results files record.
std::string_view gemm_precision_name(GemmPrecision precision);
// The precision gemm_precision_name calls `name`; any other name is an
// Error listing them.
GemmPrecision parse_gemm_precision(std::string_view name);

// Which 16-bit float formats run their GEMM in bf16 rather than widened to f32.
struct NarrowFloats {
  bool f16 = false;
  bool bf16 = false;
};

// The precision for stacked matrices of these types (see above): Int8 if any
// format's GEMM is (WeightFormat::gemm); BF16 if some are 16-bit floats and
// `narrow` takes each of those to bf16; else F32.
GemmPrecision gemm_precision(std::span<const MatrixView> stacked, NarrowFloats narrow = {});
// Bytes of the packed copy of an n x k matrix in this precision.
size_t gemm_weight_bytes(size_t n, size_t k, GemmPrecision precision);

// The rows a GEMM of m rows runs as: m rounded up to an eighth of its power
// of two (8 at least), so 8 primitives cover each octave of M and at most
// 1/8 of the rows computed are padding; powers of two stay exact.
size_t gemm_rows_bucket(size_t m);

class OnednnGemm {
 public:
  // All of `stacked` share one column count; rows are concatenated in order.
  explicit OnednnGemm(std::span<const MatrixView> stacked) : OnednnGemm(stacked, gemm_precision(stacked)) {}
  OnednnGemm(std::span<const MatrixView> stacked, GemmPrecision precision);
  ~OnednnGemm();
  OnednnGemm(OnednnGemm&&) noexcept;
  OnednnGemm& operator=(OnednnGemm&&) noexcept;

  // y = x * W^T for m rows of x (K floats each) into m rows of y (N floats each).
  void run(const float* x, float* y, size_t m);

  size_t rows() const { return n_; }
  size_t cols() const { return k_; }
  GemmPrecision precision() const { return precision_; }
  std::string implementation(size_t m);  // oneDNN's name for the kernel at this M
  size_t primitives_made() const;        // one per M bucket run so far

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
