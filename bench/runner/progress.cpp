#include "bench/runner/progress.h"

#include <unistd.h>

namespace pdbench::runner {

std::string format_duration(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  return buf;
}

Progress::Progress(std::FILE* out, size_t total) : out_(out), tty_(out && isatty(fileno(out))), total_(total) {}

void Progress::note(const std::string& line) {
  if (!out_) return;
  std::fprintf(out_, "%s%s\n", tty_ ? "\r\033[K" : "", line.c_str());
  std::fflush(out_);
}

void Progress::run_done(const std::string& what) {
  ++done_;
  if (!out_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta = elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_);
  if (tty_) {
    constexpr size_t kWidth = 30;
    const size_t filled = total_ ? kWidth * done_ / total_ : kWidth;
    std::fprintf(out_, "\r\033[K[%s%s] %zu/%zu ETA %s  %s", std::string(filled, '#').c_str(),
                 std::string(kWidth - filled, '.').c_str(), done_, total_, format_duration(eta).c_str(),
                 what.c_str());
    if (done_ == total_) std::fputc('\n', out_);
  } else {
    std::fprintf(out_, "[%zu/%zu] %s, ETA %s\n", done_, total_, what.c_str(), format_duration(eta).c_str());
  }
  std::fflush(out_);
}

}  // namespace pdbench::runner
