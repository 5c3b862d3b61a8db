#pragma once
// A GGUF's tokenizer.chat_template rendered for the families whose
// templates pdbench reproduces: llama-3 (<|start_header_id|>), chatml
// (<|im_start|>: Qwen, SmolLM) and gemma (<start_of_turn>). Other templates
// (a Jinja interpreter's job) are refused by name, never guessed.
#include <string>
#include <vector>

#include "server/completion_request.h"

namespace pdbench::server {

enum class ChatFamily { Llama3, ChatMl, Gemma };

// The family of a template's source; ApiError 400 naming the template's
// opening when it is none of them, or when there is no template.
ChatFamily chat_family(const std::string& template_source);

// The conversation as the template renders it, with the assistant's turn
// opened (add_generation_prompt). BOS is left to the tokenizer.
std::string render_chat(ChatFamily family, const std::vector<ChatMessage>& messages);

}  // namespace pdbench::server
