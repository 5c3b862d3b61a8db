#include "engine/tokenizer/added_tokens.h"

#include <algorithm>

namespace pdbench {

AddedTokenMatcher::AddedTokenMatcher(const std::vector<std::pair<std::string, int32_t>>& tokens) {
  for (const auto& token : tokens) {
    if (!token.first.empty()) by_first_byte_[static_cast<uint8_t>(token.first[0])].push_back(token);
  }
  for (auto& bucket : by_first_byte_) {
    std::stable_sort(bucket.begin(), bucket.end(),
                     [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  }
}

std::optional<AddedTokenMatcher::Match> AddedTokenMatcher::find(std::string_view text, size_t pos) const {
  for (size_t i = pos; i < text.size(); ++i) {
    for (const auto& [content, id] : by_first_byte_[static_cast<uint8_t>(text[i])]) {
      if (text.substr(i).starts_with(content)) return Match{i, content.size(), id};
    }
  }
  return std::nullopt;
}

}  // namespace pdbench
