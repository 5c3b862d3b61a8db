#include "engine/kernels/activation.h"

#include "engine/kernels/reference.h"

namespace pdbench {

void rmsnorm(float* out, const float* x, const float* weight, size_t n, float eps, Isa isa) {
  if (isa == Isa::Avx512)
    activation_detail::rmsnorm_avx512(out, x, weight, n, eps);
  else
    ref::rmsnorm(out, x, weight, n, eps);
}

void swiglu(float* gate, const float* up, size_t n, Isa isa) {
  if (isa == Isa::Avx512)
    activation_detail::swiglu_avx512(gate, up, n);
  else
    ref::swiglu(gate, up, n);
}

void add(float* a, const float* b, size_t n, Isa isa) {
  if (isa == Isa::Avx512)
    activation_detail::add_avx512(a, b, n);
  else
    ref::add(a, b, n);
}

}  // namespace pdbench
