#pragma once
// Shared by the attention tests: the ISAs to run, and K/V that depend on the
// whole token prefix as a model's do, so sequences with a common prefix
// really do share K/V.
#include <cstdint>
#include <span>
#include <vector>

#include "engine/attention/paged_kv_cache.h"
#include "engine/util/isa.h"
#include "tests/support/random_values.h"

namespace pdbench::test {

// Scalar, and AVX2 and AVX-512 where the CPU has them.
inline std::vector<Isa> attention_isas() {
  std::vector<Isa> all{Isa::Scalar};
  for (Isa isa : {Isa::Avx2, Isa::Avx512})
    if (isa_supported(isa)) all.push_back(isa);
  return all;
}

// K and V (kv_dim each) of `layer` at position pos of a sequence of `tokens`:
// a pure function of tokens[0..pos] and the layer.
inline void model_kv(std::span<const int32_t> tokens, size_t pos, size_t layer, size_t kv_dim,
                     std::vector<float>& k, std::vector<float>& v) {
  uint64_t h = 1469598103934665603ull + layer;
  for (size_t i = 0; i <= pos; ++i) h = (h ^ static_cast<uint32_t>(tokens[i])) * 1099511628211ull;
  k = random_normal(kv_dim, static_cast<uint32_t>(h));
  v = random_normal(kv_dim, static_cast<uint32_t>(h >> 32));
}

// Writes every layer's K/V for positions [from, tokens.size()) of seq, which
// must already be that long.
inline void write_tokens(PagedKvCache& cache, SequenceId seq, std::span<const int32_t> tokens,
                         size_t from) {
  std::vector<float> k, v;
  for (size_t pos = from; pos < tokens.size(); ++pos)
    for (size_t layer = 0; layer < cache.config().n_layers; ++layer) {
      model_kv(tokens, pos, layer, cache.kv_dim(), k, v);
      cache.write(seq, layer, pos, k.data(), v.data());
    }
}

inline std::vector<int32_t> iota_tokens(size_t n, int32_t first) {
  std::vector<int32_t> t(n);
  for (size_t i = 0; i < n; ++i) t[i] = first + static_cast<int32_t>(i);
  return t;
}

}  // namespace pdbench::test
