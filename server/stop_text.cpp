#include "server/stop_text.h"

#include <algorithm>

namespace pdbench::server {

namespace {

// The longest suffix of `text` shorter than `stop` that begins it.
size_t partial_match(std::string_view text, std::string_view stop) {
  for (size_t n = std::min(text.size(), stop.size() - 1); n > 0; --n)
    if (text.substr(text.size() - n) == stop.substr(0, n)) return n;
  return 0;
}

}  // namespace

StopText::StopText(std::vector<std::string> stops) : stops_(std::move(stops)) {
  std::erase_if(stops_, [](const std::string& s) { return s.empty(); });
}

std::string StopText::push(std::string_view text) {
  if (stopped_) return "";
  pending_ += text;
  size_t first = std::string::npos;
  for (const std::string& s : stops_) first = std::min(first, pending_.find(s));
  if (first != std::string::npos) {
    stopped_ = true;
    std::string out = pending_.substr(0, first);
    pending_.clear();
    return out;
  }
  size_t hold = 0;
  for (const std::string& s : stops_) hold = std::max(hold, partial_match(pending_, s));
  std::string out = pending_.substr(0, pending_.size() - hold);
  pending_.erase(0, pending_.size() - hold);
  return out;
}

std::string StopText::finish() {
  std::string out = stopped_ ? "" : pending_;
  pending_.clear();
  return out;
}

}  // namespace pdbench::server
