// The SSE parser and the completion stream on top of it: bytes cut at any
// point, line endings, comments, [DONE], error events.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bench/runner/completion_stream.h"
#include "bench/runner/sse_stream.h"

namespace pdbench::runner {
namespace {

std::vector<SseEvent> events_of(const std::vector<std::string>& pieces) {
  std::vector<SseEvent> events;
  SseParser parser([&](const SseEvent& e) { events.push_back(e); });
  for (const std::string& p : pieces) parser.feed(p);
  return events;
}

TEST(SseParser, EveryCutOfTheBytesGivesTheSameEvents) {
  const std::string stream = "data: {\"a\": 1}\n\n: keep-alive\n\nevent: error\ndata: x\n\ndata: [DONE]\n\n";
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    const auto events = events_of({stream.substr(0, cut), stream.substr(cut)});
    ASSERT_EQ(events.size(), 3u) << "cut at " << cut;
    EXPECT_EQ(events[0].data, "{\"a\": 1}");
    EXPECT_EQ(events[1].name, "error");
    EXPECT_EQ(events[1].data, "x");
    EXPECT_EQ(events[2].data, "[DONE]");
  }
  std::vector<std::string> bytes;
  for (char c : stream) bytes.emplace_back(1, c);
  EXPECT_EQ(events_of(bytes).size(), 3u);
}

TEST(SseParser, CrLfAndCrEndLinesAsLfDoes) {
  for (const std::string eol : {"\n", "\r\n", "\r"}) {
    const auto events = events_of({"data: one" + eol + eol + "data:two" + eol + eol});
    ASSERT_EQ(events.size(), 2u) << "line end of " << eol.size() << " bytes";
    EXPECT_EQ(events[0].data, "one");
    EXPECT_EQ(events[1].data, "two");  // no space after the colon: the value as it is
  }
  // A CRLF cut between its CR and its LF is one line end, not two.
  const auto events = events_of({"data: a\r", "\n\r", "\n"});
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "a");
}

TEST(SseParser, CommentsAndEventsWithoutDataDispatchNothing) {
  EXPECT_TRUE(events_of({": keep-alive\n\n:\n\nid: 7\nretry: 10\n\nevent: ping\n\n"}).empty());
  EXPECT_TRUE(events_of({"data: not ended yet\n"}).empty());  // no blank line yet
}

TEST(SseParser, DataLinesOfOneEventJoinWithLf) {
  const auto events = events_of({"data: a\ndata:\ndata: b\n\n"});
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "a\n\nb");
}

std::string chunk(const std::string& text, const std::string& finish = "null") {
  return "data: {\"model\": \"m\", \"choices\": [{\"index\": 0, \"text\": \"" + text + "\", \"finish_reason\": " + finish +
         "}]}\n\n";
}

TEST(CompletionStream, StampsEachTokenChunkWithItsArrivalAndReadsTheUsage) {
  CompletionStream s;
  s.feed(chunk("Once"), 10);
  s.feed(": keep-alive\n\n", 15);
  s.feed(chunk(" upon") + chunk(" a"), 20);  // two chunks in one read arrive together
  s.feed(chunk("", "\"length\""), 25);         // OpenAI's closing chunk: no token
  s.feed("data: {\"choices\": [], \"usage\": {\"prompt_tokens\": 4, \"completion_tokens\": 3}}\n\n", 26);
  EXPECT_FALSE(s.result().done);
  s.feed("data: [DONE]\n\n", 27);
  s.feed(chunk(" late"), 30);  // nothing counts after [DONE]
  const StreamedCompletion& r = s.result();
  EXPECT_TRUE(r.done);
  EXPECT_TRUE(s.error().empty());
  EXPECT_EQ(r.text, "Once upon a");
  EXPECT_EQ(r.chunk_ms, (std::vector<double>{10, 20, 20}));
  EXPECT_EQ(r.model, "m");
  EXPECT_EQ(r.prompt_tokens, 4u);
  EXPECT_EQ(r.completion_tokens, 3u);
}

TEST(CompletionStream, ErrorsInTheStreamAreKeptWithTheServersMessage) {
  CompletionStream object;
  object.feed(chunk("a") + "data: {\"error\": {\"message\": \"the engine failed\", \"type\": \"server_error\"}}\n\n", 1);
  EXPECT_NE(object.error().find("the engine failed"), std::string::npos) << object.error();
  CompletionStream named;
  named.feed("event: error\ndata: {\"message\": \"overloaded\"}\n\n", 1);
  EXPECT_NE(named.error().find("overloaded"), std::string::npos) << named.error();
  CompletionStream garbage;
  garbage.feed("data: <html>\n\n", 1);
  EXPECT_NE(garbage.error().find("not a JSON object"), std::string::npos) << garbage.error();
}

TEST(CompletionStream, NoUsageLeavesTheCountsUnset) {
  CompletionStream s;
  s.feed(chunk("a") + "data: [DONE]\n\n", 1);
  EXPECT_TRUE(s.result().done);
  EXPECT_FALSE(s.result().prompt_tokens);
  EXPECT_FALSE(s.result().completion_tokens);
}

}  // namespace
}  // namespace pdbench::runner
