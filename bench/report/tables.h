#pragma once
// The report's tables as text cells, shared by the HTML and Markdown
// writers: key numbers per case, and the machine fingerprint.
#include <string>
#include <vector>

#include "bench/report/results_reader.h"

namespace pdbench::report {

struct TextTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

// Per case: TTFT median and CV, prefill and decode tokens/s, inter-token CV.
TextTable key_table(const RunData& run);

// One row per fingerprint fact (CPU, caches, memory, compiler, limits...),
// one column per run; facts a run lacks are "-".
TextTable fingerprint_table(const std::vector<RunData>& runs);

// "smoke: scenario smoke, model stories260K.gguf, 8 cases x 9 runs, started ..."
std::string run_line(const RunData& run);

}  // namespace pdbench::report
