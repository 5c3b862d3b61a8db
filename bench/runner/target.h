#pragma once
// What a scenario's requests run on (scenarios/README.md, "Target"): the
// in-process engine, or any OpenAI-compatible server over HTTP
// (openai_target.h), which gets the same cases and load axes.
#include <string>

namespace pdbench::runner {

// [target]; kind "engine" (the default) runs in this process.
struct Target {
  std::string kind = "engine";  // "engine" or "openai"
  std::string url;              // openai: http://HOST[:PORT][/PREFIX]
  std::string model;            // openai: the model to ask for; empty: the server's first /v1/models entry
  double timeout_s = 600;       // openai: one request's limit, from its send to its last byte
  int line = 0;                 // of [target], or 0 for the command line

  bool remote() const { return kind == "openai"; }
};

// A target URL cut into what the HTTP client takes: "http://host:port"
// and the path the API's /v1/... routes hang under ("" or "/prefix").
struct TargetUrl {
  std::string origin;
  std::string base_path;
  std::string host;  // as written: "127.0.0.1", "localhost", "[::1]"
};

// Throws pdbench::Error saying what is wrong with the URL (not naming
// where it came from: callers add the file and key or the flag).
TargetUrl parse_target_url(const std::string& url);

// Whether a remote target's server runs on this machine (its host is a
// loopback name or address), so its CPU time is the machine's other load.
bool serves_from_this_machine(const Target& target);

}  // namespace pdbench::runner
