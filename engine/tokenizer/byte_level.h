#pragma once
// GPT-2's reversible byte <-> character mapping. Byte-level BPE vocabularies
// spell every byte as a printable character ("Ġ" is the space byte) so that
// pieces are text; these convert between that spelling and raw bytes.
#include <optional>
#include <string>
#include <string_view>

namespace pdbench::byte_level {

// The vocabulary spelling of raw bytes.
std::string encode(std::string_view bytes);

// The raw bytes a vocabulary piece spells; nullopt when the piece holds a
// character outside the mapping (or is not valid UTF-8).
std::optional<std::string> decode(std::string_view piece);

}  // namespace pdbench::byte_level
