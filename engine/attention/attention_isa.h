#pragma once
// The instruction sets the fast attention kernels (decode and prefill) are
// built for, chosen at run time: each *_kernels_<isa>.cpp file is the only
// one compiled with that ISA's flags.
#include <string_view>

namespace pdbench {

enum class AttentionIsa { Scalar, Avx512 };

// Avx512 when the CPU has AVX-512 F/BW/VL/VNNI with F16C and FMA, else Scalar.
AttentionIsa best_attention_isa();
bool attention_isa_supported(AttentionIsa isa);
std::string_view attention_isa_name(AttentionIsa isa);
// An Error naming the ISA unless this CPU runs it.
void check_attention_isa(AttentionIsa isa);

}  // namespace pdbench
