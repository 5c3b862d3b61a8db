#include "bench/runner/target.h"

#include <charconv>

#include "engine/util/error.h"

namespace pdbench::runner {

TargetUrl parse_target_url(const std::string& url) {
  const std::string quoted = "'" + url + "'";
  const size_t scheme_end = url.find("://");
  const std::string scheme = scheme_end == std::string::npos ? "" : url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https")
    throw Error(quoted + " is not an http:// or https:// URL" +
                (scheme.empty() ? " (write the scheme: http://127.0.0.1:8080)" : " (scheme '" + scheme + "')"));
  const size_t host_start = scheme_end + 3;
  const size_t path_start = std::min(url.find('/', host_start), url.size());
  const std::string authority = url.substr(host_start, path_start - host_start);
  if (authority.find_first_of("?#@") != std::string::npos || url.find_first_of("?#") != std::string::npos)
    throw Error(quoted + ": a target URL has no user, query or fragment");
  const size_t colon = authority.rfind(':');
  const bool has_port = colon != std::string::npos && authority.find(']', colon) == std::string::npos;
  const std::string host = has_port ? authority.substr(0, colon) : authority;
  if (host.empty()) throw Error(quoted + " names no host");
  if (has_port) {
    const std::string port = authority.substr(colon + 1);
    int value = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || ec != std::errc{} || end != port.data() + port.size() || value < 1 || value > 65535)
      throw Error(quoted + ": the port '" + port + "' is not a number from 1 to 65535");
  }
  std::string base = url.substr(path_start);
  while (!base.empty() && base.back() == '/') base.pop_back();
  // An OpenAI SDK's base URL ends in /v1; the routes add it themselves.
  if (base.ends_with("/v1")) base.resize(base.size() - 3);
  return {url.substr(0, path_start), base, host};
}

bool serves_from_this_machine(const Target& target) {
  if (!target.remote()) return false;
  const std::string host = parse_target_url(target.url).host;
  return host == "localhost" || host == "[::1]" || host.starts_with("127.");
}

}  // namespace pdbench::runner
