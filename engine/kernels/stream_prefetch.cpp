#include "engine/kernels/stream_prefetch.h"

#include <array>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <vector>

#include "engine/kernels/alternating_best.h"
#include "engine/kernels/gemv.h"
#include "engine/kernels/gemv_matrix.h"
#include "engine/kernels/probe_rows.h"
#include "engine/util/aligned_vector.h"
#include "engine/util/available_memory.h"
#include "engine/util/error.h"

namespace pdbench {

namespace {

constexpr size_t kCols = 2048, kDistinctRows = 16;  // the speed does not depend on the values: copies of these
constexpr size_t kProbeBytes = size_t{64} << 20;
constexpr int kRuns = 5;

StreamPrefetch measure(Isa isa) {
  constexpr TensorType kType = TensorType::Q4_K;
  std::mt19937 gen(1);
  const size_t stride = row_bytes(kType, kCols);
  const std::vector<std::byte> stored = random_rows(kType, kCols, kDistinctRows, gen);
  const GemvMatrix distinct(MatrixView{kType, kDistinctRows, kCols, stored.data()}, isa);
  const size_t rows = kProbeBytes / stride / kDistinctRows * kDistinctRows;
  AlignedVector<std::byte> streamed(rows * stride);
  for (size_t r = 0; r < rows; r += kDistinctRows)
    std::memcpy(streamed.data() + r * stride, distinct.view().data, kDistinctRows * stride);

  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(kCols);
  for (float& v : x) v = normal(gen);
  GemvActivation act;
  gemv_prepare(kType, x.data(), kCols, act, isa);
  const MatrixView w{kType, static_cast<int64_t>(rows), kCols, streamed.data(), RowLayout::GroupedQuants};
  std::vector<float> y(rows);
  const auto stream = [&](bool far_l1) {
    return [&, far_l1] { gemv_rows_l1_ahead(w, act, y.data(), 0, w.rows, far_l1, isa); };
  };
  const BestOfTwo best = alternating_best(kRuns, stream(false), stream(true));
  return {best.second_ms < best.first_ms, best.first_ms, best.second_ms, "measured"};
}

}  // namespace

StreamPrefetch choose_stream_prefetch(Isa isa) {
  if (const char* forced = std::getenv(kL1PrefetchVariable); forced != nullptr && *forced != '\0') {
    const std::string value(forced);
    if (value != "near" && value != "far")
      throw Error(std::string(kL1PrefetchVariable) + "=" + value + ": expected near or far");
    return {value == "far", 0, 0, kL1PrefetchVariable};
  }
  if (isa != Isa::Avx512 || !isa_supported(isa)) return {false, 0, 0, "avx512 only"};
  if (!memory_fits(2 * kProbeBytes)) return {false, 0, 0, "not measured: memory short"};
  return measure(isa);
}

const StreamPrefetch& stream_prefetch(Isa isa) {
  static std::array<std::once_flag, std::size(kAllIsas)> once;
  static std::array<StreamPrefetch, std::size(kAllIsas)> chosen;
  const auto i = static_cast<size_t>(isa);
  std::call_once(once[i], [&] { chosen[i] = choose_stream_prefetch(isa); });
  return chosen[i];
}

}  // namespace pdbench
