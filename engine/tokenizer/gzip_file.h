#pragma once
#include <string>

namespace pdbench {

// The whole file; gzip-compressed files (by their magic bytes, whatever the
// name) are decompressed. Throws pdbench::Error naming `path` when the file
// cannot be read, the gzip stream is corrupt or truncated, or the content
// exceeds `max_bytes`.
std::string read_maybe_gzip(const std::string& path, size_t max_bytes);

}  // namespace pdbench
