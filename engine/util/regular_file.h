#pragma once
// Input files are regular files, checked before they are opened: opening a
// FIFO for reading waits for a writer forever, and a folder or device opens
// and then fails, or never ends (/dev/zero), part-way through a read.
#include <string>

namespace pdbench {

// Throws pdbench::Error "PATH: no such file" or "PATH: not a regular file".
void require_regular_file(const std::string& path);

// The whole file's bytes, after require_regular_file; throws pdbench::Error
// "PATH: cannot read file" when it cannot be opened.
std::string read_regular_file(const std::string& path);

}  // namespace pdbench
