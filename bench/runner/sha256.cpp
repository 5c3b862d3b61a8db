#include "bench/runner/sha256.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <vector>

#include "engine/util/error.h"

namespace pdbench::runner {

namespace {

// One digest in progress; OpenSSL failures (out of memory) are Errors.
class Digest {
 public:
  Digest() : ctx_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
    if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1) throw Error("sha256: OpenSSL init failed");
  }
  void update(const void* data, size_t size) {
    if (EVP_DigestUpdate(ctx_.get(), data, size) != 1) throw Error("sha256: OpenSSL update failed");
  }
  std::string hex() {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(ctx_.get(), md, &len) != 1) throw Error("sha256: OpenSSL final failed");
    static const char* const kDigits = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < len; ++i) out += {kDigits[md[i] >> 4], kDigits[md[i] & 15]};
    return out;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx_;
};

}  // namespace

std::string sha256_hex(std::string_view data) {
  Digest d;
  d.update(data.data(), data.size());
  return d.hex();
}

std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_file(path, std::string("cannot read file to hash: ") + std::strerror(errno));
  Digest d;
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    d.update(buf.data(), static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) fail_file(path, "read error while hashing");
  return d.hex();
}

}  // namespace pdbench::runner
