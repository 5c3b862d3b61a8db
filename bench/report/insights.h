#pragma once
// Sentences computed from the results that say what bounds each phase:
// fractions of the measured roofs, operator shares, how decode grows with
// context, thread scaling, noise, and how runs differ.
#include <string>
#include <vector>

#include "bench/report/results_reader.h"

namespace pdbench::report {

struct Insight {
  std::string phase;  // "Prefill", "Decode" or "Overall"
  std::string run;    // the run's label
  std::string text;
};

std::vector<Insight> insights(const std::vector<RunData>& runs);

// Shared number formatting: about three significant digits, no exponent.
std::string readable(double value);
// Bytes with a binary unit: "1.1 MiB".
std::string readable_bytes(double bytes);

}  // namespace pdbench::report
