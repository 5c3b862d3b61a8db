#include "engine/kernels/activation.h"

#include <vector>

#include "engine/kernels/reference.h"
#include "engine/util/half.h"

namespace pdbench {

void rmsnorm(float* out, const float* x, const float* weight, size_t n, float eps, Isa isa) {
  if (isa == Isa::Avx512)
    activation_detail::rmsnorm_avx512(out, x, weight, n, eps);
  else if (isa >= Isa::Avx2)  // with AVX-VNNI or not: these are float work
    activation_detail::rmsnorm_avx2(out, x, weight, n, eps);
  else
    ref::rmsnorm(out, x, weight, n, eps);
}

void swiglu(float* gate, const float* up, size_t n, Isa isa) {
  if (isa == Isa::Avx512)
    activation_detail::swiglu_avx512(gate, up, n);
  else if (isa >= Isa::Avx2)
    activation_detail::swiglu_avx2(gate, up, n);
  else
    ref::swiglu(gate, up, n);
}

namespace {

// gelu at every f16 input as ref::gelu rounds it: ggml's ggml_table_gelu_f16.
const std::vector<float>& gelu_table() {
  static const std::vector<float> table = [] {
    std::vector<float> t(size_t{1} << 16);
    for (size_t h = 0; h < t.size(); ++h)
      t[h] = fp16_to_f32(f32_to_fp16(ref::gelu_tanh(fp16_to_f32(static_cast<uint16_t>(h)))));
    return t;
  }();
  return table;
}

}  // namespace

void geglu(float* gate, const float* up, size_t n) {
  const std::vector<float>& table = gelu_table();
  for (size_t i = 0; i < n; ++i) {
    const float x = gate[i];
    const float g = x <= -10.0f ? 0.0f : x >= 10.0f ? x : table[f32_to_fp16(x)];
    gate[i] = g * up[i];
  }
}

void add(float* a, const float* b, size_t n, Isa isa) {
  if (isa == Isa::Avx512)
    activation_detail::add_avx512(a, b, n);
  else if (isa >= Isa::Avx2)
    activation_detail::add_avx2(a, b, n);
  else
    ref::add(a, b, n);
}

}  // namespace pdbench
