#include "bench/runner/sse_stream.h"

namespace pdbench::runner {

void SseParser::feed(std::string_view bytes) {
  for (const char c : bytes) {
    if (c == '\n' && after_cr_) {  // the LF of a CRLF: the line ended at the CR
      after_cr_ = false;
      continue;
    }
    after_cr_ = c == '\r';
    if (c == '\n' || c == '\r') {
      line(partial_);
      partial_.clear();
    } else {
      partial_ += c;
    }
  }
}

void SseParser::line(std::string_view text) {
  if (text.empty()) {  // a blank line dispatches the event, if it has data
    if (has_data_) on_event_(event_);
    event_ = {};
    has_data_ = false;
    return;
  }
  if (text.front() == ':') return;  // a comment
  const size_t colon = text.find(':');
  const std::string_view field = text.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (field == "data") {
    if (has_data_) event_.data += '\n';
    event_.data += value;
    has_data_ = true;
  } else if (field == "event") {
    event_.name = value;
  }
}

}  // namespace pdbench::runner
