#include "server/chat_template.h"

#include <string_view>
#include <utility>

#include "server/api_error.h"

namespace pdbench::server {

namespace {

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\n\r");
  if (b == std::string_view::npos) return "";
  return std::string(s.substr(b, s.find_last_not_of(" \t\n\r") - b + 1));
}

std::string llama3(const std::vector<ChatMessage>& messages) {
  std::string out;
  for (const ChatMessage& m : messages)
    out += "<|start_header_id|>" + m.role + "<|end_header_id|>\n\n" + trim(m.content) + "<|eot_id|>";
  return out + "<|start_header_id|>assistant<|end_header_id|>\n\n";
}

std::string chatml(const std::vector<ChatMessage>& messages) {
  std::string out;
  for (const ChatMessage& m : messages) out += "<|im_start|>" + m.role + "\n" + m.content + "<|im_end|>\n";
  return out + "<|im_start|>assistant\n";
}

// Gemma has no system turn: its text opens the first user turn.
std::string gemma(const std::vector<ChatMessage>& messages) {
  std::string out;
  std::string system;
  for (const ChatMessage& m : messages) {
    if (m.role == "system") {
      system += m.content + "\n\n";
      continue;
    }
    const std::string content = (m.role == "user" ? std::exchange(system, "") : "") + trim(m.content);
    out += "<start_of_turn>" + std::string(m.role == "assistant" ? "model" : "user") + "\n" + content +
           "<end_of_turn>\n";
  }
  return out + "<start_of_turn>model\n";
}

}  // namespace

ChatFamily chat_family(const std::string& source) {
  if (source.empty())
    throw ApiError(400, "invalid_request_error", "the model file has no chat template (tokenizer.chat_template)");
  if (source.find("<|start_header_id|>") != std::string::npos) return ChatFamily::Llama3;
  if (source.find("<|im_start|>") != std::string::npos) return ChatFamily::ChatMl;
  if (source.find("<start_of_turn>") != std::string::npos) return ChatFamily::Gemma;
  throw ApiError(400, "invalid_request_error",
                 "the model's chat template is not one pdbench renders (llama-3, chatml, gemma): it begins '" +
                     source.substr(0, 60) + "'");
}

std::string render_chat(ChatFamily family, const std::vector<ChatMessage>& messages) {
  switch (family) {
    case ChatFamily::Llama3: return llama3(messages);
    case ChatFamily::ChatMl: return chatml(messages);
    case ChatFamily::Gemma: return gemma(messages);
  }
  return "";
}

}  // namespace pdbench::server
