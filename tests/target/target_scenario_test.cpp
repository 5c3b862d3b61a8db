// [target] in a scenario, the --target flags' URL check, and the axes a
// remote target refuses by name.
#include <gtest/gtest.h>

#include <string>

#include "bench/runner/scenario.h"
#include "bench/runner/target.h"
#include "tests/support/error_of.h"

namespace pdbench::runner {
namespace {

const std::string kModel = "[model]\npath = \"m.gguf\"\n";

Scenario parsed(const std::string& text) { return parse_scenario(kModel + text, "s.toml"); }

// The error a scenario gets when parsed and checked as a run checks it.
std::string refusal(const std::string& text) {
  return test::error_of([&] { require_supported(parsed(text)); });
}

TEST(TargetScenario, DefaultsToTheEngineAndReadsAnOpenAiTarget) {
  EXPECT_FALSE(parsed("").target.remote());
  const Target t = parsed("[target]\nkind = \"openai\"\nurl = \"http://127.0.0.1:8080\"\nmodel = \"m\"\ntimeout_s = 1.5\n").target;
  EXPECT_TRUE(t.remote());
  EXPECT_EQ(t.url, "http://127.0.0.1:8080");
  EXPECT_EQ(t.model, "m");
  EXPECT_EQ(t.timeout_s, 1.5);
  EXPECT_EQ(parsed("[target]\nkind = \"openai\"\nurl = \"http://h:1\"\n").target.timeout_s, 600);
}

TEST(TargetScenario, BadFieldsAreNamedWithTheirLine) {
  const auto error = [](const std::string& text) { return test::error_of([&] { parsed(text); }); };
  EXPECT_NE(error("[target]\nkind = \"grpc\"\n").find("s.toml:4: key 'kind' = \"grpc\" is not one of: engine, openai"),
            std::string::npos);
  EXPECT_NE(error("[target]\nkind = \"openai\"\nurl = \"ftp://h:1\"\n").find("s.toml:5: key 'url' 'ftp://h:1' is not an http"),
            std::string::npos);
  EXPECT_NE(error("[target]\nkind = \"openai\"\nurl = \"127.0.0.1:8080\"\n").find("write the scheme"), std::string::npos);
  EXPECT_NE(error("[target]\nkind = \"openai\"\nurl = \"http://h:99999\"\n").find("the port '99999'"), std::string::npos);
  EXPECT_NE(error("[target]\nkind = \"openai\"\n").find("key 'url' is needed with kind = \"openai\""), std::string::npos);
  EXPECT_NE(error("[target]\nkind = \"openai\"\nurl = \"http://h\"\ntimeout_s = 0\n").find("key 'timeout_s' must be a number of seconds above 0"),
            std::string::npos);
  EXPECT_NE(error("[target]\nkind = \"openai\"\nurl = \"http://h\"\ntimeout_s = -3\n").find("'timeout_s'"), std::string::npos);
  EXPECT_NE(error("[target]\nurl = \"http://h\"\n").find("key 'url' needs kind = \"openai\""), std::string::npos);
  EXPECT_NE(error("[target]\nkind = \"openai\"\nurl = \"http://h\"\nport = 1\n").find("unknown key 'port' in [target]"),
            std::string::npos);
}

TEST(TargetScenario, EngineSettingsAreRefusedByNameForARemoteTarget) {
  const std::string remote = "[target]\nkind = \"openai\"\nurl = \"http://h:1\"\n";
  for (const std::string axis : {"kv_type_k = \"f16\"", "kv_type_v = \"q8_0\"", "kv_block = 32", "kv_capacity = 512",
                                 "kv_cache = \"off\"", "threads = 2", "context_depth = 64", "batch = 4",
                                 "prefix_sharing = \"on\"", "weight_type = \"q8_0\""}) {
    const std::string key = axis.substr(0, axis.find(' '));
    const std::string message = refusal(remote + "[sweep]\n" + axis + "\n");
    EXPECT_NE(message.find("key '" + key + "' cannot be set with [target] kind = \"openai\""), std::string::npos)
        << axis << ": " << message;
  }
  EXPECT_NE(refusal(remote + "[sweep]\nkv_type_k = \"f16\"\n").find("KV cache is set where the server starts"),
            std::string::npos);
  EXPECT_NE(refusal(remote + "[accuracy]\n").find("[accuracy] cannot be set"), std::string::npos);
  // Their defaults written out are no setting at all.
  EXPECT_EQ(refusal(remote + "[sweep]\nkv_type_k = \"f32\"\nthreads = 0\nbatch = 1\n"), "no error");
  // The engine target takes them as before.
  EXPECT_EQ(refusal("[sweep]\nkv_type_k = \"f16\"\nthreads = 2\n"), "no error");
}

TEST(TargetUrl, ALoopbackHostServesFromThisMachine) {
  const auto here = [](const std::string& url) { return serves_from_this_machine({"openai", url, "", 600, 0}); };
  EXPECT_TRUE(here("http://127.0.0.1:8080"));
  EXPECT_TRUE(here("http://localhost:8080/v1"));
  EXPECT_TRUE(here("http://[::1]:8080"));
  EXPECT_TRUE(here("http://127.0.0.2"));
  EXPECT_FALSE(here("http://10.0.0.5:8080"));
  EXPECT_FALSE(here("https://api.example.com/v1"));
  EXPECT_FALSE(serves_from_this_machine(Target{}));  // the in-process engine
  EXPECT_EQ(parse_target_url("http://[::1]:8080").host, "[::1]");
}

TEST(TargetUrl, CutsOriginAndPrefix) {
  EXPECT_EQ(parse_target_url("http://127.0.0.1:8080").origin, "http://127.0.0.1:8080");
  EXPECT_EQ(parse_target_url("http://127.0.0.1:8080/").base_path, "");
  EXPECT_EQ(parse_target_url("http://h:1/v1").base_path, "");  // an OpenAI SDK's base URL
  EXPECT_EQ(parse_target_url("https://h/api/v1/").base_path, "/api");
  EXPECT_EQ(parse_target_url("http://[::1]:8080").origin, "http://[::1]:8080");
  EXPECT_NE(test::error_of([] { parse_target_url("http://:80"); }).find("names no host"), std::string::npos);
  EXPECT_NE(test::error_of([] { parse_target_url("http://h:1?x=1"); }).find("no user, query or fragment"),
            std::string::npos);
}

}  // namespace
}  // namespace pdbench::runner
