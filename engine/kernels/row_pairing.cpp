#include "engine/kernels/row_pairing.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>
#include <utility>
#include <vector>

#include "engine/kernels/alternating_best.h"
#include "engine/kernels/gemv.h"
#include "engine/kernels/gemv_matrix.h"
#include "engine/kernels/probe_rows.h"
#include "engine/util/error.h"

namespace pdbench {

namespace {

constexpr size_t kRows = 512, kCols = 2048, kTokens = 64;
constexpr size_t kDistinctRows = 16;  // the speed does not depend on the values: copies of these
constexpr int kRuns = 5;

std::vector<std::byte> probe_rows(TensorType type, std::mt19937& gen) {
  const size_t bytes = row_bytes(type, kCols);
  std::vector<std::byte> rows = random_rows(type, kCols, kDistinctRows, gen);
  rows.resize(kRows * bytes);
  for (size_t r = kDistinctRows; r < kRows; ++r)
    std::copy_n(rows.data() + r % kDistinctRows * bytes, bytes, rows.data() + r * bytes);
  return rows;
}

RowPairing measure(Isa isa, TensorType type) {
  std::mt19937 gen(1);
  const std::vector<std::byte> stored = probe_rows(type, gen);
  const GemvMatrix w(MatrixView{type, static_cast<int64_t>(kRows), static_cast<int64_t>(kCols), stored.data()}, isa);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(kCols);
  std::vector<GemvActivation> acts(kTokens);
  for (GemvActivation& act : acts) {
    for (float& v : x) v = normal(gen);
    gemv_prepare(type, x.data(), kCols, act, isa);
  }
  std::vector<float> y(kTokens * kRows);
  const auto rows_read = [&](bool pairs) {
    return [&, pairs] { gemm_rows_paired(w.view(), acts, y.data(), kRows, 0, kRows, pairs, isa); };
  };
  const BestOfTwo best = alternating_best(kRuns, rows_read(false), rows_read(true));
  return {best.second_ms < best.first_ms, best.first_ms, best.second_ms, "measured"};
}

}  // namespace

RowPairing row_pairing(Isa isa, TensorType type) {
  if (const char* forced = std::getenv(kRowPairsVariable); forced != nullptr && *forced != '\0') {
    const std::string value(forced);
    if (value != "on" && value != "off")
      throw Error(std::string(kRowPairsVariable) + "=" + value + ": expected on or off");
    return {value == "on", 0, 0, kRowPairsVariable};
  }
  if (!can_pair_rows(type, isa)) return {false, 0, 0, "no paired kernel"};
  // Held while a probe runs: the other threads of a first prefill wait
  // rather than load the core it measures.
  static std::mutex mutex;
  static std::map<std::pair<Isa, TensorType>, RowPairing> measured;
  const std::lock_guard lock(mutex);
  auto it = measured.find({isa, type});
  if (it == measured.end()) it = measured.emplace(std::pair{isa, type}, measure(isa, type)).first;
  return it->second;
}

}  // namespace pdbench
