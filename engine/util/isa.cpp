#include "engine/util/isa.h"

#include <cstdlib>
#include <string>

#include "engine/util/cpu_features.h"
#include "engine/util/error.h"

namespace pdbench {

namespace {

bool cpu_runs_avx2() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && cpu_supports_f16c();
}

bool cpu_runs_avx2_vnni() { return cpu_runs_avx2() && cpu_supports_avx_vnni(); }

bool cpu_runs_avx512() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni") &&
         __builtin_cpu_supports("fma") && cpu_supports_f16c();
}

// The best ISA this CPU runs at or below `ceiling`.
Isa best_supported_isa(Isa ceiling = Isa::Avx512) {
  for (auto i = static_cast<int>(ceiling); i > 0; --i)
    if (isa_supported(static_cast<Isa>(i))) return static_cast<Isa>(i);
  return Isa::Scalar;
}

}  // namespace

std::string_view isa_name(Isa isa) {
  switch (isa) {
    case Isa::Avx512:
      return "avx512";
    case Isa::Avx2Vnni:
      return "avx2vnni";
    case Isa::Avx2:
      return "avx2";
    case Isa::Scalar:
      break;
  }
  return "scalar";
}

bool isa_supported(Isa isa) {
  // Asked on every attention call: CPUID once (it can trap to a hypervisor).
  static const bool avx2 = cpu_runs_avx2();
  static const bool avx2_vnni = cpu_runs_avx2_vnni();
  static const bool avx512 = cpu_runs_avx512();
  switch (isa) {
    case Isa::Avx512:
      return avx512;
    case Isa::Avx2Vnni:
      return avx2_vnni;
    case Isa::Avx2:
      return avx2;
    case Isa::Scalar:
      break;
  }
  return true;
}

std::vector<Isa> supported_isas() {
  std::vector<Isa> isas;
  for (Isa isa : kAllIsas)
    if (isa_supported(isa)) isas.push_back(isa);
  return isas;
}

void require_isa(Isa isa, std::string_view who) {
  if (!isa_supported(isa)) throw Error(std::string(who) + ": this CPU lacks " + std::string(isa_name(isa)));
}

Isa isa_for(const char* forced) {
  if (forced == nullptr || *forced == '\0') return best_supported_isa();
  for (Isa isa : kAllIsas)
    if (isa_name(isa) == forced) return best_supported_isa(isa);
  throw Error(std::string("PDBENCH_ISA=") + forced + ": expected scalar, avx2, avx2vnni or avx512");
}

Isa selected_isa() {
  static const Isa isa = isa_for(std::getenv("PDBENCH_ISA"));
  return isa;
}

}  // namespace pdbench
