// A scenario run against the real pdbench server on an ephemeral loopback
// port (stories260K): the same tokens as the engine in process, the
// results files written as an in-process run writes them, the target in
// meta.json; the run's refusals (an unreachable server, a server whose
// usage differs from what was asked, a resume on another target) and a
// stop mid-stream. Asserts no timing beyond "> 0".
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "bench/runner/csv_table.h"
#include "bench/runner/meta_json.h"
#include "bench/runner/openai_target.h"
#include "bench/runner/runner.h"
#include "engine/runtime/generator.h"
#include "server/http_server.h"
#include "tests/support/error_of.h"
#include "tests/support/test_paths.h"
#include "tests/target/fake_server.h"

namespace pdbench::runner {
namespace {

namespace fs = std::filesystem;

class TargetRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { engine_ = std::make_unique<Engine>(Engine::load(test::model_path("stories260K.gguf"))); }
  static void TearDownTestSuite() { engine_.reset(); }

  void SetUp() override {
    server::ServerOptions o;
    o.port = 0;
    o.model_name = "stories260K";
    o.loop.max_batch = 4;
    GeneratorOptions g;
    g.context = 256;
    server_ = std::make_unique<server::HttpServer>(*engine_, g, o);
    url_ = "http://127.0.0.1:" + std::to_string(server_->bind());
    listener_ = std::thread([this] { server_->listen(); });
  }
  void TearDown() override {
    server_->shutdown();
    listener_.join();
  }

  static std::unique_ptr<Engine> engine_;
  std::unique_ptr<server::HttpServer> server_;
  std::thread listener_;
  std::string url_;
};

std::unique_ptr<Engine> TargetRun::engine_;

// A scenario file in `dir` on stories260K sent to `url`, with `sweeps` after it.
Scenario scenario_at(const std::string& dir, const std::string& url, const std::string& sweeps) {
  const std::string text = "name = \"target\"\n[model]\npath = \"" + test::model_path("stories260K.gguf") +
                           "\"\n[target]\nkind = \"openai\"\nurl = \"" + url +
                           "\"\ntimeout_s = 60\n[measure]\nrepetitions = 2\nwarmup_max = 1\n" + sweeps;
  std::ofstream(dir + "/target.toml") << text;
  return load_scenario(dir + "/target.toml");
}

double number(const Table& t, const std::vector<std::string>& row, const std::string& column) {
  return std::stod(row[t.column(column)]);
}

TEST_F(TargetRun, GreedyTokensAreTheEnginesInProcess) {
  GenerateRequest request;
  request.prompt_ids = engine_->tokenizer().encode("Once upon a time", true);
  request.max_new_tokens = 24;
  request.sampling.temperature = 0;
  request.ignore_stop = true;
  GeneratorOptions options;
  options.context = 256;
  const GenerationResult want = Generator(*engine_, options).generate(request);

  Target target;
  target.kind = "openai";
  target.url = url_;
  OpenAiTarget remote(target);
  EXPECT_EQ(remote.model(), "stories260K");
  const StreamedCompletion got =
      remote.client(0).complete(remote.model(), {request.prompt_ids, 24, request.sampling}, [] { return true; });
  EXPECT_EQ(got.text, want.text);
  EXPECT_EQ(got.prompt_tokens, request.prompt_ids.size());
  EXPECT_EQ(got.completion_tokens, 24u);
  EXPECT_EQ(got.model, "stories260K");
  ASSERT_FALSE(got.chunk_ms.empty());
  EXPECT_GT(got.chunk_ms.front(), 0);
  for (size_t i = 1; i < got.chunk_ms.size(); ++i) EXPECT_GE(got.chunk_ms[i], got.chunk_ms[i - 1]);
}

TEST_F(TargetRun, AScenarioRunsEndToEndIntoTheSameFiles) {
  const std::string dir = test::temp_dir("target-run");
  const Scenario s = scenario_at(dir, url_,
                                 "[[sweep]]\nprompt_tokens = [8, 16]\noutput_tokens = 6\n"
                                 "[[sweep]]\nprompt_tokens = 8\noutput_tokens = 5\nrequests = 4\nmax_concurrency = 2\n");
  RunOptions options;
  options.out_dir = dir + "/out";
  const RunReport report = run_scenario(s, options, nullptr);
  EXPECT_TRUE(report.complete);
  EXPECT_EQ(report.cases, 3u);
  EXPECT_EQ(report.runs, 6u);

  const Table samples = read_csv(options.out_dir + "/samples.csv");
  ASSERT_EQ(samples.rows.size(), 6u);
  for (const auto& row : samples.rows) {
    const bool load = !row[samples.column("requests")].empty();
    EXPECT_EQ(row[samples.column("prompt_input")], "ids");
    EXPECT_EQ(row[samples.column("model")], "stories260K");  // the server's, not the tokenizer's file
    EXPECT_EQ(row[samples.column("weights")], "");
    EXPECT_GT(number(samples, row, "ttft_ms"), 0);
    EXPECT_GT(number(samples, row, "e2e_ms"), 0);
    if (!load) {
      EXPECT_EQ(number(samples, row, "generated_tokens"), 6);
      EXPECT_GT(number(samples, row, "itl_median_ms"), 0);
    }
  }
  const Table steps = read_csv(options.out_dir + "/steps.csv");
  EXPECT_FALSE(steps.rows.empty());
  for (const auto& row : steps.rows) EXPECT_GT(number(steps, row, "step_ms"), 0);
  const Table requests = read_csv(options.out_dir + "/requests.csv");
  EXPECT_EQ(requests.rows.size(), 8u);  // 4 requests x 2 repetitions
  for (const auto& row : requests.rows) {
    EXPECT_GT(number(requests, row, "ttft_ms"), 0);
    EXPECT_EQ(number(requests, row, "generated_tokens"), 5);
  }
  const Table summary = read_csv(options.out_dir + "/summary.csv");
  EXPECT_EQ(summary.rows.size(), 3u);

  const nlohmann::json meta = read_meta_json(options.out_dir);
  EXPECT_EQ(meta["target"]["kind"], "openai");
  EXPECT_EQ(meta["target"]["url"], url_);
  EXPECT_EQ(meta["target"]["model"], "stories260K");
  EXPECT_EQ(meta["target"]["server_model"], "stories260K");

  // The same folder resumed on another target is refused before any request.
  Scenario elsewhere = s;
  elsewhere.target.url = "http://127.0.0.1:1";
  options.resume = true;
  const std::string message = test::error_of([&] { run_scenario(elsewhere, options, nullptr); });
  EXPECT_NE(message.find("these results were measured on the server at " + url_ + ", not the server at http://127.0.0.1:1"),
            std::string::npos)
      << message;
}

TEST(TargetRunRefusals, AnUnreachableServerFailsBeforeTheFolderIsMade) {
  const std::string dir = test::temp_dir("target-refused");
  const std::string url = "http://127.0.0.1:" + std::to_string(test::closed_port());
  const Scenario s = scenario_at(dir, url, "[sweep]\nprompt_tokens = 8\noutput_tokens = 2\n");
  RunOptions options;
  options.out_dir = dir + "/out";
  const std::string message = test::error_of([&] { run_scenario(s, options, nullptr); });
  EXPECT_NE(message.find(url + "/v1/models: cannot connect"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(options.out_dir));
}

TEST(TargetRunRefusals, UsageOtherThanAskedIsAnErrorNamingTheCaseAndBothNumbers) {
  test::FakeServer server;
  server.list_model("m");
  server.http().Post("/v1/completions", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("data: {\"choices\": [{\"text\": \"a\", \"finish_reason\": \"stop\"}]}\n\n"
                    "data: {\"choices\": [], \"usage\": {\"prompt_tokens\": 8, \"completion_tokens\": 1}}\n\n"
                    "data: [DONE]\n\n",
                    "text/event-stream");
  });
  const std::string url = server.start();
  const std::string dir = test::temp_dir("target-usage");
  const Scenario s = scenario_at(dir, url, "[sweep]\nprompt_tokens = 8\noutput_tokens = 2\n");
  RunOptions options;
  options.out_dir = dir + "/out";
  const std::string message = test::error_of([&] { run_scenario(s, options, nullptr); });
  EXPECT_NE(message.find("case p8_n2_"), std::string::npos) << message;
  EXPECT_NE(message.find(url + " reported completion_tokens = 1 where max_tokens = 2"), std::string::npos) << message;
}

// Every run and every request of a load case sends a prompt of its own, so
// a server's prompt cache (llama-server's, on by default) serves none of
// them from another: the same length, BOS first, no two alike.
TEST(TargetRunPrompts, EveryRunAndRequestSendsItsOwnPrompt) {
  test::FakeServer server;
  server.list_model("m");
  std::mutex mutex;
  std::vector<std::vector<int32_t>> prompts;
  server.http().Post("/v1/completions", [&](const httplib::Request& req, httplib::Response& res) {
    const nlohmann::json body = nlohmann::json::parse(req.body);
    const auto prompt = body["prompt"].get<std::vector<int32_t>>();
    const int max_tokens = body["max_tokens"].get<int>();
    {
      const std::lock_guard lock(mutex);
      prompts.push_back(prompt);
    }
    std::string stream;
    for (int i = 0; i < max_tokens; ++i) stream += "data: {\"choices\": [{\"text\": \"a\"}]}\n\n";
    stream += "data: {\"choices\": [], \"usage\": {\"prompt_tokens\": " + std::to_string(prompt.size()) +
              ", \"completion_tokens\": " + std::to_string(max_tokens) + "}}\n\ndata: [DONE]\n\n";
    res.set_content(stream, "text/event-stream");
  });
  const std::string dir = test::temp_dir("target-prompts");
  const Scenario s = scenario_at(dir, server.start(),
                                 "[[sweep]]\nprompt_tokens = 8\noutput_tokens = 2\n"
                                 "[[sweep]]\nprompt_tokens = 8\noutput_tokens = 2\nrequests = 3\nmax_concurrency = 1\n");
  RunOptions options;
  options.out_dir = dir + "/out";
  EXPECT_TRUE(run_scenario(s, options, nullptr).complete);
  EXPECT_GE(prompts.size(), 2u + 3u * 2u);  // repetitions, and each load repetition's requests
  std::set<std::vector<int32_t>> distinct;
  for (const auto& p : prompts) {
    EXPECT_EQ(p.size(), 8u);
    EXPECT_EQ(p.front(), 1);  // stories260K's BOS
    distinct.insert(p);
  }
  EXPECT_EQ(distinct.size(), prompts.size());
}

// A stop request (Ctrl-C) while a request streams abandons it: the run ends
// with nothing of it written, as an in-process run's does.
TEST(TargetRunRefusals, AStopMidStreamAbandonsTheRequest) {
  test::FakeServer server;
  server.list_model("m");
  std::atomic<int> stop{0};
  server.http().Post("/v1/completions", [&](const httplib::Request&, httplib::Response& res) {
    stop = 2;  // SIGINT arrives while the answer streams
    server.keep_alive_forever(res);
  });
  const std::string url = server.start();
  const std::string dir = test::temp_dir("target-stop");
  const Scenario s = scenario_at(dir, url, "[sweep]\nprompt_tokens = 8\noutput_tokens = 2\n");
  RunOptions options;
  options.out_dir = dir + "/out";
  options.stop = &stop;
  const RunReport report = run_scenario(s, options, nullptr);
  EXPECT_EQ(report.stopped_by, 2);
  EXPECT_EQ(report.runs, 0u);
  EXPECT_TRUE(read_csv(options.out_dir + "/samples.csv").rows.empty());
}

}  // namespace
}  // namespace pdbench::runner
