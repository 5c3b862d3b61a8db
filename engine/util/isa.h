#pragma once
// The instruction sets the kernels are built for, and the one switch that
// picks among them for every kernel family: decode GEMV, the activation
// kernels and attention. Each *_<isa>.cpp file is the only one compiled
// with its ISA's flags; a family with no kernels of the selected ISA runs
// its best one below it (only the integer GEMV kernels have an AVX-VNNI
// build: the activation kernels and attention run AVX2's under it).
#include <cstdint>
#include <string_view>
#include <vector>

namespace pdbench {

enum class Isa : uint8_t {
  Scalar,  // plain C++: the reference
  Avx2,      // AVX2 + FMA + F16C
  Avx2Vnni,  // AVX2's, with AVX-VNNI's 256-bit vpdpbusd (Intel from Alder Lake, AMD from Zen 5)
  Avx512,    // AVX-512 F/BW/VL + VNNI + FMA + F16C
};

inline constexpr Isa kAllIsas[] = {Isa::Scalar, Isa::Avx2, Isa::Avx2Vnni, Isa::Avx512};

// "scalar", "avx2", "avx2vnni", "avx512": the PDBENCH_ISA spellings, for
// sysinfo and fingerprints.
std::string_view isa_name(Isa isa);

// Whether this CPU runs the kernels of `isa`.
bool isa_supported(Isa isa);
// The ISAs of kAllIsas this CPU runs, lowest first.
std::vector<Isa> supported_isas();

// An Error saying `who` cannot run on `isa` unless this CPU runs it.
void require_isa(Isa isa, std::string_view who);

// The ISA for PDBENCH_ISA = `forced` on this CPU: the best it supports when
// forced is null or empty, else the named one, or the best it supports
// below that when it lacks it (avx2vnni on a Zen 4 is avx2, though it runs
// avx512). Throws Error on a name that is none of kAllIsas.
Isa isa_for(const char* forced);

// isa_for(PDBENCH_ISA), read on first call: the ISA of every kernel call
// that names none.
Isa selected_isa();

}  // namespace pdbench
