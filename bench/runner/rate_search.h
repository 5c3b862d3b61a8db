#pragma once
// [rate_search]: the highest request rate whose load meets the [sla], found
// by measuring (scenarios/README.md, "[rate_search]"). Each load setting of
// the sweep is searched on its own: the highest rate first (met: the answer
// is at least that), then the lowest (missed: none meets it), then the
// geometric midpoint of the highest rate met and the lowest missed, until
// `probes` rates are measured. A probe is an ordinary load case at that
// rate, judged as summary.csv's sla_met judges it: the p99 over every
// request of every repetition within each limit.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace pdbench::runner {

struct RateSearch {
  double low_req_s = 0;
  double high_req_s = 0;
  size_t probes = 6;  // rates measured per setting, low and high among them
  int line = 0;       // of the [rate_search] table
};

struct RateProbe {
  double rate;  // requests/s
  bool met;     // the SLA held at it
};

// The next rate to measure after `done` (in the order measured), or none
// when the search is over. Midpoints are rounded to 3 significant digits,
// so case ids stay short.
std::optional<double> next_probe_rate(const RateSearch& search, const std::vector<RateProbe>& done);

// The highest rate of `done` that met the SLA, below every rate that missed
// it; none when the lowest missed.
std::optional<double> highest_rate_met(const std::vector<RateProbe>& done);

}  // namespace pdbench::runner
