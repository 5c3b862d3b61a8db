// pdbench serve: the engine behind an OpenAI-compatible HTTP API
// (server/http_server.h), until SIGINT or SIGTERM, which drain it: no new
// requests (503), the ones in flight finish, then the process exits 0.
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>

#include <pthread.h>

#include "bench/pdbench/commands.h"
#include "bench/pdbench/options.h"
#include "bench/pdbench/stop_signals.h"
#include "server/http_server.h"

namespace pdbench::cli {

namespace {

struct ServeArgs {
  ModelOptions model;
  server::ServerOptions server;
};

// SIGINT and SIGTERM blocked in every thread (so before any starts), then
// taken by sigwait on this one.
sigset_t block_stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

void run(ServeArgs args) {
  const sigset_t stop = block_stop_signals();
  apply_threads(args.model);
  const Engine engine = Engine::load(args.model.model, args.model.tokenizer);
  if (args.server.model_name.empty()) args.server.model_name = std::filesystem::path(args.model.model).stem().string();
  server::HttpServer http(engine, generator_options(args.model), args.server);
  const int port = http.bind();
  std::fprintf(stderr, "serve: %s on http://%s:%d (%zu slots)\n", args.server.model_name.c_str(),
               args.server.host.c_str(), port, args.server.loop.max_batch);
  std::thread on_signal([&] {
    int signal = 0;
    sigwait(&stop, &signal);
    std::fprintf(stderr, "serve: %s: draining the requests in flight\n", signal_name(signal));
    http.shutdown();
  });
  http.listen();  // the engine's loop here, where the engine was loaded (ServingLoop::run)
  on_signal.join();
  std::fprintf(stderr, "serve: stopped\n");
}

}  // namespace

void register_serve(CLI::App& app) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* cmd = app.add_subcommand("serve", "Serve the model over an OpenAI-compatible HTTP API");
  cmd->footer(
      "Routes: POST /v1/completions, /v1/chat/completions; GET /v1/models, /health, /metrics, /debug/profile.\n"
      "Example: pdbench serve -m models/stories260K.gguf --port 8080");
  add_model_options(*cmd, args->model);
  cmd->add_option("--host", args->server.host, "Address to listen on")->capture_default_str();
  cmd->add_option("--port", args->server.port, "Port to listen on; 0 = any free one (printed)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  cmd->add_option("-a,--alias", args->server.model_name, "Model name the API shows (default: the file's stem)");
  cmd->add_option("--max-concurrency,--parallel", args->server.loop.max_batch,
                  "Requests decoding at once (batch slots), each with a context of -c tokens")
      ->capture_default_str()
      ->check(counting_number());
  cmd->add_option("--max-waiting", args->server.loop.max_waiting, "Requests queued beyond the slots; more get 503")
      ->capture_default_str()
      ->check(counting_number());
  cmd->add_option("--prefill-chunk", args->server.loop.prefill_chunk,
                  "Most prompt tokens a step prefills, a long prompt over several steps; 0 = whole prompts")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--profile-steps", args->server.loop.profile_steps, "Steps GET /debug/profile covers")
      ->capture_default_str()
      ->check(counting_number());
  cmd->callback([args] { run(*args); });
}

}  // namespace pdbench::cli
