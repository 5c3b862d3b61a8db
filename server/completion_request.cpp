#include "server/completion_request.h"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "server/api_error.h"

namespace pdbench::server {

namespace {

using nlohmann::json;

json parse_body(std::string_view body) {
  json j;
  try {
    j = json::parse(body);
  } catch (const json::parse_error& e) {
    throw ApiError(400, "invalid_request_error", std::string("the body is not valid JSON: ") + e.what());
  }
  if (!j.is_object()) throw ApiError(400, "invalid_request_error", "the body must be a JSON object");
  return j;
}

// A field's value when present and not null.
const json* field(const json& body, const char* name) {
  const auto it = body.find(name);
  return it == body.end() || it->is_null() ? nullptr : &*it;
}

double number_in(const json& body, const char* name, double lo, double hi, double fallback) {
  const json* v = field(body, name);
  if (v == nullptr) return fallback;
  if (!v->is_number()) throw invalid_field(name, "expected a number");
  const double x = v->get<double>();
  if (!(x >= lo && x <= hi))
    throw invalid_field(name, "expected a number from " + json(lo).dump() + " to " + json(hi).dump() + ", got " +
                                  v->dump());
  return x;
}

// A whole number in [lo, hi] (a JSON 16.0 counts; 16.5 does not).
std::optional<int64_t> integer_in(const json& body, const char* name, int64_t lo, int64_t hi) {
  const json* v = field(body, name);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number() || (v->is_number_float() && std::floor(v->get<double>()) != v->get<double>()))
    throw invalid_field(name, "expected an integer, got " + v->dump());
  const double x = v->get<double>();
  if (x < static_cast<double>(lo) || x > static_cast<double>(hi))
    throw invalid_field(name, "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi) +
                                  ", got " + v->dump());
  return v->is_number_unsigned() ? static_cast<int64_t>(v->get<uint64_t>()) : v->get<int64_t>();
}

bool flag(const json& body, const char* name) {
  const json* v = field(body, name);
  if (v == nullptr) return false;
  if (!v->is_boolean()) throw invalid_field(name, "expected true or false");
  return v->get<bool>();
}

std::vector<std::string> stop_strings(const json& body) {
  const json* v = field(body, "stop");
  if (v == nullptr) return {};
  if (v->is_string()) return v->get<std::string>().empty() ? std::vector<std::string>{} : std::vector{v->get<std::string>()};
  if (!v->is_array() || v->size() > kMaxStopStrings)
    throw invalid_field("stop", "expected a string or an array of at most 4 strings");
  std::vector<std::string> out;
  for (const json& s : *v) {
    if (!s.is_string()) throw invalid_field("stop", "expected strings, got " + s.dump());
    if (!s.get<std::string>().empty()) out.push_back(s.get<std::string>());
  }
  return out;
}

// Refuses what the engine cannot do rather than ignoring it.
void refuse_unsupported(const json& body) {
  if (const auto n = integer_in(body, "n", 1, 1000); n && *n != 1)
    throw invalid_field("n", "only one choice per request is supported");
  if (flag(body, "echo")) throw invalid_field("echo", "echoing the prompt is not supported");
  if (const json* v = field(body, "logprobs"); v != nullptr && !(v->is_boolean() && !v->get<bool>()))
    throw invalid_field("logprobs", "log-probabilities are not supported");
  if (const json* v = field(body, "best_of"); v != nullptr && *v != 1)
    throw invalid_field("best_of", "only best_of 1 is supported");
}

// The fields both endpoints share.
CompletionRequest common_fields(const json& body) {
  refuse_unsupported(body);
  CompletionRequest r;
  if (const json* m = field(body, "model")) {
    if (!m->is_string()) throw invalid_field("model", "expected a string");
    r.model = m->get<std::string>();
  }
  if (const auto n = integer_in(body, "max_tokens", 1, int64_t{1} << 24)) r.max_tokens = static_cast<size_t>(*n);
  SamplingParams& s = r.sampling;
  s.temperature = static_cast<float>(number_in(body, "temperature", 0, 100, 1.0));
  s.top_p = static_cast<float>(number_in(body, "top_p", 0, 1, 1.0));
  if (s.top_p == 0) throw invalid_field("top_p", "expected a number above 0 and at most 1, got 0");
  s.top_k = static_cast<int>(integer_in(body, "top_k", -1, std::numeric_limits<int>::max()).value_or(0));
  if (s.top_k < 0) s.top_k = 0;  // llama-server's "off"
  s.min_p = static_cast<float>(number_in(body, "min_p", 0, 1, 0.0));
  s.frequency_penalty = static_cast<float>(number_in(body, "frequency_penalty", -2, 2, 0.0));
  s.presence_penalty = static_cast<float>(number_in(body, "presence_penalty", -2, 2, 0.0));
  s.repeat_penalty = static_cast<float>(number_in(body, "repeat_penalty", 0.01, 100, 1.0));
  if (const auto seed = integer_in(body, "seed", std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max())) {
    s.seed = static_cast<uint64_t>(*seed);
    r.seed_given = true;
  }
  r.stop = stop_strings(body);
  r.ignore_eos = flag(body, "ignore_eos");
  r.stream = flag(body, "stream");
  if (const json* o = field(body, "stream_options")) {
    if (!o->is_object()) throw invalid_field("stream_options", "expected an object");
    r.include_usage = flag(*o, "include_usage");
  }
  return r;
}

// A prompt as text, as token ids, or a one-element array of either (what
// OpenAI's batch form looks like with one prompt).
void read_prompt(const json& body, CompletionRequest& r) {
  const json* p = field(body, "prompt");
  if (p == nullptr) throw invalid_field("prompt", "a prompt is required");
  if (p->is_array() && p->size() == 1 && ((*p)[0].is_string() || (*p)[0].is_array())) p = &(*p)[0];
  if (p->is_string()) {
    r.prompt_text = p->get<std::string>();
    if (r.prompt_text.empty()) throw invalid_field("prompt", "the prompt is empty");
    return;
  }
  if (!p->is_array()) throw invalid_field("prompt", "expected a string or an array of token ids");
  if (p->empty()) throw invalid_field("prompt", "the prompt is empty");
  for (const json& id : *p) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > std::numeric_limits<int32_t>::max())
      throw invalid_field("prompt", "expected one prompt: a string or an array of token ids, got " + id.dump());
    r.prompt_ids.push_back(id.get<int32_t>());
  }
}

std::vector<ChatMessage> read_messages(const json& body) {
  const json* m = field(body, "messages");
  if (m == nullptr || !m->is_array() || m->empty())
    throw invalid_field("messages", "expected a non-empty array of {role, content}");
  std::vector<ChatMessage> out;
  for (const json& msg : *m) {
    if (!msg.is_object()) throw invalid_field("messages", "expected objects, got " + msg.dump());
    const json* role = field(msg, "role");
    const json* content = field(msg, "content");
    if (role == nullptr || !role->is_string()) throw invalid_field("messages", "a message without a role string");
    const std::string r = role->get<std::string>();
    if (r != "system" && r != "user" && r != "assistant")
      throw invalid_field("messages", "role '" + r + "' is not one of system, user, assistant");
    if (content == nullptr || !content->is_string())
      throw invalid_field("messages", "content must be a string (parts and images are not supported)");
    out.push_back({r, content->get<std::string>()});
  }
  return out;
}

}  // namespace

CompletionRequest parse_completion_request(std::string_view body) {
  const json j = parse_body(body);
  CompletionRequest r = common_fields(j);
  read_prompt(j, r);
  return r;
}

CompletionRequest parse_chat_request(std::string_view body) {
  const json j = parse_body(body);
  CompletionRequest r = common_fields(j);
  if (const auto n = integer_in(j, "max_completion_tokens", 1, int64_t{1} << 24)) r.max_tokens = static_cast<size_t>(*n);
  r.messages = read_messages(j);
  return r;
}

}  // namespace pdbench::server
