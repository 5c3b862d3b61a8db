#include "engine/format/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "engine/util/error.h"

namespace pdbench {

namespace {
std::string errno_text() { return std::strerror(errno); }
}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), temp_path_(path_ + ".tmp.XXXXXX") {
  fd_ = ::mkstemp(temp_path_.data());
  if (fd_ < 0) fail_file(path_, "cannot create temporary file " + temp_path_ + ": " + errno_text());
  // mkstemp creates 0600; a model file should be readable like any other output.
  if (::fchmod(fd_, 0644) != 0) {
    const std::string reason = errno_text();
    ::close(fd_);
    ::unlink(temp_path_.c_str());
    fail_file(path_, "cannot set permissions of " + temp_path_ + ": " + reason);
  }
}

AtomicFile::~AtomicFile() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(temp_path_.c_str());
}

void AtomicFile::write(std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_file(path_, "cannot write " + temp_path_ + ": " + errno_text());
    bytes = bytes.subspan(static_cast<size_t>(n));
  }
}

void AtomicFile::commit() {
  if (::fsync(fd_) != 0) fail_file(path_, "cannot flush " + temp_path_ + " to disk: " + errno_text());
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    const std::string reason = errno_text();
    ::unlink(temp_path_.c_str());
    fail_file(path_, "cannot close " + temp_path_ + ": " + reason);
  }
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    const std::string reason = errno_text();
    ::unlink(temp_path_.c_str());
    fail_file(path_, "cannot rename " + temp_path_ + " into place: " + reason);
  }
}

}  // namespace pdbench
