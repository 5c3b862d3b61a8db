#include "bench/runner/rss_high_water.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace pdbench::runner {

namespace {

bool write_clear_refs() {
  const int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, "5", 1) == 1;
  ::close(fd);
  return ok;
}

}  // namespace

RssHighWater::RssHighWater() : before_reset_kib_(peak_kib()), resettable_(write_clear_refs()) {}

void RssHighWater::reset() {
  if (!resettable_) return;
  before_reset_kib_ = process_peak_kib();
  write_clear_refs();
}

long RssHighWater::peak_kib() const {
  // One read(2) takes the whole file (about 1.5 KiB).
  char buf[4096];
  const int fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  const char* line = std::strstr(buf, "\nVmHWM:");
  return line ? std::strtol(line + 7, nullptr, 10) : 0;
}

long RssHighWater::process_peak_kib() const { return std::max(before_reset_kib_, peak_kib()); }

}  // namespace pdbench::runner
