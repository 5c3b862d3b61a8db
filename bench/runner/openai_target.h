#pragma once
// An OpenAI-compatible server as a benchmark target ([target] kind =
// "openai"): each request is one streamed POST /v1/completions with the
// prompt as token ids (so its length is exact), ignore_eos and max_tokens
// (so its output length is too), timed on this side from the stream's
// arrival. The HTTP client is cpp-httplib's, one per request in flight.
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/runner/completion_stream.h"
#include "bench/runner/target.h"
#include "engine/sampling/sampling_params.h"

namespace httplib {
class Client;
}

namespace pdbench::runner {

struct RemoteRequest {
  std::vector<int32_t> prompt_ids;
  size_t max_tokens = 0;
  SamplingParams sampling;
};

// The JSON body of a request (without "model": the client adds it).
nlohmann::json completion_body(const RemoteRequest& r);

// One connection, kept alive between requests. Not thread-safe: one per thread.
class OpenAiClient {
 public:
  OpenAiClient(const TargetUrl& url, double timeout_s);
  ~OpenAiClient();
  OpenAiClient(const OpenAiClient&) = delete;
  OpenAiClient& operator=(const OpenAiClient&) = delete;

  // GET /v1/models: the ids it lists.
  std::vector<std::string> models();
  // Streams one completion; `keep_going` is asked at every arrival, and
  // false abandons the request (the result then has done == false).
  // Throws pdbench::Error naming the URL when it cannot connect, the server
  // answers an HTTP error (with the server's message), the stream reports
  // an error or ends without [DONE], or timeout_s passes.
  StreamedCompletion complete(const std::string& model, const RemoteRequest& r, const std::function<bool()>& keep_going);

 private:
  std::string url(const std::string& route) const;

  TargetUrl url_;
  double timeout_s_;
  std::unique_ptr<httplib::Client> http_;
};

// A run's target: the server, the model named in its requests, and one
// client per request slot, kept across runs so their connections are
// made once (in warm-up), not in a measured TTFT.
class OpenAiTarget {
 public:
  // Asks the server's /v1/models for the model (its first entry when
  // `target.model` is empty): an unreachable server, or one that does not
  // list the model, fails before anything is measured.
  explicit OpenAiTarget(const Target& target);

  const std::string& model() const { return model_; }
  const std::string& url() const { return target_.url; }
  // Makes clients up to `slots` (call before threads use them).
  void reserve(size_t slots);
  OpenAiClient& client(size_t slot) { return *clients_.at(slot); }
  // The model the server's answers named, as they came (thread-safe).
  void answered_by(const std::string& model);
  // meta.json's "target".
  nlohmann::json describe() const;

 private:
  Target target_;
  TargetUrl url_;
  std::string model_;
  std::vector<std::unique_ptr<OpenAiClient>> clients_;
  mutable std::mutex mutex_;
  std::string server_model_;
};

// meta.json's "target" of a scenario run in process.
nlohmann::json engine_target_json();

}  // namespace pdbench::runner
