#pragma once
// The merge loop both BPE flavours share: fold the adjacent pair with the
// best priority (the leftmost one on ties) into one token, again and again,
// until no adjacent pair has a merge. Candidates wait in a priority queue and
// are dropped when popped if a neighbour changed meanwhile, so n symbols take
// O(n log n) instead of a rescan per merge.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <queue>
#include <vector>

namespace pdbench {

template <typename Priority>
struct PairMerge {
  Priority priority;  // higher merges first
  int32_t result;     // the token the pair becomes
};

// find_merge(left_id, right_id) returns std::optional<PairMerge<Priority>>.
template <typename Priority, typename FindMerge>
std::vector<int32_t> merge_pairs(const std::vector<int32_t>& initial, FindMerge find_merge) {
  constexpr size_t kNone = static_cast<size_t>(-1);
  struct Symbol {
    int32_t id;  // -1 once folded into its left neighbour
    size_t prev;
    size_t next;
  };
  std::vector<Symbol> symbols(initial.size());
  for (size_t i = 0; i < initial.size(); ++i) {
    symbols[i] = {initial[i], i == 0 ? kNone : i - 1, i + 1 < initial.size() ? i + 1 : kNone};
  }

  struct Candidate {
    Priority priority;
    size_t left;
    int32_t left_id;
    int32_t right_id;
    int32_t result;
  };
  const auto after = [](const Candidate& a, const Candidate& b) {
    return a.priority != b.priority ? a.priority < b.priority : a.left > b.left;
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(after)> queue(after);
  const auto consider = [&](size_t left) {
    const size_t right = symbols[left].next;
    if (right == kNone) return;
    const int32_t left_id = symbols[left].id;
    const int32_t right_id = symbols[right].id;
    if (const std::optional<PairMerge<Priority>> merge = find_merge(left_id, right_id)) {
      queue.push({merge->priority, left, left_id, right_id, merge->result});
    }
  };
  for (size_t i = 0; i + 1 < symbols.size(); ++i) consider(i);

  while (!queue.empty()) {
    const Candidate c = queue.top();
    queue.pop();
    Symbol& left = symbols[c.left];
    if (left.id != c.left_id || left.next == kNone || symbols[left.next].id != c.right_id) continue;
    const size_t right = left.next;
    left.id = c.result;
    left.next = symbols[right].next;
    if (left.next != kNone) symbols[left.next].prev = c.left;
    symbols[right].id = -1;
    if (left.prev != kNone) consider(left.prev);
    consider(c.left);
  }

  std::vector<int32_t> merged;
  for (size_t i = 0; i < symbols.size() && i != kNone; i = symbols[i].next) merged.push_back(symbols[i].id);
  return merged;
}

}  // namespace pdbench
