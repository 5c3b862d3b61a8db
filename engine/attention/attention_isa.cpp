#include "engine/attention/attention_isa.h"

#include <string>

#include "engine/util/cpu_features.h"
#include "engine/util/error.h"

namespace pdbench {

bool attention_isa_supported(AttentionIsa isa) {
  if (isa == AttentionIsa::Scalar) return true;
  // Asked on every kernel call: CPUID once (it can trap to a hypervisor).
  static const bool avx512 =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni") &&
      __builtin_cpu_supports("fma") && cpu_supports_f16c();
  return avx512;
}

AttentionIsa best_attention_isa() {
  return attention_isa_supported(AttentionIsa::Avx512) ? AttentionIsa::Avx512
                                                       : AttentionIsa::Scalar;
}

std::string_view attention_isa_name(AttentionIsa isa) {
  return isa == AttentionIsa::Avx512 ? "avx512" : "scalar";
}

void check_attention_isa(AttentionIsa isa) {
  if (!attention_isa_supported(isa))
    throw Error("attention: this CPU lacks " + std::string(attention_isa_name(isa)));
}

}  // namespace pdbench
