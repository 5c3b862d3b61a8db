#pragma once
// A run's progress on stderr: a bar redrawn in place on a terminal, one
// line per measured run otherwise, with the time left at the pace so far.
#include <chrono>
#include <cstdio>
#include <string>

namespace pdbench::runner {

class Progress {
 public:
  // `out` may be null: nothing is printed.
  Progress(std::FILE* out, size_t total);

  void note(const std::string& line);   // a line of its own, above the bar
  void run_done(const std::string& what);  // one of `total` runs finished

 private:
  std::FILE* out_;
  bool tty_;
  size_t total_;
  size_t done_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// "1:02:03"
std::string format_duration(double seconds);

}  // namespace pdbench::runner
