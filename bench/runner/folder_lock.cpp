#include "bench/runner/folder_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/util/error.h"

namespace pdbench::runner {

FolderLock::FolderLock(const std::string& dir) {
  fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) fail_file(dir, std::string("cannot open the results folder: ") + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
  const int err = errno;
  ::close(fd_);
  if (err == EWOULDBLOCK)
    fail_file(dir, "another pdbench run is writing to this results folder; wait for it or choose another -o");
  fail_file(dir, std::string("cannot lock the results folder: ") + std::strerror(err));
}

FolderLock::~FolderLock() { ::close(fd_); }  // closing releases the lock

}  // namespace pdbench::runner
