#include "bench/runner/openai_target.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "engine/util/error.h"

namespace pdbench::runner {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// An error answer is read this far: enough for any server's message.
constexpr size_t kMaxErrorBody = 64 * 1024;

// The message of an OpenAI-shaped error body, else the body itself.
std::string server_message(const std::string& body) {
  const json j = json::parse(body, nullptr, false);
  if (j.is_object() && j.contains("error")) {
    const json& e = j["error"];
    if (e.is_object() && e.contains("message") && e["message"].is_string()) return e["message"].get<std::string>();
    if (e.is_string()) return e.get<std::string>();
  }
  return body.substr(0, 500);
}

std::string connection_problem(httplib::Error e) {
  switch (e) {
    case httplib::Error::Connection: return "cannot connect (is the server running, at that host and port?)";
    case httplib::Error::ConnectionTimeout: return "the connection was not accepted within timeout_s";
    case httplib::Error::Read: return "the connection broke, or went silent for timeout_s, while reading the answer";
    case httplib::Error::Write: return "the connection broke while sending the request";
    default: return "the request failed (cpp-httplib: " + httplib::to_string(e) + ")";
  }
}

// A POST of a JSON body whose answer is read as server-sent events.
httplib::Request event_stream_post(const std::string& path, const json& body) {
  httplib::Request req;
  req.method = "POST";
  req.path = path;
  req.set_header("Content-Type", "application/json");
  req.set_header("Accept", "text/event-stream");
  req.body = body.dump();
  return req;
}

}  // namespace

json completion_body(const RemoteRequest& r) {
  const SamplingParams& s = r.sampling;
  json body = {{"prompt", r.prompt_ids},
               {"max_tokens", r.max_tokens},
               {"stream", true},
               {"stream_options", {{"include_usage", true}}},
               {"ignore_eos", true},
               {"temperature", s.greedy() ? 0.0f : s.temperature}};
  // Only the settings off their defaults: a server need know no more names
  // than the strategy uses (top_k, min_p and repeat_penalty are
  // llama-server's and vLLM's extensions to OpenAI's).
  if (s.greedy()) return body;
  if (s.top_k > 0) body["top_k"] = s.top_k;
  if (s.top_p < 1) body["top_p"] = s.top_p;
  if (s.min_p > 0) body["min_p"] = s.min_p;
  if (s.repeat_penalty != 1) body["repeat_penalty"] = s.repeat_penalty;
  if (s.frequency_penalty != 0) body["frequency_penalty"] = s.frequency_penalty;
  if (s.presence_penalty != 0) body["presence_penalty"] = s.presence_penalty;
  if (s.penalties_active()) body["repeat_last_n"] = s.penalty_last_n;
  body["seed"] = s.seed;
  return body;
}

OpenAiClient::OpenAiClient(const TargetUrl& url, double timeout_s)
    : url_(url), timeout_s_(timeout_s), http_(std::make_unique<httplib::Client>(url.origin)) {
  const auto limit = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::duration<double>(timeout_s));
  http_->set_connection_timeout(limit);
  http_->set_read_timeout(limit);
  http_->set_write_timeout(limit);
  http_->set_keep_alive(true);
  // cpp-httplib writes a request's headers and body apart: with Nagle's
  // algorithm on, the body waits for the server's delayed ACK (40 ms on
  // Linux), which would land in every TTFT.
  http_->set_tcp_nodelay(true);
}

OpenAiClient::~OpenAiClient() = default;

std::string OpenAiClient::url(const std::string& route) const { return url_.origin + url_.base_path + route; }

std::vector<std::string> OpenAiClient::models() {
  const std::string where = url("/v1/models");
  const httplib::Result res = http_->Get(url_.base_path + "/v1/models");
  if (!res) throw Error(where + ": " + connection_problem(res.error()));
  if (res->status != 200)
    throw Error(where + ": HTTP " + std::to_string(res->status) + ": " + server_message(res->body));
  const json j = json::parse(res->body, nullptr, false);
  if (!j.is_object() || !j.contains("data") || !j["data"].is_array())
    throw Error(where + ": the answer is not an OpenAI model list ({\"data\": [{\"id\": ...}]})");
  std::vector<std::string> ids;
  for (const json& m : j["data"])
    if (m.is_object() && m.contains("id") && m["id"].is_string()) ids.push_back(m["id"].get<std::string>());
  return ids;
}

StreamedCompletion OpenAiClient::complete(const std::string& model, const RemoteRequest& r,
                                          const std::function<bool()>& keep_going) {
  const std::string where = url("/v1/completions");
  json body = completion_body(r);
  body["model"] = model;
  httplib::Request req = event_stream_post(url_.base_path + "/v1/completions", body);
  int status = 0;
  std::string error_body;
  CompletionStream stream;
  bool timed_out = false, abandoned = false;
  auto start = Clock::now();
  req.response_handler = [&](const httplib::Response& res) {
    status = res.status;
    return true;
  };
  // Each read's bytes are stamped with their arrival; returning false
  // cancels the request.
  req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (status != 200) {
      error_body.append(data, n);
      return error_body.size() < kMaxErrorBody;
    }
    stream.feed({data, n}, ms);
    timed_out = ms > timeout_s_ * 1000 && !stream.result().done;
    abandoned = !timed_out && !keep_going();
    return !timed_out && !abandoned && stream.error().empty();
  };
  httplib::Response res;
  httplib::Error failure = httplib::Error::Success;
  bool sent = http_->send(req, res, failure);
  // A kept-alive connection that the server closed after its last answer
  // (llama-server does after every stream) fails before any byte of the
  // answer: the request never reached the server, so it goes once more, on
  // a new connection, timed from there.
  if (!sent && failure == httplib::Error::Read && status == 0) {
    start = Clock::now();
    sent = http_->send(req, res, failure);
  }
  const double elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
  if (abandoned) return stream.result();
  if (status != 0 && status != 200)
    throw Error(where + ": HTTP " + std::to_string(status) + ": " + server_message(error_body));
  if (!stream.error().empty()) throw Error(where + ": " + stream.error());
  // Whole at [DONE], though the server may have closed before the chunked body's end.
  if (stream.result().done) return stream.result();
  if (timed_out || (!sent && elapsed_s >= timeout_s_))
    throw Error(where + ": no whole answer within the timeout of " + std::to_string(std::lround(timeout_s_ * 1000)) +
                " ms (timeout_s)");
  if (!sent) throw Error(where + ": " + connection_problem(failure));
  throw Error(where + ": the stream ended without data: [DONE]");
}

OpenAiTarget::OpenAiTarget(const Target& target) : target_(target), url_(parse_target_url(target.url)) {
  reserve(1);
  const std::vector<std::string> listed = client(0).models();
  const std::string where = url_.origin + url_.base_path + "/v1/models";
  if (listed.empty()) throw Error(where + ": the server lists no model");
  model_ = target.model.empty() ? listed.front() : target.model;
  if (std::find(listed.begin(), listed.end(), model_) != listed.end()) return;
  std::string names;
  for (const std::string& id : listed) names += (names.empty() ? "" : ", ") + id;
  throw Error(where + ": the server does not serve the model '" + model_ + "' (it lists: " + names + ")");
}

void OpenAiTarget::reserve(size_t slots) {
  while (clients_.size() < slots) clients_.push_back(std::make_unique<OpenAiClient>(url_, target_.timeout_s));
}

void OpenAiTarget::answered_by(const std::string& model) {
  const std::lock_guard lock(mutex_);
  if (!model.empty()) server_model_ = model;
}

json OpenAiTarget::describe() const {
  const std::lock_guard lock(mutex_);
  nlohmann::json j = {{"kind", target_.kind}, {"url", target_.url}, {"model", model_}, {"timeout_s", target_.timeout_s}};
  if (!server_model_.empty()) j["server_model"] = server_model_;
  return j;
}

nlohmann::json engine_target_json() { return {{"kind", "engine"}}; }

}  // namespace pdbench::runner
