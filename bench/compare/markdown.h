#pragma once
// The comparison as Markdown for a CI job summary or a pull-request comment:
// the overall verdict, fingerprint warnings, a line per phase, then the
// table. Verdicts carry an emoji and always the word.
#include <string>

#include "bench/compare/compare_table.h"

namespace pdbench::compare {

std::string markdown_report(const Comparison& c);

}  // namespace pdbench::compare
