#pragma once
// Server-sent events (the WHATWG EventSource format) cut out of a byte
// stream that arrives in pieces of any size: a line may be split across
// reads, end in LF, CRLF or CR, and an event ends at a blank line. Comment
// lines (": keep-alive") are dropped; `data:` lines of one event are
// joined with LF; `event:` names it; `id:` and `retry:` are ignored.
#include <functional>
#include <string>
#include <string_view>

namespace pdbench::runner {

struct SseEvent {
  std::string name;  // `event:`; empty for the default "message"
  std::string data;
};

class SseParser {
 public:
  using Handler = std::function<void(const SseEvent&)>;
  explicit SseParser(Handler on_event) : on_event_(std::move(on_event)) {}

  // Takes the next bytes; calls the handler for each event they complete.
  void feed(std::string_view bytes);

 private:
  void line(std::string_view text);

  Handler on_event_;
  std::string partial_;      // a line not ended yet
  bool after_cr_ = false;    // the last byte was CR: an LF next ends nothing more
  SseEvent event_;
  bool has_data_ = false;    // a data: line was seen (an empty data line counts)
};

}  // namespace pdbench::runner
