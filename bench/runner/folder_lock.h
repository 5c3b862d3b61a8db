#pragma once
// An exclusive lock on a results folder for as long as a run writes to it:
// a second `pdbench run -o` on the same folder is refused at once instead of
// both rewriting the same files and one run's results being lost. The lock
// is flock(2) on the folder itself, so it leaves no file behind and ends
// with the process, however the process ends.
#include <string>

namespace pdbench::runner {

class FolderLock {
 public:
  // Throws pdbench::Error naming the folder when another process holds it.
  explicit FolderLock(const std::string& dir);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace pdbench::runner
