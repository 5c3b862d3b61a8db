// pdbench serve's API on an ephemeral loopback port, over the trained
// stories260K model: completions, streaming, token-id prompts, every error
// path, a client leaving mid-stream, concurrent clients, /metrics, drain.
#include <atomic>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "engine/runtime/engine.h"
#include "engine/runtime/generator.h"
#include "server/http_server.h"
#include "tests/support/greedy.h"
#include "tests/support/test_paths.h"

namespace pdbench::server {
namespace {

using nlohmann::json;

class ServeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { engine_ = std::make_unique<Engine>(Engine::load(test::model_path("stories260K.gguf"))); }
  static void TearDownTestSuite() { engine_.reset(); }

  void SetUp() override { start(4); }
  void TearDown() override { stop(); }

  void start(size_t slots) {
    ServerOptions o;
    o.port = 0;
    o.model_name = "stories260K";
    o.loop.max_batch = slots;
    GeneratorOptions g;
    g.context = 256;
    server_ = std::make_unique<HttpServer>(*engine_, g, o);
    port_ = server_->bind();
    listener_ = std::thread([this] { server_->listen(); });
  }
  void stop() {
    if (!server_) return;
    server_->shutdown();
    listener_.join();
    server_.reset();
  }

  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(60, 0);
    return c;
  }
  httplib::Result post(const std::string& path, const json& body) const {
    return client().Post(path.c_str(), body.dump(), "application/json");
  }
  // Reads an SSE stream whole: each data payload before [DONE].
  std::vector<json> stream(const json& body) const {
    std::string raw;
    httplib::Client c = client();
    auto res = c.Post("/v1/completions", body.dump(), "application/json");
    EXPECT_TRUE(res);
    raw = res->body;
    std::vector<json> events;
    size_t at = 0;
    while ((at = raw.find("data: ", at)) != std::string::npos) {
      const size_t end = raw.find("\n\n", at);
      const std::string payload = raw.substr(at + 6, end - at - 6);
      at = end;
      if (payload == "[DONE]") break;
      events.push_back(json::parse(payload));
    }
    return events;
  }
  size_t blocks_in_use() const {
    auto res = client().Get("/metrics");
    const std::string key = "\npdbench:kv_cache_blocks_used ";
    const size_t at = res->body.find(key);
    return std::stoul(res->body.substr(at + key.size()));
  }

  static std::unique_ptr<Engine> engine_;
  std::unique_ptr<HttpServer> server_;
  std::thread listener_;
  int port_ = 0;
};

std::unique_ptr<Engine> ServeTest::engine_;

// What the engine generates greedily for the prompt on its own.
GenerationResult alone(const Engine& engine, const std::string& prompt, size_t n) {
  return test::generate_greedy(engine, ForwardKind::Fast, prompt, n, 256);
}

TEST_F(ServeTest, CompletionIsTheEnginesGreedyText) {
  auto res = post("/v1/completions", {{"prompt", "Once upon a time"}, {"max_tokens", 40}, {"temperature", 0}});
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  const json j = json::parse(res->body);
  const GenerationResult want = alone(*engine_, "Once upon a time", 40);
  EXPECT_EQ(j["object"], "text_completion");
  EXPECT_EQ(j["model"], "stories260K");
  EXPECT_EQ(j["choices"][0]["text"], want.text);
  EXPECT_EQ(j["choices"][0]["finish_reason"], want.stop_reason == "length" ? "length" : "stop");
  EXPECT_EQ(j["usage"]["prompt_tokens"], want.prompt_ids.size());
  EXPECT_EQ(j["usage"]["completion_tokens"], want.ids.size());
}

TEST_F(ServeTest, TokenIdPromptsAndIgnoreEosGiveExactLengths) {
  const GenerationResult want = alone(*engine_, "Once upon a time", 4);
  auto res = post("/v1/completions",
                  {{"prompt", want.prompt_ids}, {"max_tokens", 200}, {"temperature", 0}, {"ignore_eos", true}});
  ASSERT_EQ(res->status, 200) << res->body;
  const json j = json::parse(res->body);
  EXPECT_EQ(j["usage"]["prompt_tokens"], want.prompt_ids.size());
  EXPECT_EQ(j["usage"]["completion_tokens"], 200);
  EXPECT_EQ(j["choices"][0]["finish_reason"], "length");
}

TEST_F(ServeTest, StreamCarriesTheSameTextAndUsageLast) {
  const GenerationResult want = alone(*engine_, "Once upon a time", 30);
  const auto events = stream({{"prompt", "Once upon a time"}, {"max_tokens", 30}, {"temperature", 0},
                              {"stream", true}, {"stream_options", {{"include_usage", true}}}});
  ASSERT_GE(events.size(), 2u);
  std::string text;
  for (const json& e : events)
    if (!e["choices"].empty()) text += e["choices"][0]["text"].get<std::string>();
  EXPECT_EQ(text, want.text);
  EXPECT_TRUE(events.back()["choices"].empty());
  EXPECT_EQ(events.back()["usage"]["completion_tokens"], want.ids.size());
}

TEST_F(ServeTest, StopStringEndsTheTextBeforeIt) {
  const GenerationResult want = alone(*engine_, "Once upon a time", 60);
  const std::string stop = want.text.substr(20, 3);
  auto res = post("/v1/completions", {{"prompt", "Once upon a time"}, {"max_tokens", 60}, {"temperature", 0}, {"stop", stop}});
  const json j = json::parse(res->body);
  EXPECT_EQ(j["choices"][0]["text"], want.text.substr(0, want.text.find(stop)));
  EXPECT_EQ(j["choices"][0]["finish_reason"], "stop");
}

TEST_F(ServeTest, ConcurrentClientsGetTheTokensTheyWouldAlone) {
  const std::vector<std::string> prompts = {"Once upon a time", "Lily had a dog", "The sun was", "Tom and Sam", "A bird"};
  std::vector<std::string> want;  // first: the engine's pass serves one thread at a time
  for (const std::string& p : prompts) want.push_back(alone(*engine_, p, 50).text);
  std::vector<std::future<std::string>> answers;
  for (const std::string& p : prompts)
    answers.push_back(std::async(std::launch::async, [&, p] {
      auto res = post("/v1/completions", {{"prompt", p}, {"max_tokens", 50}, {"temperature", 0}});
      return json::parse(res->body)["choices"][0]["text"].get<std::string>();
    }));
  for (size_t i = 0; i < prompts.size(); ++i) EXPECT_EQ(answers[i].get(), want[i]) << prompts[i];
}

TEST_F(ServeTest, BadRequestsGetOpenAiShaped4xx) {
  struct Case {
    std::string body;
    int status;
    std::string param;
  };
  const std::vector<Case> cases = {
      {"{not json", 400, ""},
      {R"({"prompt": "x", "model": "gpt-9"})", 404, "model"},
      {R"({"prompt": "x", "max_tokens": 100000})", 400, "max_tokens"},
      {R"({"prompt": "x", "max_tokens": 255})", 400, "max_tokens"},
      {R"({"prompt": "x", "temperature": -1})", 400, "temperature"},
      {R"({"prompt": [1, 99999]})", 400, "prompt"},
      {R"({"prompt": ""})", 400, "prompt"},
      {R"({"max_tokens": 4})", 400, "prompt"},
      {R"({"prompt": "x", "n": 2})", 400, "n"},
      {R"({"prompt": "x", "stop": 3})", 400, "stop"},
  };
  for (const Case& c : cases) {
    auto res = client().Post("/v1/completions", c.body, "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, c.status) << c.body << " -> " << res->body;
    const json j = json::parse(res->body);
    EXPECT_TRUE(j["error"]["message"].is_string()) << res->body;
    if (!c.param.empty()) {
      EXPECT_EQ(j["error"]["param"], c.param) << c.body;
    }
  }
  std::string long_prompt;
  for (int i = 0; i < 300; ++i) long_prompt += "dog ";
  auto res = post("/v1/completions", {{"prompt", long_prompt}, {"max_tokens", 1}});
  EXPECT_EQ(res->status, 400) << res->body;
  EXPECT_EQ(client().Get("/v1/nothing")->status, 404);
}

TEST_F(ServeTest, ChatWithoutATemplateIsRefusedByName) {
  auto res = post("/v1/chat/completions", {{"messages", json::array({{{"role", "user"}, {"content", "hi"}}})}});
  EXPECT_EQ(res->status, 400);
  EXPECT_NE(res->body.find("chat template"), std::string::npos) << res->body;
}

TEST_F(ServeTest, AClientLeavingMidStreamFreesItsBlocks) {
  {
    httplib::Client c = client();
    std::atomic<int> chunks{0};
    httplib::Request req;
    req.method = "POST";
    req.path = "/v1/completions";
    req.body = json({{"prompt", "Once upon a time"}, {"max_tokens", 250}, {"ignore_eos", true}, {"stream", true}}).dump();
    req.set_header("Content-Type", "application/json");
    req.content_receiver = [&](const char*, size_t, uint64_t, uint64_t) { return ++chunks < 3; };  // then hang up
    (void)c.send(req);
    EXPECT_GE(chunks.load(), 3);
  }
  size_t used = 1;
  for (int i = 0; i < 200 && used != 0; ++i) {  // bounded: the loop frees them at its next step
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    used = blocks_in_use();
  }
  EXPECT_EQ(used, 0u);
}

TEST_F(ServeTest, MetricsAreParsablePrometheusText) {
  post("/v1/completions", {{"prompt", "Once"}, {"max_tokens", 5}});
  const std::string text = client().Get("/metrics")->body;
  std::istringstream in(text);
  std::string line;
  size_t samples = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line.starts_with("# HELP ") || line.starts_with("# TYPE ")) continue;
    const size_t space = line.rfind(' ');
    ASSERT_NE(space, std::string::npos) << line;
    EXPECT_TRUE(line.starts_with("pdbench:")) << line;
    EXPECT_NO_THROW((void)std::stod(line.substr(space + 1))) << line;
    ++samples;
  }
  EXPECT_GT(samples, 20u);
  EXPECT_NE(text.find("pdbench:generation_tokens_total 5"), std::string::npos) << text;
  EXPECT_NE(text.find("pdbench:time_to_first_token_seconds_count 1"), std::string::npos);
}

TEST_F(ServeTest, ModelsHealthAndProfileAnswer) {
  EXPECT_EQ(json::parse(client().Get("/v1/models")->body)["data"][0]["id"], "stories260K");
  EXPECT_EQ(json::parse(client().Get("/health")->body)["status"], "ok");
  post("/v1/completions", {{"prompt", "Once"}, {"max_tokens", 5}});
  const json p = json::parse(client().Get("/debug/profile")->body);
  EXPECT_EQ(p["phases"]["prefill"]["steps"], 1);
  EXPECT_EQ(p["phases"]["decode"]["steps"], 4);
  EXPECT_TRUE(p["phases"]["decode"]["ops"].contains("ffn_down")) << p.dump();
}

TEST_F(ServeTest, ShutdownFinishesWhatIsInFlightAndRefusesNewWork) {
  auto running = std::async(std::launch::async, [&] {
    return post("/v1/completions", {{"prompt", "Once"}, {"max_tokens", 200}, {"ignore_eos", true}});
  });
  for (int i = 0; i < 500 && blocks_in_use() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  auto stopping = std::async(std::launch::async, [&] { stop(); });
  auto res = running.get();
  ASSERT_TRUE(res);
  EXPECT_EQ(json::parse(res->body)["usage"]["completion_tokens"], 200);
  stopping.get();
}

}  // namespace
}  // namespace pdbench::server
