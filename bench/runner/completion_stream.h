#pragma once
// The body of one streamed /v1/completions response, read as it arrives:
// server-sent events whose data is a JSON chunk (choices with text, a
// usage object, or an error) and, last, `data: [DONE]` (OpenAI's format,
// which llama-server, vLLM and pdbench serve follow). Each chunk with a
// choice is stamped with the time its bytes arrived.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/runner/sse_stream.h"

namespace pdbench::runner {

struct StreamedCompletion {
  // Each chunk that carries a token, in ms after the request was sent: one
  // token each from llama-server, vLLM and pdbench serve, though a server
  // may hold back a token whose text is not whole UTF-8 and send it with
  // the next.
  std::vector<double> chunk_ms;
  std::string text;
  std::string model;  // the "model" the chunks name
  // The usage the server reported (stream_options.include_usage).
  std::optional<size_t> prompt_tokens;
  std::optional<size_t> completion_tokens;
  bool done = false;  // data: [DONE] arrived
};

class CompletionStream {
 public:
  CompletionStream();
  CompletionStream(const CompletionStream&) = delete;
  CompletionStream& operator=(const CompletionStream&) = delete;

  // Bytes of the body as they arrive, `ms` after the send.
  void feed(std::string_view bytes, double ms);
  // The first problem met: an error event, a chunk that is not JSON; empty
  // while there is none. Events after it are ignored.
  const std::string& error() const { return error_; }
  const StreamedCompletion& result() const { return result_; }

 private:
  void event(const SseEvent& e);
  void chunk(std::string_view data);

  SseParser parser_;
  StreamedCompletion result_;
  std::string error_;
  double now_ms_ = 0;
};

}  // namespace pdbench::runner
