#include "engine/tokenizer/gzip_file.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "engine/util/error.h"
#include "engine/util/regular_file.h"

namespace pdbench {
namespace {

struct GzCloser {
  void operator()(gzFile_s* file) const { gzclose(file); }
};

}  // namespace

std::string read_maybe_gzip(const std::string& path, size_t max_bytes) {
  require_regular_file(path);
  // gzread passes files without the gzip magic through unchanged.
  const std::unique_ptr<gzFile_s, GzCloser> file(gzopen(path.c_str(), "rb"));
  if (!file) fail_file(path, std::string("cannot open: ") + std::strerror(errno));
  std::string content;
  char buffer[1 << 16];
  for (;;) {
    const int n = gzread(file.get(), buffer, sizeof buffer);
    int status = Z_OK;
    const char* message = gzerror(file.get(), &status);
    if (n < 0 || (status != Z_OK && status != Z_BUF_ERROR)) fail_file(path, std::string("cannot read: ") + message);
    if (n == 0) {
      // Z_BUF_ERROR at the end: the file stops in the middle of the gzip stream.
      if (status == Z_BUF_ERROR) fail_file(path, "truncated gzip stream");
      break;
    }
    content.append(buffer, static_cast<size_t>(n));
    if (content.size() > max_bytes) {
      fail_file(path, "content exceeds " + std::to_string(max_bytes) + " bytes");
    }
  }
  return content;
}

}  // namespace pdbench
