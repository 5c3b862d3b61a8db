// Soak over HTTP (scripts/soak.sh; DISABLED_ so ctest skips it): the
// in-process soak's 2,000 mixed requests (tests/support/soak.h) sent to
// pdbench serve on loopback by 8 clients at once, one request in ten a
// client that hangs up mid-stream. After every wave of 100 each KV block is
// free again and memory in use has not grown past the first wave's; every
// request that stayed gets the text it gets alone, greedy or sampled.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "engine/runtime/engine.h"
#include "engine/runtime/generator.h"
#include "server/http_server.h"
#include "tests/support/soak.h"
#include "tests/support/test_paths.h"

namespace pdbench::server {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr size_t kWaves = 20, kPerWave = 100, kClients = 8;

bool hangs_up(size_t i) { return i % 10 == 7; }

json body_of(const GenerateRequest& r, bool stream) {
  return {{"prompt", r.prompt},
          {"max_tokens", r.max_new_tokens},
          {"temperature", r.sampling.temperature},
          {"seed", r.sampling.seed},
          {"stream", stream}};
}

// A streamed request whose client reads two chunks, then closes.
void hang_up(httplib::Client& c, const GenerateRequest& r) {
  httplib::Request req;
  req.method = "POST";
  req.path = "/v1/completions";
  req.body = body_of(r, true).dump();
  req.set_header("Content-Type", "application/json");
  int chunks = 0;
  req.content_receiver = [&](const char*, size_t, uint64_t, uint64_t) { return ++chunks < 2; };
  (void)c.send(req);
}

size_t blocks_in_use(httplib::Client& c) {
  const auto res = c.Get("/metrics");
  const std::string key = "\npdbench:kv_cache_blocks_used ";
  const size_t at = res ? res->body.find(key) : std::string::npos;
  return at == std::string::npos ? ~size_t{0} : std::stoul(res->body.substr(at + key.size()));
}

TEST(HttpSoak, DISABLED_TwoThousandRequestsOverHttpReturnTheirBlocksAndKeepTheirText) {
  const Engine engine = Engine::load(test::model_path("stories260K.gguf"));
  GeneratorOptions g;
  g.context = 128;
  ServerOptions o;
  o.port = 0;
  o.model_name = "stories260K";
  o.loop.max_batch = 8;
  HttpServer server(engine, g, o);
  const int port = server.bind();
  std::thread listener([&] { server.listen(); });

  // The alone texts get an engine of their own: one engine's forward pass
  // serves one thread at a time, and the server's loop may still be running
  // a hung-up request's steps while they are computed.
  const Engine alone_engine = Engine::load(test::model_path("stories260K.gguf"));
  Generator alone(alone_engine, g);
  std::map<std::tuple<std::string, size_t, float, uint64_t>, std::string> alone_text;
  const auto started = Clock::now();
  size_t first_wave_memory = 0;
  for (size_t wave = 0; wave < kWaves; ++wave) {
    std::vector<std::string> text(kPerWave);
    std::vector<int> status(kPerWave, 0);
    std::atomic<size_t> next{0};
    std::vector<std::thread> clients;
    for (size_t k = 0; k < kClients; ++k)
      clients.emplace_back([&] {
        httplib::Client c("127.0.0.1", port);
        c.set_read_timeout(60, 0);
        for (size_t i; (i = next++) < kPerWave;) {
          const GenerateRequest r = test::soak_request(wave * kPerWave + i);
          if (hangs_up(wave * kPerWave + i)) {
            hang_up(c, r);
            continue;
          }
          const auto res = c.Post("/v1/completions", body_of(r, false).dump(), "application/json");
          status[i] = res ? res->status : -1;
          if (res && res->status == 200) text[i] = json::parse(res->body)["choices"][0]["text"];
        }
      });
    for (auto& t : clients) t.join();

    for (size_t i = 0; i < kPerWave; ++i) {
      if (hangs_up(wave * kPerWave + i)) continue;
      ASSERT_EQ(status[i], 200) << "wave " << wave << " request " << i;
      const GenerateRequest r = test::soak_request(wave * kPerWave + i);
      const auto key = std::tuple(r.prompt, r.max_new_tokens, r.sampling.temperature, r.sampling.seed);
      if (!alone_text.contains(key)) alone_text[key] = alone.generate(r).text;
      ASSERT_EQ(text[i], alone_text[key]) << "wave " << wave << " request " << i;
    }
    // The hung-up requests' blocks come back at the loop's next steps.
    httplib::Client c("127.0.0.1", port);
    size_t used = blocks_in_use(c);
    for (int tries = 0; tries < 200 && used != 0; ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      used = blocks_in_use(c);
    }
    ASSERT_EQ(used, 0u) << "wave " << wave;
    const size_t memory = test::memory_in_use();
    if (wave == 0) first_wave_memory = memory;
    EXPECT_LE(memory, first_wave_memory + test::kSoakMemorySlack) << "wave " << wave << ": memory in use grew";
    if (wave == 0 || wave + 1 == kWaves)
      std::printf("http soak: after wave %zu of %zu, heap in use %.1f MiB, resident %.1f MiB, %.1f s\n", wave + 1,
                  kWaves, static_cast<double>(memory) / (1 << 20),
                  static_cast<double>(test::resident_bytes()) / (1 << 20),
                  std::chrono::duration<double>(Clock::now() - started).count());
  }
  server.shutdown();
  listener.join();
}

}  // namespace
}  // namespace pdbench::server
