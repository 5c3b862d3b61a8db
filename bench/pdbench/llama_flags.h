#pragma once
// The flags llama.cpp's tools spell with one dash and several letters
// (-ctk q8_0, -fa 1, -ngl 99, -pg 512,128). CLI11 reads "-ctk" as "-c tk",
// which gave "--ctx-size: Value tk not in range": the ones pdbench has are
// rewritten to its long names before parsing, the others refused by name.
#include <string>
#include <vector>

namespace pdbench::cli {

// argv with -ctk/-ctv as --cache-type-k/-v. Throws Error naming a llama.cpp
// flag pdbench has no use for, and what to do instead.
std::vector<std::string> translate_llama_flags(int argc, char** argv);

}  // namespace pdbench::cli
