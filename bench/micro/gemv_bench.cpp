// Decode gemv at the shapes of SmolLM2-135M and Llama-3.2-1B, every weight
// format, 1 thread and all threads, with the kernels of selected_isa()
// (PDBENCH_ISA=avx2|scalar to compare). Counters: bytes/s of weights read
// and FLOP/s (2 rows cols). BM_read_bandwidth is the roofline: the same
// bytes summed by read_sum. BM_gemm_rows: the batch kernels (every
// quantized format on AVX-512) at 1, 2, 4, 8 and 512 tokens, weights read
// once per call.
//
// Decode streams each matrix from DRAM once per token, so every benchmark
// cycles through copies of its matrix filling kWorkingSetBytes, more than the
// last-level cache (lscpu here: 260 MiB L3); a single small matrix would stay
// cached and measure cache bandwidth instead.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/kernels/gemv.h"
#include "engine/kernels/gemv_matrix.h"
#include "engine/kernels/quantize.h"
#include "engine/kernels/weight_format.h"
#include "engine/util/aligned_vector.h"

namespace pdbench {
namespace {

constexpr size_t kWorkingSetBytes = size_t{1} << 30;

struct Shape {
  const char* name;
  int64_t rows;
  int64_t cols;
};

constexpr Shape kShapes[] = {
    {"smollm2_q_o_576x576", 576, 576},       {"smollm2_kv_192x576", 192, 576},
    {"smollm2_gate_up_1536x576", 1536, 576}, {"smollm2_down_576x1536", 576, 1536},
    {"smollm2_lm_head_49152x576", 49152, 576},
    {"llama1b_q_o_2048x2048", 2048, 2048},   {"llama1b_kv_512x2048", 512, 2048},
    {"llama1b_gate_up_8192x2048", 8192, 2048}, {"llama1b_down_2048x8192", 2048, 8192},
    {"llama1b_lm_head_128256x2048", 128256, 2048},
};

// Copies of one matrix filling the working set. Its rows repeat 16 random
// rows (quantized by the reference quantizer, so scales are normal numbers):
// speed does not depend on the values, and tiling keeps setup fast.
struct MatrixCopies {
  TensorType type;
  RowLayout layout;
  Shape shape;
  size_t matrix_bytes;
  AlignedVector<std::byte> data;  // aligned like GemvMatrix copies
  size_t count;

  MatrixView copy(size_t i) const {
    return {type, shape.rows, shape.cols, data.data() + (i % count) * matrix_bytes, layout};
  }
};

// Rows are regrouped one by one (GemvMatrix), so tiling the regrouped rows
// gives the regrouped matrix.
const MatrixCopies& matrix_copies(TensorType type, RowLayout layout, const Shape& shape) {
  // One at a time: the benchmarks of a (type, layout, shape) run back to back.
  static MatrixCopies cached{};
  if (!cached.data.empty() && cached.type == type && cached.layout == layout && cached.shape.name == shape.name)
    return cached;
  cached.data = {};
  const auto cols = static_cast<size_t>(shape.cols);
  const size_t stride = row_bytes(type, cols);
  constexpr size_t kDistinctRows = 16;
  std::vector<std::byte> rows(kDistinctRows * stride);
  std::mt19937 gen(1);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::vector<float> row(cols);
  for (size_t r = 0; r < kDistinctRows; ++r) {
    for (auto& v : row) v = normal(gen);
    quantize_row(type, row.data(), rows.data() + r * stride, cols);
  }
  if (layout != RowLayout::Blocks) {
    const GemvMatrix regrouped({type, static_cast<int64_t>(kDistinctRows), shape.cols, rows.data()});
    std::memcpy(rows.data(), regrouped.view().data, rows.size());
  }
  cached.type = type;
  cached.layout = layout;
  cached.shape = shape;
  cached.matrix_bytes = static_cast<size_t>(shape.rows) * stride;
  cached.count = std::max<size_t>(1, kWorkingSetBytes / cached.matrix_bytes);
  const size_t total = cached.count * cached.matrix_bytes;
  cached.data.resize(total);
  for (size_t offset = 0; offset < total; offset += stride)
    std::memcpy(cached.data.data() + offset, rows.data() + (offset / stride % kDistinctRows) * stride, stride);
  return cached;
}

void set_rates(benchmark::State& state, double bytes_per_iteration, double flop_per_iteration) {
  const auto iterations = static_cast<double>(state.iterations());
  state.counters["bytes/s"] = benchmark::Counter(bytes_per_iteration * iterations, benchmark::Counter::kIsRate);
  state.counters["FLOP/s"] = benchmark::Counter(flop_per_iteration * iterations, benchmark::Counter::kIsRate);
}

// Arg: thread count. Includes what a decode step pays per
// matmul besides the kernel: quantizing x, and one OpenMP fork/join (the
// forward pass will share one region per step instead).
void BM_gemv(benchmark::State& state, TensorType type, RowLayout layout, const Shape& shape) {
  const MatrixCopies& copies = matrix_copies(type, layout, shape);
  omp_set_num_threads(static_cast<int>(state.range(0)));
  std::mt19937 gen(2);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(shape.cols)), y(static_cast<size_t>(shape.rows));
  for (auto& v : x) v = normal(gen);
  size_t i = 0;
  for (auto _ : state) {
    gemv(copies.copy(i++), x.data(), y.data());
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  set_rates(state, static_cast<double>(copies.matrix_bytes),
            2.0 * static_cast<double>(shape.rows) * static_cast<double>(shape.cols));
  state.SetLabel(std::string(isa_name(selected_isa())));
}

// Args: tokens M, thread count. M tokens against one matrix, the way a
// batched decode step (M <= 8) or a prefill (M = 512) runs it: one
// parallel region in which each thread quantizes its share of the M
// activations, then reads its rows' weights from memory once for all M
// (gemm_rows). bytes/s counts the
// weights once per call, so a batch that stays memory-bound holds the M = 1
// rate while its FLOP/s grow M-fold; a prefill is judged by its FLOP/s.
void BM_gemm_rows(benchmark::State& state, TensorType type, RowLayout layout, const Shape& shape) {
  const MatrixCopies& copies = matrix_copies(type, layout, shape);
  const auto batch = static_cast<size_t>(state.range(0));
  omp_set_num_threads(static_cast<int>(state.range(1)));
  std::mt19937 gen(2);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const auto cols = static_cast<size_t>(shape.cols), rows = static_cast<size_t>(shape.rows);
  std::vector<float> x(batch * cols), y(batch * rows);
  for (auto& v : x) v = normal(gen);
  std::vector<GemvActivation> acts(batch);
  size_t i = 0;
  for (auto _ : state) {
    const MatrixView w = copies.copy(i++);
#pragma omp parallel
    {
      const RowRange tokens = gemv_thread_rows(static_cast<int64_t>(batch), omp_get_thread_num(), omp_get_num_threads());
      for (auto m = static_cast<size_t>(tokens.begin); m < static_cast<size_t>(tokens.end); ++m)
        gemv_prepare(type, x.data() + m * cols, cols, acts[m]);
#pragma omp barrier
      const RowRange mine = gemv_thread_rows(shape.rows, omp_get_thread_num(), omp_get_num_threads());
      gemm_rows(w, acts, y.data(), rows, mine.begin, mine.end);
    }
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  set_rates(state, static_cast<double>(copies.matrix_bytes),
            2.0 * static_cast<double>(batch) * static_cast<double>(rows) * static_cast<double>(cols));
  state.SetLabel(std::string(isa_name(selected_isa())));
}

// Arg: thread count. Each thread sums its contiguous share of a 1 GiB buffer.
void BM_read_bandwidth(benchmark::State& state) {
  const size_t n = kWorkingSetBytes / sizeof(float);
  std::vector<float> data(n, 1.0f);
  const auto n_threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    float total = 0.0f;
#pragma omp parallel num_threads(n_threads) reduction(+ : total)
    {
      const RowRange mine = gemv_thread_rows(static_cast<int64_t>(n), omp_get_thread_num(), omp_get_num_threads());
      total += read_sum(data.data() + mine.begin, static_cast<size_t>(mine.end - mine.begin));
    }
    benchmark::DoNotOptimize(total);
  }
  set_rates(state, static_cast<double>(n * sizeof(float)), static_cast<double>(n));
  state.SetLabel(std::string(isa_name(selected_isa())));
}

// Arg: activation width. The per-matmul cost of quantizing x for the integer
// formats.
void BM_gemv_prepare_q8(benchmark::State& state) {
  const auto cols = static_cast<size_t>(state.range(0));
  std::vector<float> x(cols, 0.5f);
  GemvActivation act;
  for (auto _ : state) {
    gemv_prepare(TensorType::Q8_0, x.data(), cols, act);
    benchmark::DoNotOptimize(act.quantized.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0) *
                          static_cast<int64_t>(sizeof(float)));
}

const bool registered = [] {
  const int all_threads = omp_get_max_threads();
  // "<type>_grouped": the selected ISA reads that type's rows regrouped
  // (gemv_layout), as the engine does.
  for (const WeightFormat& weights : weight_formats()) {
    const TensorType type = weights.type;
    const RowLayout layout = gemv_layout(type);
    const std::string format = std::string(traits(type).name) + (layout == RowLayout::Blocks ? "" : "_grouped");
    for (const Shape& shape : kShapes) {
      // SmolLM2's 576 columns are no whole number of 256-weight super-blocks.
      if (static_cast<size_t>(shape.cols) % traits(type).block_size != 0) continue;
      const std::string name = "BM_gemv/" + format + "/" + shape.name;
      auto* b = benchmark::RegisterBenchmark(name.c_str(), BM_gemv, type, layout, shape);
      b->ArgName("threads")->UseRealTime()->Unit(benchmark::kMicrosecond)->Arg(1);
      if (all_threads > 1) b->Arg(all_threads);
      if (!gemv_batches(MatrixView{type, 1, 32, nullptr, layout})) continue;
      const std::string batch_name = "BM_gemm_rows/" + format + "/" + shape.name;
      auto* batch = benchmark::RegisterBenchmark(batch_name.c_str(), BM_gemm_rows, type, layout, shape);
      batch->ArgNames({"tokens", "threads"})->UseRealTime()->Unit(benchmark::kMicrosecond);
      for (int64_t m : {1, 2, 4, 8, 512}) batch->Args({m, 1})->Args({m, all_threads});
    }
  }
  auto* read = benchmark::RegisterBenchmark("BM_read_bandwidth", BM_read_bandwidth);
  read->ArgName("threads")->UseRealTime()->Unit(benchmark::kMillisecond)->Arg(1);
  if (all_threads > 1) read->Arg(all_threads);
  benchmark::RegisterBenchmark("BM_gemv_prepare_q8", BM_gemv_prepare_q8)
      ->ArgName("cols")->Arg(576)->Arg(2048)->Arg(8192);
  return true;
}();

}  // namespace
}  // namespace pdbench
