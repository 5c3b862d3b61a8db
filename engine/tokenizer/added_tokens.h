#pragma once
// Added tokens ("<|im_start|>", "<|endoftext|>", ...) are found in the text
// before pre-tokenization and become their own ids instead of being split.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pdbench {

class AddedTokenMatcher {
 public:
  struct Match {
    size_t begin;
    size_t length;
    int32_t id;
  };

  // (content, id) pairs; content is raw text.
  explicit AddedTokenMatcher(const std::vector<std::pair<std::string, int32_t>>& tokens);

  // The leftmost occurrence at or after `pos`, the longest one there.
  std::optional<Match> find(std::string_view text, size_t pos) const;

 private:
  // Candidates by first byte, longest first.
  std::array<std::vector<std::pair<std::string, int32_t>>, 256> by_first_byte_;
};

}  // namespace pdbench
