// Prefill GEMMs (OnednnGemm) at the shapes of SmolLM2-135M and Llama-3.2-1B,
// for each compute precision (f32: F32/F16/BF16 files; bf16: BF16 files where
// it is the faster, 16-bit ones short of memory; s8: the int8 roof), with weights stored in that
// precision, at M = 512 (a prompt) and M = 8 (a batch of 8 decoding
// sequences). Counters: FLOP/s (2 M N K), the compute roofline prefill is
// judged against, and weight_bytes/s, the packed weights read once per call,
// the memory roofline a small batch is judged against. Activation
// conversion (bf16, or s8 with per-token scales) is part of each call, as
// in the forward pass.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "engine/kernels/onednn_gemm.h"
#include "engine/kernels/quantize.h"

namespace pdbench {
namespace {


struct Shape {
  const char* name;
  int64_t rows;
  int64_t cols;
};

constexpr Shape kShapes[] = {
    {"smollm2_qkv_960x576", 960, 576},          {"smollm2_gate_up_3072x576", 3072, 576},
    {"smollm2_down_576x1536", 576, 1536},       {"llama1b_qkv_3072x2048", 3072, 2048},
    {"llama1b_gate_up_16384x2048", 16384, 2048}, {"llama1b_down_2048x8192", 2048, 8192},
};

void BM_onednn_gemm(benchmark::State& state, Shape shape, TensorType type, int64_t m) {
  std::mt19937 gen(1);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  const auto cols = static_cast<size_t>(shape.cols);
  std::vector<float> row(cols);
  std::vector<std::byte> stored(static_cast<size_t>(shape.rows) * row_bytes(type, cols));
  for (int64_t r = 0; r < shape.rows; ++r) {
    for (auto& v : row) v = normal(gen);
    quantize_row(type, row.data(), stored.data() + static_cast<size_t>(r) * row_bytes(type, cols), cols);
  }
  const MatrixView w{type, shape.rows, shape.cols, stored.data()};
  const GemmPrecision precision = type == TensorType::F32    ? GemmPrecision::F32
                                  : type == TensorType::BF16 ? GemmPrecision::BF16
                                                             : GemmPrecision::Int8;
  OnednnGemm gemm(std::span(&w, 1), precision);
  std::vector<float> x(static_cast<size_t>(m) * cols);
  for (auto& v : x) v = normal(gen);
  std::vector<float> y(static_cast<size_t>(m * shape.rows));
  for (auto _ : state) {
    gemm.run(x.data(), y.data(), static_cast<size_t>(m));
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["FLOP/s"] = benchmark::Counter(2.0 * static_cast<double>(m * shape.rows * shape.cols),
                                                benchmark::Counter::kIsIterationInvariantRate);
  state.counters["weight_bytes/s"] = benchmark::Counter(
      static_cast<double>(gemm_weight_bytes(static_cast<size_t>(shape.rows), cols, precision)),
      benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(gemm.implementation(static_cast<size_t>(m)));
}

int register_all() {
  for (const Shape& s : kShapes)
    for (TensorType t : {TensorType::F32, TensorType::BF16, TensorType::Q8_0})
      for (int64_t m : {512, 8})
        benchmark::RegisterBenchmark(
            (std::string("onednn_gemm/") + s.name + "/" + std::string(traits(t).name) + "/m:" + std::to_string(m)).c_str(),
            BM_onednn_gemm, s, t, m)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
  return 0;
}
const int registered = register_all();

}  // namespace
}  // namespace pdbench
