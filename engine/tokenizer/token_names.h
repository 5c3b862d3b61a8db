#pragma once
// Special tokens found by name, for vocabularies that do not list them by id.
#include <string_view>

namespace pdbench {

// Tokens that end a turn or a document in common chat formats ("<|eot_id|>",
// "<|im_end|>", "</s>", ...); generation stops on them.
bool is_end_of_turn_name(std::string_view piece);

}  // namespace pdbench
