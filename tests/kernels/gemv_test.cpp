// The gemv kernels of every ISA this CPU runs, against ref::matmul on the same
// stored weights, within error bounds derived per format below.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/kernels/dequantize.h"
#include "engine/kernels/gemv.h"
#include "engine/kernels/gemv_isa.h"
#include "engine/kernels/gemv_matrix.h"
#include "engine/kernels/quantize.h"
#include "engine/kernels/reference.h"
#include "engine/util/error.h"
#include "tests/support/random_values.h"

namespace pdbench {
namespace {

constexpr float kUnitRoundoff = std::numeric_limits<float>::epsilon() / 2;  // u = 2^-24

// Random normal weights stored as `type` (through the reference quantizer),
// with their exact f32 values for the bounds.
struct Weights {
  MatrixView view;
  std::vector<std::byte> stored;
  std::vector<float> exact;  // dequantized, rows x cols
};

Weights random_weights(TensorType type, int64_t rows, int64_t cols, uint32_t seed) {
  Weights w;
  const auto n = static_cast<size_t>(cols);
  w.stored.resize(static_cast<size_t>(rows) * row_bytes(type, n));
  w.exact.resize(static_cast<size_t>(rows) * n);
  w.view = {type, rows, cols, w.stored.data()};
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::vector<float> row(n);
  for (int64_t r = 0; r < rows; ++r) {
    for (auto& v : row) v = normal(gen);
    quantize_row(type, row.data(), w.stored.data() + static_cast<size_t>(r) * w.view.row_stride(), n);
    dequantize_row(type, w.view.row(r), w.exact.data() + static_cast<size_t>(r) * n, n);
  }
  return w;
}

bool quantizes_activation(TensorType type) { return weight_format(type).activation != ActivationType::F32; }

// cols rounded up to whole blocks of `type`: the widths below are for blocks
// of 32, and the super-block formats take the next multiple of 256.
int64_t whole_blocks(TensorType type, int64_t cols) {
  const auto block = static_cast<int64_t>(traits(type).block_size);
  return (cols + block - 1) / block * block;
}

// x as the kernels multiply it: x itself, or d q of its quantized blocks.
std::vector<double> activation_values(const GemvActivation& act) {
  std::vector<double> x(act.cols);
  switch (weight_format(act.weight_type).activation) {
    case ActivationType::F32:
      std::copy_n(act.f32, act.cols, x.begin());
      break;
    case ActivationType::Q8_32:
      for (size_t c = 0; c < act.cols; ++c) {
        const BlockQ8Act& block = act.blocks<BlockQ8Act>()[c / 32];
        x[c] = double{block.d} * block.qs[c % 32];
      }
      break;
  }
  return x;
}

// 4 sqrt(n) u sum|w||x| for row r (the bound below explains it).
double sum_rounding_bound(const Weights& w, int64_t r, const std::vector<double>& x) {
  const auto n = static_cast<size_t>(w.view.cols);
  const float* row = w.exact.data() + static_cast<size_t>(r) * n;
  double abs_dot = 0.0;
  for (size_t c = 0; c < n; ++c) abs_dot += std::abs(row[c] * x[c]);
  return 4 * std::sqrt(static_cast<double>(n)) * kUnitRoundoff * abs_dot;
}

// sum |w (x - x')| for row r and the activation x' the kernels multiply.
double activation_error(const Weights& w, int64_t r, const float* x, const GemvActivation& act) {
  const auto n = static_cast<size_t>(w.view.cols);
  const float* row = w.exact.data() + static_cast<size_t>(r) * n;
  const std::vector<double> used = activation_values(act);
  double error = 0.0;
  for (size_t c = 0; c < n; ++c) error += std::abs(row[c] * (x[c] - used[c]));
  return error;
}

// Bound on |gemv - ref::matmul| for row r.
//
// Both sum n products in f32 in different orders. Stored weights convert to
// f32 exactly (f16, bf16, and d * q of Q8_0, Q4_0, Q5_0, IQ4_NL: an 11-bit
// scale times a <= 8-bit integer; IQ4_XS's d (s - 32) v, at most 11 + 5 + 7
// bits), so only the sums round. A sum of n terms has error at most n u
// sum|w||x| (Higham, Accuracy and Stability, 3.1), but the roundings behave
// like a random walk and stay near sqrt(n) u sum|w||x|; 4 sqrt(n) u
// sum|w||x| for the two sums together is the bound for f32, f16 and bf16
// (bf16 and f16 weights meet f32 activations: no activation error).
//
// Formats whose activation is quantized (Q8_0, Q4_0 to Q5_1, Q2_K to Q6_K,
// IQ4_NL and IQ4_XS take Q8_32 blocks) multiply by x' instead of x, which
// adds at most sum |w| |x - x'| (for Q8_32, |x_j - x'_j| <= d_b (1/2 +
// 2^-15): ActivationQuantizationBoundsSumsAndSameBitsOnEveryIsa). Their
// integer block sums are exact (Q2_K and Q3_K sum two sub-blocks' sc times
// their dots, and Q2_K's m times their quants, in int32 before scaling);
// the per-block scaling (for the K-quants d sc and dmin m, for IQ4_XS d (s -
// 32), each exact in f32, times the activation's scale) rounds three times
// more per block than the sum counts, well inside doubling the float term
// to 8 sqrt(n) u sum|w||x|. Q4_1 and Q5_1 multiply d q + m unrounded where
// the reference rounds it once (u |w| more), and a block's two terms, d q x'
// and m x' summed apart, may each be about twice its sum |w||x'|, as d q and
// m cancel: their roundings stay inside the doubling too.
float error_bound(const Weights& w, int64_t r, const float* x, const GemvActivation& act) {
  const double sums = sum_rounding_bound(w, r, std::vector<double>(x, x + w.view.cols));
  if (!quantizes_activation(w.view.type)) return static_cast<float>(sums);
  return static_cast<float>(2 * sums + activation_error(w, r, x, act));
}

// The suites run over the format table: every format, those whose
// activation is quantized, and those some ISA reads regrouped.
std::vector<TensorType> formats_where(bool (*keep)(TensorType)) {
  std::vector<TensorType> types;
  for (const WeightFormat& format : weight_formats())
    if (keep(format.type)) types.push_back(format.type);
  return types;
}
bool any_format(TensorType) { return true; }
// The first ISA that reads `type` regrouped, or Scalar when none does.
Isa regrouping_isa(TensorType type) {
  for (Isa isa : kAllIsas)
    if (gemv_layout(type, isa) == RowLayout::GroupedQuants) return isa;
  return Isa::Scalar;
}
bool regrouped_somewhere(TensorType type) { return gemv_layout(type, regrouping_isa(type)) == RowLayout::GroupedQuants; }

class GemvTest : public ::testing::TestWithParam<std::tuple<Isa, TensorType>> {
 protected:
  void SetUp() override {
    if (!isa_supported(isa())) GTEST_SKIP() << isa_name(isa()) << " not supported here";
  }
  Isa isa() const { return std::get<0>(GetParam()); }
  TensorType type() const { return std::get<1>(GetParam()); }

  // Widths: whole 32-blocks (an odd count, 18, exercises the single-block
  // tail of AVX2's block pairs); formats of single elements also take
  // widths off the 16- and 64-element steps.
  std::vector<int64_t> widths() const {
    std::vector<int64_t> cols;
    for (int64_t c : {32, 64, 576, 2048})
      if (cols.empty() || cols.back() != whole_blocks(type(), c)) cols.push_back(whole_blocks(type(), c));
    if (traits(type()).block_size == 1) cols.insert(cols.end(), {1, 17, 100});
    return cols;
  }
  int64_t width(int64_t cols) const { return whole_blocks(type(), cols); }
};

TEST_P(GemvTest, MatchesReferenceWithinBound) {
  uint32_t seed = 1;
  for (int64_t cols : widths())
    for (int64_t rows : {1, 7, 33}) {
      SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
      const Weights w = random_weights(type(), rows, cols, seed++);
      const std::vector<float> x = test::random_normal(static_cast<size_t>(cols), seed++);
      std::vector<float> expected(static_cast<size_t>(rows)), y(static_cast<size_t>(rows));
      ref::matmul(w.view, x.data(), expected.data(), 1);
      const GemvMatrix m(w.view, isa());
      GemvActivation act;
      gemv_prepare(type(), x.data(), static_cast<size_t>(cols), act, isa());
      gemv_rows(m.view(), act, y.data(), 0, rows, isa());
      for (int64_t r = 0; r < rows; ++r) {
        const auto i = static_cast<size_t>(r);
        EXPECT_NEAR(y[i], expected[i], error_bound(w, r, x.data(), act)) << "row " << r;
      }
    }
}

// On the same quantized activation the integer kernels differ from the
// scalar one only in how the per-block products are summed: the bound is the
// float term alone, 4 sqrt(n) u sum|w||d q|, which a wrong nibble or sign
// anywhere would exceed.
class GemvQuantTest : public GemvTest {};

TEST_P(GemvQuantTest, MatchesScalarOnSameActivation) {
  const Weights w = random_weights(type(), 9, 2048, 7);
  const std::vector<float> x = test::random_normal(2048, 8);
  const GemvMatrix m(w.view, isa());
  GemvActivation act;
  gemv_prepare(type(), x.data(), 2048, act, isa());
  std::vector<float> expected(9), y(9);
  gemv_rows(w.view, act, expected.data(), 0, 9, Isa::Scalar);
  gemv_rows(m.view(), act, y.data(), 0, 9, isa());
  const std::vector<double> used = activation_values(act);
  for (int64_t r = 0; r < 9; ++r) {
    const auto i = static_cast<size_t>(r);
    EXPECT_NEAR(y[i], expected[i], sum_rounding_bound(w, r, used)) << "row " << r;
  }
}

// Rows regrouped (GemvMatrix, RowLayout::GroupedQuants) give the scalar
// reference the same bits as the file's rows, and the SIMD grouped kernels
// the same bound as MatchesScalarOnSameActivation; an ISA without a grouped
// kernel for the format refuses them. Widths: groups of 1, 2 and 3 blocks,
// a group of 16 and one of 2 (576), 3 (608) or 12 (896), 4 groups, 4 groups
// and one of 1 block (2080); the super-block formats take 256, 768, 1024,
// 2048 and 2304 (Q4_K's lanes of 32: groups of 8, 16 + 8, 2 x 16, 4 x 16,
// 4 x 16 + 8). 19 rows are a strip of 16 and 3 more (the AVX-512 kernel's
// strips).
class GemvGroupedTest : public GemvTest {};

TEST_P(GemvGroupedTest, RegroupedRowsMatchFileRows) {
  constexpr int64_t kRows = 19;
  uint32_t seed = 11;
  std::vector<int64_t> widths;
  for (int64_t c : {32, 64, 96, 576, 608, 896, 2048, 2080})
    if (widths.empty() || widths.back() != width(c)) widths.push_back(width(c));
  for (int64_t cols : widths) {
    SCOPED_TRACE(std::to_string(cols) + " columns");
    const Weights w = random_weights(type(), kRows, cols, seed++);
    const std::vector<float> x = test::random_normal(static_cast<size_t>(cols), seed++);
    const GemvMatrix regrouped(w.view, regrouping_isa(type()));
    ASSERT_EQ(regrouped.view().layout, RowLayout::GroupedQuants);
    ASSERT_EQ(regrouped.copied_bytes(), w.view.bytes());
    GemvActivation act;
    gemv_prepare(type(), x.data(), static_cast<size_t>(cols), act, isa());
    std::vector<float> expected(kRows), y(kRows);
    gemv_rows(w.view, act, expected.data(), 0, kRows, Isa::Scalar);
    if (!gemv_batches(regrouped.view(), isa())) {
      EXPECT_THROW(gemv_rows(regrouped.view(), act, y.data(), 0, kRows, isa()), Error);
      continue;
    }
    gemv_rows(regrouped.view(), act, y.data(), 0, kRows, isa());
    const std::vector<double> used = activation_values(act);
    for (int64_t r = 0; r < kRows; ++r) {
      const auto i = static_cast<size_t>(r);
      if (isa() == Isa::Scalar)
        EXPECT_EQ(y[i], expected[i]) << "row " << r;
      else
        EXPECT_NEAR(y[i], expected[i], sum_rounding_bound(w, r, used)) << "row " << r;
    }
  }
}

// The layout each ISA reads follows its kernels; AVX-512 and AVX2 (with
// AVX-VNNI or not) read the integer formats (Q8_0, Q4_0 to Q5_1, Q2_K to
// Q6_K, IQ4_NL, IQ4_XS) regrouped only, which is what their speed rests on.
TEST(Gemv, GemvMatrixCopiesOnlyWhatItsIsaRegroups) {
  for (TensorType type : {TensorType::Q8_0, TensorType::Q4_0, TensorType::Q4_1, TensorType::Q5_0, TensorType::Q5_1,
                          TensorType::Q2_K, TensorType::Q3_K, TensorType::Q4_K, TensorType::Q5_K, TensorType::Q6_K,
                          TensorType::IQ4_NL, TensorType::IQ4_XS})
    for (Isa isa : {Isa::Avx512, Isa::Avx2Vnni, Isa::Avx2})
      EXPECT_EQ(gemv_layout(type, isa), RowLayout::GroupedQuants) << traits(type).name << " " << isa_name(isa);
  for (const WeightFormat& format : weight_formats())
    for (Isa isa : kAllIsas) {
      const TensorType type = format.type;
      SCOPED_TRACE(std::string(traits(type).name) + " " + std::string(isa_name(isa)));
      const int64_t cols = whole_blocks(type, 64);
      const Weights w = random_weights(type, 3, cols, 1);
      const GemvMatrix m(w.view, isa);
      const bool regrouped = gemv_layout(type, isa) == RowLayout::GroupedQuants;
      EXPECT_EQ(m.view().layout, gemv_layout(type, isa));
      EXPECT_EQ(m.view().data == w.view.data, !regrouped);
      EXPECT_EQ(m.copied_bytes(), regrouped ? w.view.bytes() : 0u);
      // Only grouped rows have a kernel that reads them once for a batch.
      EXPECT_EQ(gemv_batches(m.view(), isa), regrouped);
      // An ISA that regroups a format has no kernel for its file rows.
      if (!regrouped || !isa_supported(isa)) continue;
      GemvActivation act;
      gemv_prepare(type, w.exact.data(), static_cast<size_t>(cols), act, isa);
      std::vector<float> y(3);
      EXPECT_THROW(gemv_rows(w.view, act, y.data(), 0, 3, isa), Error);
    }
}

// Many tokens give every activation exactly what gemv_rows gives it alone:
// the batch kernel keeps one accumulator per activation and adds in the
// same order whatever the tile (its column tiles only park the
// accumulators), gemm_rows' row blocks, tiles of kGemvMaxBatch tokens and
// rows read in pairs or not, staged or not, only choose which rows and
// tokens meet when, and other layouts run gemv_rows per activation. Rows
// outside the range, and the gaps of a wider y_stride, stay untouched.
// Widths: 576 (one column tile), 2080 (two tiles of 2048 columns from 8
// tokens on AVX-512), whose 150 rows are two of gemm_rows' blocks (from
// cache, panels of 64 rows and fewer), and 4160 (two tiles of 4096 columns
// from AVX2's 4 tokens a pass) in 69 rows (streamed, four strips of 16
// and one of 5; from cache, a panel of 64 and one of 5 where the rows are
// one block); 21 tokens are two full tiles and one of 5, 53 (from
// kGemmStageMinTokens on, staged) six and one of 5.
TEST_P(GemvTest, ManyTokensEqualEachActivationAlone) {
  constexpr int64_t kBegin = 2;
  constexpr size_t kTokens = 53;
  static_assert(kTokens >= kGemmStageMinTokens && kTokens % kGemvMaxBatch != 0);
  uint32_t seed = 21;
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{19, width(576)}, {150, width(2080)}, {69, width(4160)}}) {
    const size_t stride = static_cast<size_t>(rows) + 3;
    const Weights w = random_weights(type(), rows, cols, seed++);
    const GemvMatrix regrouped(w.view, isa());
    const MatrixView& view = regrouped.view();
    std::vector<GemvActivation> acts(kTokens);
    std::vector<std::vector<float>> xs;
    for (GemvActivation& act : acts) {
      xs.push_back(test::random_normal(static_cast<size_t>(cols), seed++));
      gemv_prepare(type(), xs.back().data(), static_cast<size_t>(cols), act, isa());
    }
    for (size_t tokens : {size_t{1}, size_t{2}, size_t{5}, kGemvMaxBatch, size_t{21}, kTokens})
      for (bool pairs : {false, true}) {
        SCOPED_TRACE(std::to_string(cols) + " columns, " + std::to_string(tokens) + " tokens" +
                     (pairs ? ", rows from cache in pairs" : ""));
        std::vector<float> y(tokens * stride, -1.0f);
        gemm_rows_paired(view, std::span(acts.data(), tokens), y.data(), stride, kBegin, rows, pairs, isa());
        for (size_t m = 0; m < tokens; ++m) {
          std::vector<float> alone(static_cast<size_t>(rows), -1.0f);
          gemv_rows(view, acts[m], alone.data(), kBegin, rows, isa());
          for (size_t r = 0; r < stride; ++r)
            EXPECT_EQ(y[m * stride + r], r < static_cast<size_t>(rows) ? alone[r] : -1.0f)
                << "token " << m << " row " << r;
        }
      }
  }
}

// A projection's tiles packed once, in two threads' ranges of tiles, then
// read by one gemm_rows_packed call per piece of rows: the bits of
// gemm_rows packing per call. Where this ISA and CPU pack nothing
// (gemm_packed_tile_bytes 0), gemm_rows_packed takes no buffer.
TEST_P(GemvTest, TilesPackedOnceGiveEachCallsBits) {
  constexpr int64_t kRows = 150;
  constexpr size_t kTokens = 53;
  const int64_t cols = width(2080);
  const Weights w = random_weights(type(), kRows, cols, 60);
  const GemvMatrix regrouped(w.view, isa());
  const MatrixView& view = regrouped.view();
  std::vector<GemvActivation> acts(kTokens);
  std::vector<std::vector<float>> xs;  // float formats' activations point into them
  for (size_t t = 0; t < kTokens; ++t) {
    xs.push_back(test::random_normal(static_cast<size_t>(cols), 61 + static_cast<uint32_t>(t)));
    gemv_prepare(type(), xs.back().data(), static_cast<size_t>(cols), acts[t], isa());
  }
  std::vector<float> expected(kTokens * kRows, -1.0f), y(kTokens * kRows, -1.0f);
  gemm_rows(view, acts, expected.data(), kRows, 0, kRows, isa());
  const size_t tile_bytes = gemm_packed_tile_bytes(view, kTokens, isa());
  const size_t tiles = (kTokens + kGemvMaxBatch - 1) / kGemvMaxBatch;
  AlignedVector<std::byte> packed(tiles * tile_bytes);
  gemm_pack_tiles(view, acts, 0, 3, packed.data(), isa());
  gemm_pack_tiles(view, acts, 3, tiles, packed.data(), isa());
  for (int64_t lo = 0; lo < kRows; lo += 40)
    gemm_rows_packed(view, acts, tile_bytes != 0 ? packed.data() : nullptr, y.data(), kRows, lo,
                     std::min<int64_t>(lo + 40, kRows), isa());
  EXPECT_EQ(y, expected);
}

// AVX-VNNI changes how the integer dot products are summed, not what they
// are: both sums are exact, so AVX2's kernels give the same bits with it or
// without it, one token or a batch, in one column tile or two.
TEST(Gemv, AvxVnniGivesAvx2sBits) {
  if (!isa_supported(Isa::Avx2Vnni)) GTEST_SKIP() << "no AVX-VNNI here";
  constexpr int64_t kRows = 21;
  constexpr size_t kTokens = 5;
  uint32_t seed = 40;
  for (TensorType type : formats_where(regrouped_somewhere))
    for (int64_t cols : {whole_blocks(type, 576), whole_blocks(type, 4160)}) {
      SCOPED_TRACE(std::string(traits(type).name) + ", " + std::to_string(cols) + " columns");
      const Weights w = random_weights(type, kRows, cols, seed++);
      std::vector<std::vector<float>> y;
      for (Isa isa : {Isa::Avx2, Isa::Avx2Vnni}) {
        const GemvMatrix m(w.view, isa);
        std::vector<GemvActivation> acts(kTokens);
        for (size_t t = 0; t < kTokens; ++t) {
          const std::vector<float> x = test::random_normal(static_cast<size_t>(cols), seed + static_cast<uint32_t>(t));
          gemv_prepare(type, x.data(), static_cast<size_t>(cols), acts[t], isa);
        }
        y.emplace_back(kTokens * kRows + kRows);
        gemm_rows(m.view(), acts, y.back().data(), kRows, 0, kRows, isa);
        gemv_rows(m.view(), acts[0], y.back().data() + kTokens * kRows, 0, kRows, isa);
      }
      seed += kTokens;
      EXPECT_EQ(y[0], y[1]);
    }
}

TEST_P(GemvTest, RowRangeWritesOnlyItsRows) {
  const int64_t cols = width(64);
  const Weights w = random_weights(type(), 17, cols, 3);
  const GemvMatrix m(w.view, isa());
  const std::vector<float> x = test::random_normal(static_cast<size_t>(cols), 4);
  GemvActivation act;
  gemv_prepare(type(), x.data(), static_cast<size_t>(cols), act, isa());
  std::vector<float> all(17), part(17, -1.0f);
  gemv_rows(m.view(), act, all.data(), 0, 17, isa());
  gemv_rows(m.view(), act, part.data(), 5, 12, isa());
  for (size_t r = 0; r < 17; ++r) EXPECT_EQ(part[r], r >= 5 && r < 12 ? all[r] : -1.0f) << "row " << r;
}

TEST_P(GemvTest, ThreadedConvenienceEqualsOneRange) {
  const int64_t cols = width(576);
  const Weights w = random_weights(type(), 101, cols, 5);
  const GemvMatrix m(w.view, isa());
  const std::vector<float> x = test::random_normal(static_cast<size_t>(cols), 6);
  GemvActivation act;
  gemv_prepare(type(), x.data(), static_cast<size_t>(cols), act, isa());
  std::vector<float> one_range(101), threaded(101);
  gemv_rows(m.view(), act, one_range.data(), 0, 101, isa());
  gemv(m.view(), x.data(), threaded.data(), isa());
  EXPECT_EQ(threaded, one_range);  // rows are independent: same kernel, same bits
}

// A copy of `content` in readable memory between two unmapped pages, against
// the one after it (at_end) or the one before it: a read of a byte past
// that edge faults.
class GuardedCopy {
 public:
  GuardedCopy(std::span<const std::byte> content, bool at_end) {
    const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t inner = (content.size() + page - 1) / page * page;
    mapped_ = inner + 2 * page;
    void* p = mmap(nullptr, mapped_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("GuardedCopy: mmap failed");
    base_ = static_cast<std::byte*>(p);
    if (mprotect(base_ + page, inner, PROT_READ | PROT_WRITE) != 0) {
      munmap(base_, mapped_);
      throw std::runtime_error("GuardedCopy: mprotect failed");
    }
    data_ = base_ + page + (at_end ? inner - content.size() : 0);
    std::memcpy(data_, content.data(), content.size());
  }
  ~GuardedCopy() { munmap(base_, mapped_); }
  GuardedCopy(const GuardedCopy&) = delete;
  GuardedCopy& operator=(const GuardedCopy&) = delete;
  const std::byte* data() const { return data_; }
  // The copy as T, writable: an output buffer starts as a copy of its zeros.
  template <typename T>
  T* as() const {
    return reinterpret_cast<T*>(data_);
  }

 private:
  std::byte* base_ = nullptr;
  std::byte* data_ = nullptr;
  size_t mapped_ = 0;
};

// kTokens activations of `cols` random values, prepared for `type` on
// `isa`, and what gemm_rows makes of them against w's kGuardRows rows in
// ordinary memory: what the guard-page tests below expect.
constexpr int64_t kGuardRows = 5;
constexpr size_t kGuardTokens = 5;
struct GuardBatch {
  std::vector<std::vector<float>> xs;  // f32 activations point into them
  std::vector<GemvActivation> acts;
  std::vector<float> expected;  // kGuardTokens x kGuardRows
};
GuardBatch guard_batch(const MatrixView& w, Isa isa, uint32_t& seed) {
  GuardBatch b;
  const auto cols = static_cast<size_t>(w.cols);
  b.acts.resize(kGuardTokens);
  for (GemvActivation& act : b.acts) {
    b.xs.push_back(test::random_normal(cols, seed++));
    gemv_prepare(w.type, b.xs.back().data(), cols, act, isa);
  }
  b.expected.resize(kGuardTokens * kGuardRows);
  gemm_rows(w, b.acts, b.expected.data(), kGuardRows, 0, kGuardRows, isa);
  return b;
}

// No kernel reads a weight byte outside its matrix: with the matrix against
// an unmapped page at its end, then at its start, one token and a batch give
// what they give in ordinary memory. The sanitizer builds compile the
// largest SIMD kernel files uninstrumented (engine/kernels/CMakeLists.txt
// says why), so there this is what checks their weight reads.
TEST_P(GemvTest, ReadsNoWeightByteOutsideTheMatrix) {
  constexpr int64_t kRows = kGuardRows;
  constexpr size_t kTokens = kGuardTokens;
  uint32_t seed = 41;
  for (int64_t cols : widths()) {
    const Weights w = random_weights(type(), kRows, cols, seed++);
    const GemvMatrix m(w.view, isa());
    const auto [xs, acts, expected] = guard_batch(m.view(), isa(), seed);
    for (bool at_end : {true, false}) {
      SCOPED_TRACE(std::to_string(cols) + " columns, unmapped page " + (at_end ? "after" : "before"));
      const GuardedCopy guarded({m.view().data, m.view().bytes()}, at_end);
      MatrixView view = m.view();
      view.data = guarded.data();
      std::vector<float> one(kRows), batch(kTokens * kRows);
      gemv_rows(view, acts[0], one.data(), 0, kRows, isa());
      gemm_rows(view, acts, batch.data(), kRows, 0, kRows, isa());
      EXPECT_EQ(one, std::vector<float>(expected.begin(), expected.begin() + kRows));
      EXPECT_EQ(batch, expected);
    }
  }
}

// Guarded copies of buffers, each against an unmapped page on one side.
class GuardedBuffers {
 public:
  explicit GuardedBuffers(bool at_end) : at_end_(at_end) {}
  template <typename T, typename Alloc>
  T* copy(const std::vector<T, Alloc>& v) {
    return copies_.emplace_back(std::as_bytes(std::span(v)), at_end_).template as<T>();
  }
  // What the grouped kernels read of each activation, each buffer guarded.
  std::vector<gemv_detail::GroupedActivation> grouped(const std::vector<GemvActivation>& acts) {
    std::vector<gemv_detail::GroupedActivation> out;
    for (const GemvActivation& act : acts)
      out.push_back({reinterpret_cast<const BlockQ8Act*>(copy(act.quantized)), copy(act.grouped_qs), copy(act.grouped_d),
                     copy(act.grouped_offsets), copy(act.grouped_sums)});
    return out;
  }

 private:
  bool at_end_;
  std::deque<GuardedCopy> copies_;  // never moved: the kernels hold their addresses
};

// No kernel reads an activation byte outside the activation's buffers or
// writes an output outside y: each buffer against an unmapped page after
// it, then before it, every way gemm_rows reads rows (streamed with either
// L1 prefetch, cached, in pairs), one token and a batch. With
// ReadsNoWeightByteOutsideTheMatrix, this checks the accesses ASan does not
// in the kernel files the sanitizer builds leave uninstrumented
// (engine/kernels/CMakeLists.txt).
TEST_P(GemvTest, TouchesNoActivationOrOutputByteOutsideItsBuffers) {
  constexpr int64_t kRows = kGuardRows;
  constexpr size_t kTokens = kGuardTokens;
  const gemv_detail::FormatGemv& kernels = gemv_detail::kernels_for(isa(), type());
  uint32_t seed = 43;
  for (int64_t cols : widths()) {
    const Weights w = random_weights(type(), kRows, cols, seed++);
    const GemvMatrix m(w.view, isa());
    const MatrixView view = m.view();
    const auto n = static_cast<size_t>(cols);
    const auto [xs, acts, expected] = guard_batch(view, isa(), seed);
    for (bool at_end : {true, false}) {
      SCOPED_TRACE(std::to_string(cols) + " columns, unmapped page " + (at_end ? "after" : "before"));
      GuardedBuffers guarded(at_end);
      if (view.layout == RowLayout::GroupedQuants) {
        const std::vector<gemv_detail::GroupedActivation> grouped = guarded.grouped(acts);
        for (gemv_detail::RowRead read : {gemv_detail::RowRead::Streamed, gemv_detail::RowRead::StreamedFarL1,
                                          gemv_detail::RowRead::Cached, gemv_detail::RowRead::CachedPairs}) {
          if (read == gemv_detail::RowRead::CachedPairs && !kernels.pairs_rows) continue;
          for (size_t n_x : {size_t{1}, kTokens}) {
            float* y = guarded.copy(std::vector<float>(n_x * kRows));
            kernels.grouped_rows(view.data, view.row_stride(), n, grouped.data(), n_x, y, kRows, kRows, read);
            EXPECT_EQ(std::vector<float>(y, y + n_x * kRows), std::vector<float>(expected.begin(), expected.begin() + n_x * kRows))
                << "read " << static_cast<int>(read) << ", " << n_x << " tokens";
          }
        }
      } else {
        for (size_t t = 0; t < kTokens; ++t) {
          const void* x = acts[t].f32 != nullptr ? static_cast<const void*>(guarded.copy(xs[t]))
                                                 : static_cast<const void*>(guarded.copy(acts[t].quantized));
          float* y = guarded.copy(std::vector<float>(kRows));
          kernels.file_rows(view.data, view.row_stride(), n, x, y, kRows);
          EXPECT_EQ(std::vector<float>(y, y + kRows), std::vector<float>(expected.begin() + t * kRows, expected.begin() + (t + 1) * kRows))
              << "token " << t;
        }
      }
    }
  }
}

// Staging a block reads only its grouped rows and writes only its staged
// copy, and the staged tile reads only that copy and the activations (or
// their packed copy, which packing fills), each against an unmapped page;
// the tile gives the grouped rows' sums. For
// every ISA and format that stages.
TEST(Gemv, StagedRowsTouchOnlyTheirBuffersAndGiveTheGroupedSums) {
  constexpr int64_t kRows = kGuardRows;
  constexpr size_t kTokens = kGemvMaxBatch;
  uint32_t seed = 45;
  size_t staging = 0;
  for (Isa isa : kAllIsas)
    for (TensorType type : formats_where(regrouped_somewhere)) {
      const gemv_detail::FormatGemv& kernels = gemv_detail::kernels_for(isa, type);
      if (!isa_supported(isa) || kernels.staged == nullptr) continue;
      ++staging;
      for (int64_t cols : {whole_blocks(type, 576), whole_blocks(type, 2080)}) {
        const auto n = static_cast<size_t>(cols);
        const Weights w = random_weights(type, kRows, cols, seed++);
        const GemvMatrix m(w.view, isa);
        const MatrixView view = m.view();
        std::vector<GemvActivation> acts(kTokens);
        for (GemvActivation& act : acts) {
          const std::vector<float> x = test::random_normal(n, seed++);
          gemv_prepare(type, x.data(), n, act, isa);
        }
        const size_t staged_stride = kernels.staged->stride(n);
        for (bool at_end : {true, false}) {
          SCOPED_TRACE(std::string(isa_name(isa)) + " " + std::string(traits(type).name) + ", " + std::to_string(cols) +
                       " columns, unmapped page " + (at_end ? "after" : "before"));
          GuardedBuffers guarded(at_end);
          const std::vector<gemv_detail::GroupedActivation> xs = guarded.grouped(acts);
          const GuardedCopy rows({view.data, view.bytes()}, at_end);
          std::byte* staged = guarded.copy(AlignedVector<std::byte>(kRows * staged_stride));
          kernels.staged->stage(rows.data(), view.row_stride(), n, kRows, staged);
          for (gemv_detail::RowRead read : {gemv_detail::RowRead::Cached, gemv_detail::RowRead::CachedPairs}) {
            if (read == gemv_detail::RowRead::CachedPairs && !kernels.pairs_rows) continue;
            std::vector<float> expected(kTokens * kRows);
            kernels.grouped_rows(view.data, view.row_stride(), n, xs.data(), kTokens, expected.data(), kRows, kRows,
                                 read);
            float* y = guarded.copy(std::vector<float>(kTokens * kRows));
            if (read == gemv_detail::RowRead::CachedPairs && kernels.staged->paired_tile != nullptr) {
              std::byte* packed = guarded.copy(AlignedVector<std::byte>(kernels.staged->packed_bytes(n)));
              kernels.staged->pack(xs.data(), n, packed);
              kernels.staged->paired_tile(staged, staged_stride, n, packed, y, kRows, kRows);
            } else {
              kernels.staged->tile(staged, staged_stride, n, xs.data(), kTokens, y, kRows, kRows, read);
            }
            EXPECT_EQ(std::vector<float>(y, y + kTokens * kRows), expected) << "read " << static_cast<int>(read);
          }
        }
      }
    }
  if (staging == 0) GTEST_SKIP() << "no ISA here stages a format";
}

std::string param_name(const ::testing::TestParamInfo<std::tuple<Isa, TensorType>>& p) {
  return std::string(isa_name(std::get<0>(p.param))) + "_" +
         std::string(traits(std::get<1>(p.param)).name);
}

INSTANTIATE_TEST_SUITE_P(EveryIsaAndFormat, GemvTest,
                         ::testing::Combine(::testing::ValuesIn(kAllIsas), ::testing::ValuesIn(formats_where(any_format))),
                         param_name);
INSTANTIATE_TEST_SUITE_P(EveryIsaAndIntegerFormat, GemvQuantTest,
                         ::testing::Combine(::testing::ValuesIn(kAllIsas),
                                            ::testing::ValuesIn(formats_where(quantizes_activation))),
                         param_name);
INSTANTIATE_TEST_SUITE_P(EveryIsaAndRegroupedFormat, GemvGroupedTest,
                         ::testing::Combine(::testing::ValuesIn(kAllIsas),
                                            ::testing::ValuesIn(formats_where(regrouped_somewhere))),
                         param_name);

// The one weight without a positive twin is exact: under AVX2's sign trick
// and AVX-512's unsigned shift alike.
TEST(Gemv, Q8_0WeightMinus128TimesNegativeActivationIsExact) {
  BlockQ8_0 block{};
  block.d = 0x3c00;  // f16 1.0
  for (auto& q : block.qs) q = -128;
  const MatrixView w{TensorType::Q8_0, 1, 32, reinterpret_cast<const std::byte*>(&block)};
  std::vector<float> x(32, -1.0f);
  x[3] = 1.0f;
  for (Isa isa : supported_isas()) {
    float y = 0.0f;
    gemv(GemvMatrix(w, isa).view(), x.data(), &y, isa);
    // -128 * (31 * -1 + 1): x is exactly +-d * 127 with d = 1 / 127, up to
    // the rounding of d and of the scaling.
    EXPECT_NEAR(y, 3840.0f, 3840.0f * 1e-6f) << isa_name(isa);
  }
}

TEST(Gemv, ActivationQuantizationBoundsSumsAndSameBitsOnEveryIsa) {
  std::vector<float> x = test::random_normal(96, 9);
  for (size_t j = 32; j < 64; ++j) x[j] = 0.0f;  // an all-zero block: d = 0, q = 0
  // Block 2 gets d = 127 / 127 = 1 exactly, and ties, which round to even.
  x[64] = 127.0f;
  x[65] = 2.5f;
  x[66] = 3.5f;
  x[67] = -0.5f;
  GemvActivation scalar;
  gemv_prepare(TensorType::Q4_0, x.data(), 96, scalar, Isa::Scalar);
  const std::span<const BlockQ8Act> blocks = scalar.blocks<BlockQ8Act>();
  ASSERT_EQ(blocks.size(), 3u);
  for (size_t b = 0; b < 3; ++b) {
    int32_t sum = 0;
    for (size_t j = 0; j < 32; ++j) {
      const int8_t q = blocks[b].qs[j];
      EXPECT_LE(std::abs(q), 127);
      EXPECT_LE(std::abs(x[32 * b + j] - blocks[b].d * q), blocks[b].d * (0.5f + 0x1p-15f));
      sum += q;
    }
    EXPECT_EQ(blocks[b].sum, sum);
  }
  EXPECT_EQ(blocks[1].d, 0.0f);
  EXPECT_EQ(blocks[2].d, 1.0f);
  EXPECT_EQ(blocks[2].qs[1], 2);
  EXPECT_EQ(blocks[2].qs[2], 4);
  EXPECT_EQ(blocks[2].qs[3], 0);
  for (Isa isa : supported_isas()) {
    GemvActivation act;
    gemv_prepare(TensorType::Q4_0, x.data(), 96, act, isa);
    EXPECT_EQ(std::memcmp(act.quantized.data(), scalar.quantized.data(), 3 * sizeof(BlockQ8Act)), 0) << isa_name(isa);
  }
}

// Prefill reuses one GemvActivation per token across projections of other
// widths: what a wider one left behind must not show through.
TEST(Gemv, ReusedActivationEqualsAFreshOne) {
  for (Isa isa : supported_isas())
    for (TensorType type : {TensorType::Q4_0, TensorType::Q3_K}) {
      if (gemv_layout(type, isa) != RowLayout::GroupedQuants) continue;
      GemvActivation reused;
      gemv_prepare(type, test::random_normal(8192, 3).data(), 8192, reused, isa);
      for (size_t cols : {2304u, 256u, 768u}) {
        const std::vector<float> x = test::random_normal(cols, 4);
        GemvActivation fresh;
        gemv_prepare(type, x.data(), cols, fresh, isa);
        gemv_prepare(type, x.data(), cols, reused, isa);
        const std::string where = std::string(isa_name(isa)) + " " + std::string(traits(type).name) + " " + std::to_string(cols);
        EXPECT_TRUE(std::ranges::equal(reused.quantized, fresh.quantized)) << where;
        EXPECT_TRUE(std::ranges::equal(reused.grouped_qs, fresh.grouped_qs)) << where;
        EXPECT_TRUE(std::ranges::equal(reused.grouped_d, fresh.grouped_d)) << where;
        EXPECT_TRUE(std::ranges::equal(reused.grouped_offsets, fresh.grouped_offsets)) << where;
        EXPECT_TRUE(std::ranges::equal(reused.grouped_sums, fresh.grouped_sums)) << where;
      }
    }
}

TEST(Gemv, MismatchedActivationIsRejected) {
  const Weights w = random_weights(TensorType::Q8_0, 2, 64, 1);
  const std::vector<float> x = test::random_normal(64, 2);
  GemvActivation act;
  gemv_prepare(TensorType::Q4_0, x.data(), 64, act);
  std::vector<float> y(2);
  EXPECT_THROW(gemv_rows(w.view, act, y.data(), 0, 2), Error);
  gemv_prepare(TensorType::Q8_0, x.data(), 32, act);
  EXPECT_THROW(gemv_rows(w.view, act, y.data(), 0, 2), Error);
}

TEST(Gemv, ThreadRowsCoverEveryRowOnce) {
  for (int n_threads : {1, 2, 3, 7})
    for (int64_t rows : {0, 1, 5, 128256}) {
      int64_t next = 0;
      for (int t = 0; t < n_threads; ++t) {
        const RowRange range = gemv_thread_rows(rows, t, n_threads);
        EXPECT_EQ(range.begin, next);
        EXPECT_LE(range.end - range.begin, rows / n_threads + 1);
        next = range.end;
      }
      EXPECT_EQ(next, rows);
    }
}

}  // namespace
}  // namespace pdbench
