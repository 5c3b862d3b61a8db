#include "engine/kernels/float_gemm_choice.h"

#include <cstdlib>
#include <random>
#include <vector>

#include "engine/kernels/alternating_best.h"
#include "engine/kernels/onednn_gemm.h"
#include "engine/kernels/quantize.h"
#include "engine/util/error.h"

namespace pdbench {

namespace {

FloatGemmChoice measure() {
  constexpr size_t kRows = 1024, kCols = 1024, kTokens = 256;
  constexpr int kRuns = 4;
  std::mt19937 gen(1);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::vector<float> values(kRows * kCols);
  for (float& v : values) v = normal(gen);
  std::vector<std::byte> stored(kRows * row_bytes(TensorType::BF16, kCols));
  for (size_t r = 0; r < kRows; ++r)
    quantize_row(TensorType::BF16, &values[r * kCols], stored.data() + r * row_bytes(TensorType::BF16, kCols), kCols);
  const MatrixView w{TensorType::BF16, static_cast<int64_t>(kRows), static_cast<int64_t>(kCols), stored.data()};
  OnednnGemm f32(std::span(&w, 1), GemmPrecision::F32);
  OnednnGemm bf16(std::span(&w, 1), GemmPrecision::BF16);
  std::vector<float> x(kTokens * kCols, 0.5f), y(kTokens * kRows);
  const auto run = [&](OnednnGemm& gemm) {
    return [&] { gemm.run(x.data(), y.data(), kTokens); };
  };
  const BestOfTwo best = alternating_best(kRuns, run(f32), run(bf16));  // the untimed runs compile the kernels
  return {best.second_ms < best.first_ms ? GemmPrecision::BF16 : GemmPrecision::F32, best.first_ms, best.second_ms,
          "measured"};
}

}  // namespace

FloatGemmChoice float_gemm_choice() {
  if (const char* forced = std::getenv(kFloatGemmVariable); forced != nullptr && *forced != '\0') {
    const std::string name(forced);
    if (name != "f32" && name != "bf16")
      throw Error(std::string(kFloatGemmVariable) + "=" + name + ": expected f32 or bf16");
    return {parse_gemm_precision(name), 0, 0, kFloatGemmVariable};
  }
  static const FloatGemmChoice measured = measure();
  return measured;
}

}  // namespace pdbench
