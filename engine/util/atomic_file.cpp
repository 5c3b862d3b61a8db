#include "engine/util/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

#include "engine/util/error.h"

namespace pdbench {

namespace {

std::string errno_text() { return std::strerror(errno); }

// Temporary files in progress, for a signal handler: fixed storage, and a
// slot's path is written before `ready` says it may be read. A file that
// finds no free slot (more than kSlots at once) is simply not registered.
struct TempSlot {
  std::atomic<bool> claimed{false};
  std::atomic<bool> ready{false};
  char path[PATH_MAX];
};
constexpr int kSlots = 16;
TempSlot g_slots[kSlots];
static_assert(std::atomic<bool>::is_always_lock_free);

int register_temporary(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < kSlots; ++i) {
    if (g_slots[i].claimed.exchange(true)) continue;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].ready.store(true, std::memory_order_release);
    return i;
  }
  return -1;
}

void unregister_temporary(int slot) {
  if (slot < 0) return;
  g_slots[slot].ready.store(false, std::memory_order_release);
  g_slots[slot].claimed.store(false, std::memory_order_release);
}

}  // namespace

void remove_uncommitted_temporaries() noexcept {
  for (TempSlot& slot : g_slots)
    if (slot.ready.load(std::memory_order_acquire)) ::unlink(slot.path);
}

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
  slot_ = register_temporary(temp_path_);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(temp_path_.c_str());
  }
  unregister_temporary(slot_);
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
  unregister_temporary(slot_);
  slot_ = -1;
}

}  // namespace pdbench
