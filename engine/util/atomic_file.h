#pragma once
// Output file that appears under its final name only when complete: bytes go
// to PATH.tmp.XXXXXX in the same directory, which commit() fsyncs and renames
// over PATH. Destroyed without commit(), it removes the temporary file.
// A signal that ends the process skips destructors: its handler calls
// remove_uncommitted_temporaries() first.
#include <cstddef>
#include <span>
#include <string>

namespace pdbench {

class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::span<const std::byte> bytes);
  void commit();

 private:
  std::string path_;
  std::string temp_path_;
  int fd_ = -1;
  int slot_ = -1;  // in the registry remove_uncommitted_temporaries() reads
};

// Unlinks the temporary file of every AtomicFile neither committed nor
// destroyed. Async-signal-safe: it reads a fixed registry and calls unlink.
void remove_uncommitted_temporaries() noexcept;

}  // namespace pdbench
