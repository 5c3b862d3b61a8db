#pragma once
// The body of POST /v1/completions and /v1/chat/completions, read and
// checked: a malformed body or field is an ApiError (400) naming the field.
// Fields the engine has no use for (user, logit_bias of none, ...) are
// ignored, as OpenAI-compatible servers do; ones it cannot honour (n > 1,
// echo, logprobs) are refused.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/sampling/sampling_params.h"

namespace pdbench::server {

struct ChatMessage {
  std::string role;  // system, user, assistant
  std::string content;
};

struct CompletionRequest {
  std::string model;  // "" when not given
  // /v1/completions: the prompt as text or as token ids (one of them).
  std::string prompt_text;
  std::vector<int32_t> prompt_ids;
  // /v1/chat/completions: the conversation.
  std::vector<ChatMessage> messages;
  std::optional<size_t> max_tokens;  // none: the endpoint's default
  SamplingParams sampling;
  bool seed_given = false;
  std::vector<std::string> stop;  // generation ends before the first of these
  bool ignore_eos = false;        // generate max_tokens whatever is sampled
  bool stream = false;
  bool include_usage = false;     // stream_options.include_usage
};

inline constexpr size_t kMaxStopStrings = 4;  // OpenAI's limit

CompletionRequest parse_completion_request(std::string_view body);
CompletionRequest parse_chat_request(std::string_view body);

}  // namespace pdbench::server
