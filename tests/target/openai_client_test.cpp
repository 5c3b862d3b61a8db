// The HTTP client of a remote target against stand-in servers: what it
// sends, and each way a request can fail, each an Error naming the URL.
#include <gtest/gtest.h>
#include <poll.h>

#include <nlohmann/json.hpp>
#include <cstdio>
#include <string>
#include <thread>

#include "bench/runner/openai_target.h"
#include "tests/support/error_of.h"
#include "tests/target/fake_server.h"

namespace pdbench::runner {
namespace {

using nlohmann::json;

RemoteRequest request() {
  RemoteRequest r;
  r.prompt_ids = {1, 2, 3};
  r.max_tokens = 2;
  r.sampling.temperature = 0;
  return r;
}

Target target_at(const std::string& url, double timeout_s = 30) {
  Target t;
  t.kind = "openai";
  t.url = url;
  t.timeout_s = timeout_s;
  return t;
}

// The first error of one completion against the server.
std::string completion_error(const std::string& url, double timeout_s = 30) {
  return test::error_of([&] { OpenAiClient(parse_target_url(url), timeout_s).complete("m", request(), [] { return true; }); });
}

const char* const kGoodStream =
    "data: {\"model\": \"m\", \"choices\": [{\"text\": \"a\", \"finish_reason\": null}]}\n\n"
    "data: {\"model\": \"m\", \"choices\": [{\"text\": \"b\", \"finish_reason\": \"length\"}]}\n\n"
    "data: {\"model\": \"m\", \"choices\": [], \"usage\": {\"prompt_tokens\": 3, \"completion_tokens\": 2}}\n\n"
    "data: [DONE]\n\n";

TEST(OpenAiClient, SendsTokenIdsIgnoreEosAndUsageAndReadsTheStream) {
  test::FakeServer server;
  json seen;
  server.http().Post("/v1/completions", [&](const httplib::Request& req, httplib::Response& res) {
    seen = json::parse(req.body);
    res.set_content(kGoodStream, "text/event-stream");
  });
  const std::string url = server.start();
  const StreamedCompletion s = OpenAiClient(parse_target_url(url), 30).complete("m", request(), [] { return true; });
  EXPECT_EQ(seen["prompt"], json({1, 2, 3}));
  EXPECT_EQ(seen["max_tokens"], 2);
  EXPECT_EQ(seen["model"], "m");
  EXPECT_EQ(seen["stream"], true);
  EXPECT_EQ(seen["stream_options"]["include_usage"], true);
  EXPECT_EQ(seen["ignore_eos"], true);
  EXPECT_EQ(seen["temperature"], 0);
  EXPECT_FALSE(seen.contains("seed"));  // greedy needs none
  EXPECT_TRUE(s.done);
  EXPECT_EQ(s.text, "ab");
  EXPECT_EQ(s.chunk_ms.size(), 2u);
  EXPECT_EQ(s.completion_tokens, 2u);
}

// One request read from the socket: its headers, then as many body bytes
// as Content-Length says; false when the client closed first.
bool read_request(int fd) {
  std::string request;
  char buf[4096];
  for (;;) {
    const size_t head = request.find("\r\n\r\n");
    if (head != std::string::npos &&
        request.size() >= head + 4 + std::stoul(request.substr(request.find("Content-Length: ") + 16)))
      return true;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) return false;
    request.append(buf, static_cast<size_t>(n));
  }
}

// The next connection, or -1 after `seconds`.
int accept_within(int listener, int seconds) {
  pollfd p{listener, POLLIN, 0};
  return ::poll(&p, 1, seconds * 1000) == 1 ? ::accept(listener, nullptr, nullptr) : -1;
}

// A server whose answers say keep-alive but that reads the next request on
// the connection and closes it unanswered (llama-server after a stream): the
// client sees the connection break before any answer, and sends the
// request again on a new connection.
TEST(OpenAiClient, ARequestOnAConnectionTheServerDropsGoesAgain) {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 4), 0);
  socklen_t size = sizeof addr;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &size);
  const std::string body = kGoodStream;
  char chunk_size[16];
  std::snprintf(chunk_size, sizeof chunk_size, "%zx\r\n", body.size());
  const std::string answer = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
                             "Keep-Alive: timeout=5, max=100\r\n\r\n" +
                             std::string(chunk_size) + body + "\r\n0\r\n\r\n";
  int requests_read = 0;
  const auto answer_one = [&](int fd) {
    if (!read_request(fd)) return;
    ++requests_read;
    EXPECT_EQ(::write(fd, answer.data(), answer.size()), static_cast<ssize_t>(answer.size()));
  };
  std::thread server([&] {
    const int first = accept_within(listener, 10);
    answer_one(first);
    if (read_request(first)) ++requests_read;  // dropped unanswered
    ::close(first);
    const int second = accept_within(listener, 10);  // none without the retry
    if (second < 0) return;
    answer_one(second);
    ::close(second);
  });
  OpenAiClient client(parse_target_url("http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port))), 30);
  for (int i = 0; i < 2; ++i) {
    std::string text;
    EXPECT_EQ(test::error_of([&] { text = client.complete("m", request(), [] { return true; }).text; }), "no error")
        << "request " << i;
    EXPECT_EQ(text, "ab") << "request " << i;
  }
  server.join();
  ::close(listener);
  EXPECT_EQ(requests_read, 3);
}

TEST(OpenAiClient, SamplingSettingsOffTheirDefaultsAreSent) {
  RemoteRequest r = request();
  r.sampling.temperature = 0.8f;
  r.sampling.top_k = 40;
  r.sampling.seed = 42;
  const json body = completion_body(r);
  EXPECT_FLOAT_EQ(body["temperature"].get<float>(), 0.8f);
  EXPECT_EQ(body["top_k"], 40);
  EXPECT_EQ(body["seed"], 42);
  EXPECT_FALSE(body.contains("min_p"));
}

TEST(OpenAiClient, AnHttpErrorCarriesTheStatusAndTheServersMessage) {
  test::FakeServer server;
  server.http().Post("/v1/completions", [](const httplib::Request&, httplib::Response& res) {
    res.status = 400;
    res.set_content(R"({"error": {"message": "max_tokens is too large", "type": "invalid_request_error"}})",
                    "application/json");
  });
  const std::string url = server.start();
  EXPECT_EQ(completion_error(url), url + "/v1/completions: HTTP 400: max_tokens is too large");
}

TEST(OpenAiClient, ARefusedConnectionNamesTheUrl) {
  const std::string url = "http://127.0.0.1:" + std::to_string(test::closed_port());
  const std::string message = completion_error(url);
  EXPECT_NE(message.find(url + "/v1/completions: cannot connect"), std::string::npos) << message;
  const std::string listing = test::error_of([&] { OpenAiTarget{target_at(url)}; });
  EXPECT_NE(listing.find(url + "/v1/models: cannot connect"), std::string::npos) << listing;
}

TEST(OpenAiClient, AStreamThatNeverFinishesTimesOut) {
  test::FakeServer server;
  server.http().Post("/v1/completions",
                     [&](const httplib::Request&, httplib::Response& res) { server.keep_alive_forever(res); });
  const std::string url = server.start();
  const std::string message = completion_error(url, 0.2);
  EXPECT_NE(message.find(url + "/v1/completions: no whole answer within the timeout of 200 ms (timeout_s)"),
            std::string::npos)
      << message;
}

TEST(OpenAiClient, ErrorEventsAndCutStreamsAreErrors) {
  test::FakeServer server;
  server.http().Post("/v1/completions", [](const httplib::Request& req, httplib::Response& res) {
    const bool cut = json::parse(req.body)["max_tokens"] == 3;
    res.set_content(cut ? "data: {\"choices\": [{\"text\": \"a\"}]}\n\n"
                        : "data: {\"error\": {\"message\": \"the engine failed\"}}\n\n",
                    "text/event-stream");
  });
  const std::string url = server.start();
  EXPECT_EQ(completion_error(url), url + "/v1/completions: the server sent an error in the stream: the engine failed");
  RemoteRequest three = request();
  three.max_tokens = 3;
  const std::string cut = test::error_of([&] { OpenAiClient(parse_target_url(url), 30).complete("m", three, [] { return true; }); });
  EXPECT_EQ(cut, url + "/v1/completions: the stream ended without data: [DONE]");
}

TEST(OpenAiTarget, TakesTheFirstListedModelAndRefusesOneNotListed) {
  test::FakeServer server;
  server.list_model("served-model");
  const std::string url = server.start();
  EXPECT_EQ(OpenAiTarget(target_at(url)).model(), "served-model");
  Target named = target_at(url);
  named.model = "other";
  EXPECT_EQ(test::error_of([&] { OpenAiTarget{named}; }),
            url + "/v1/models: the server does not serve the model 'other' (it lists: served-model)");
}

}  // namespace
}  // namespace pdbench::runner
