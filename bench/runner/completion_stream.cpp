#include "bench/runner/completion_stream.h"

#include <nlohmann/json.hpp>

namespace pdbench::runner {

namespace {

using nlohmann::json;

// An error object's message: OpenAI's {"error": {"message": ...}}, or
// whatever the server put there.
std::string error_message(const json& error) {
  if (error.is_object() && error.contains("message") && error["message"].is_string())
    return error["message"].get<std::string>();
  return error.dump();
}

std::optional<size_t> count(const json& usage, const char* key) {
  if (!usage.contains(key) || !usage[key].is_number_unsigned()) return std::nullopt;
  return usage[key].get<size_t>();
}

}  // namespace

CompletionStream::CompletionStream() : parser_([this](const SseEvent& e) { event(e); }) {}

void CompletionStream::feed(std::string_view bytes, double ms) {
  now_ms_ = ms;
  parser_.feed(bytes);
}

void CompletionStream::event(const SseEvent& e) {
  if (!error_.empty() || result_.done) return;
  if (e.data == "[DONE]") {
    result_.done = true;
    return;
  }
  if (e.name == "error") {
    const json j = json::parse(e.data, nullptr, false);
    error_ = "the server sent an error event: " + (j.is_discarded() ? e.data : error_message(j.value("error", j)));
    return;
  }
  chunk(e.data);
}

void CompletionStream::chunk(std::string_view data) {
  const json j = json::parse(data, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    error_ = "the stream holds an event that is not a JSON object: " + std::string(data.substr(0, 200));
    return;
  }
  if (j.contains("error")) {
    error_ = "the server sent an error in the stream: " + error_message(j["error"]);
    return;
  }
  if (j.contains("model") && j["model"].is_string()) result_.model = j["model"].get<std::string>();
  if (j.contains("usage") && j["usage"].is_object()) {
    result_.prompt_tokens = count(j["usage"], "prompt_tokens");
    result_.completion_tokens = count(j["usage"], "completion_tokens");
  }
  if (!j.contains("choices") || !j["choices"].is_array() || j["choices"].empty()) return;  // the usage chunk
  const json& choice = j["choices"][0];
  const std::string text = choice.contains("text") && choice["text"].is_string() ? choice["text"].get<std::string>() : "";
  // OpenAI ends a stream with an empty chunk that only names the finish
  // reason: no token arrived with it.
  if (text.empty() && choice.contains("finish_reason") && !choice["finish_reason"].is_null()) return;
  result_.text += text;
  result_.chunk_ms.push_back(now_ms_);
}

}  // namespace pdbench::runner
