// The prefill GEMM against the reference matmul, per compute precision.
#include <gtest/gtest.h>

#include <set>

#include <cmath>
#include <random>
#include <vector>

#include "engine/kernels/onednn_gemm.h"
#include "engine/kernels/quantize.h"
#include "engine/kernels/reference.h"

namespace pdbench {
namespace {

struct Stored {
  TensorType type;
  std::vector<std::byte> bytes;
  MatrixView view() const { return {type, rows, cols, bytes.data()}; }
  int64_t rows, cols;
};

Stored random_matrix(TensorType type, int64_t rows, int64_t cols, uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::vector<float> w(static_cast<size_t>(rows * cols));
  for (auto& v : w) v = normal(gen);
  Stored s{type, std::vector<std::byte>(static_cast<size_t>(rows) * row_bytes(type, static_cast<size_t>(cols))), rows,
           cols};
  for (int64_t r = 0; r < rows; ++r)
    quantize_row(type, &w[static_cast<size_t>(r * cols)], s.bytes.data() + static_cast<size_t>(r) * row_bytes(type, static_cast<size_t>(cols)),
                 static_cast<size_t>(cols));
  return s;
}

// Error bounds against ref::matmul on the same stored weights, per output,
// relative to sum_k |w||x| (the scale of the rounding): f32 reorders sums
// (a few ulp x sqrt(K)), also on F16/BF16 weights widened exactly; bf16
// (16-bit floats the caller narrows) rounds x and the weights to 8 mantissa bits
// (2^-9 each, 2^-8 together); s8 rounds weights to max_row/127 and x to
// max_token/127 steps, half a step each: under 1% of sum |w||x| for these
// normal rows.
TEST(OnednnGemm, MatchesTheReferenceMatmulPerPrecision) {
  constexpr NarrowFloats kWide{}, kBoth{.f16 = true, .bf16 = true}, kOnlyBf16{.f16 = false, .bf16 = true};
  const struct {
    TensorType type;
    NarrowFloats narrow;
    GemmPrecision precision;
    double bound;
  } cases[] = {{TensorType::F32, kWide, GemmPrecision::F32, 1e-5},
               {TensorType::F32, kBoth, GemmPrecision::F32, 1e-5},
               {TensorType::BF16, kWide, GemmPrecision::F32, 1e-5},
               {TensorType::F16, kWide, GemmPrecision::F32, 1e-5},
               {TensorType::F16, kOnlyBf16, GemmPrecision::F32, 1e-5},
               {TensorType::BF16, kOnlyBf16, GemmPrecision::BF16, 8e-3},
               {TensorType::F16, kBoth, GemmPrecision::BF16, 8e-3},
               {TensorType::Q8_0, kWide, GemmPrecision::Int8, 2e-2},
               {TensorType::Q4_0, kBoth, GemmPrecision::Int8, 2e-2}};
  for (const auto& c : cases)
    for (const auto& [m, k, n] : {std::tuple{1, 64, 48}, std::tuple{7, 128, 96}, std::tuple{33, 256, 160}}) {
      SCOPED_TRACE(std::string(traits(c.type).name) + (c.narrow.f16 ? " f16 narrowed" : "") +
                   (c.narrow.bf16 ? " bf16 narrowed" : "") + " m=" + std::to_string(m));
      const Stored w = random_matrix(c.type, n, k, 11);
      const MatrixView view = w.view();
      EXPECT_EQ(gemm_precision(std::span(&view, 1), c.narrow), c.precision);
      OnednnGemm gemm(std::span(&view, 1), c.precision);
      EXPECT_EQ(gemm.precision(), c.precision);
      std::mt19937 gen(5);
      std::normal_distribution<float> normal(0.0f, 1.0f);
      std::vector<float> x(static_cast<size_t>(m * k));
      for (auto& v : x) v = normal(gen);
      std::vector<float> got(static_cast<size_t>(m * n)), want(got.size()), dense(static_cast<size_t>(k));
      gemm.run(x.data(), got.data(), static_cast<size_t>(m));
      ref::matmul(view, x.data(), want.data(), static_cast<size_t>(m));
      // sum |w||x| per output, from the stored weights.
      for (int t = 0; t < m; ++t)
        for (int r = 0; r < n; ++r) {
          ref::embedding_row(view, r, dense.data());
          double scale = 0;
          for (int i = 0; i < k; ++i) scale += std::abs(dense[static_cast<size_t>(i)] * x[static_cast<size_t>(t * k + i)]);
          const size_t o = static_cast<size_t>(t * n + r);
          EXPECT_LE(std::abs(got[o] - want[o]), c.bound * scale) << "row " << t << " col " << r;
        }
    }
}

// Continuous batching gives nearly every step another M: the primitives
// are made per bucket of rows, a few per octave, and a padded run's rows are
// those of the bucket's own run.
TEST(OnednnGemm, PrimitivesAreMadePerBucketOfRows) {
  for (const auto& [m, bucket] : {std::pair{1, 8}, {8, 8}, {9, 16}, {17, 24}, {100, 104}, {512, 512}, {513, 576},
                                  {1000, 1024}})
    EXPECT_EQ(gemm_rows_bucket(static_cast<size_t>(m)), static_cast<size_t>(bucket)) << "m=" << m;
  const Stored w = random_matrix(TensorType::F32, 32, 64, 3);
  const MatrixView view = w.view();
  OnednnGemm gemm(std::span(&view, 1));
  std::vector<float> x(200 * 64);
  std::mt19937 gen(2);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (auto& v : x) v = normal(gen);
  std::set<size_t> buckets;
  for (size_t m = 1; m <= 200; ++m) {
    std::vector<float> y(m * 32);
    gemm.run(x.data(), y.data(), m);
    buckets.insert(gemm_rows_bucket(m));
  }
  EXPECT_EQ(gemm.primitives_made(), buckets.size());
  EXPECT_LE(gemm.primitives_made(), 24u);
  std::vector<float> padded(100 * 32), whole(104 * 32);
  gemm.run(x.data(), padded.data(), 100);
  gemm.run(x.data(), whole.data(), 104);
  EXPECT_TRUE(std::equal(padded.begin(), padded.end(), whole.begin()));
}

TEST(OnednnGemm, StackedMatricesEqualSeparateOnes) {
  const Stored a = random_matrix(TensorType::F32, 48, 64, 1), b = random_matrix(TensorType::F32, 16, 64, 2);
  const MatrixView both[] = {a.view(), b.view()};
  OnednnGemm stacked(both);
  EXPECT_EQ(stacked.rows(), 64u);
  std::vector<float> x(3 * 64, 0.5f), y(3 * 64), ya(3 * 48), yb(3 * 16);
  stacked.run(x.data(), y.data(), 3);
  ref::matmul(a.view(), x.data(), ya.data(), 3);
  ref::matmul(b.view(), x.data(), yb.data(), 3);
  for (size_t t = 0; t < 3; ++t) {
    for (size_t r = 0; r < 48; ++r) EXPECT_NEAR(y[t * 64 + r], ya[t * 48 + r], 1e-5);
    for (size_t r = 0; r < 16; ++r) EXPECT_NEAR(y[t * 64 + 48 + r], yb[t * 16 + r], 1e-5);
  }
}

}  // namespace
}  // namespace pdbench
