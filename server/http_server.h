#pragma once
// `pdbench serve`: the OpenAI-compatible HTTP API (cpp-httplib, one thread
// per connection from a bounded pool) over one ServingLoop. Routes:
// POST /v1/completions and /v1/chat/completions (server-sent events with
// "stream": true), GET /v1/models, /health, /metrics (Prometheus text) and
// /debug/profile (the per-op time of the last steps). Every refusal is an
// OpenAI-shaped JSON error with a 4xx status.
#include <memory>
#include <string>

#include "engine/runtime/engine.h"
#include "server/open_streams.h"
#include "server/serving_loop.h"

namespace httplib {
class Server;
}

namespace pdbench::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;            // 0: any free port (bind() says which)
  std::string model_name;     // what /v1/models lists and requests may name
  LoopOptions loop;
};

class HttpServer {
 public:
  HttpServer(const Engine& engine, const GeneratorOptions& generator, const ServerOptions& options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds the socket; returns the port. Error when it cannot.
  int bind();
  // Serves until shutdown() (call bind() first): HTTP on a thread of its
  // own, the engine's loop on the calling thread (ServingLoop::run says
  // why: call it from the thread that loaded the engine).
  void listen();
  // Refuses new requests (503), lets every queued and running one finish
  // and every stream write its last event, then stops listen().
  void shutdown();

 private:
  void routes();

  const Engine& engine_;
  ServerOptions options_;
  ServerMetrics metrics_;
  ServingLoop loop_;
  OpenStreams streams_;
  std::unique_ptr<httplib::Server> http_;
};

}  // namespace pdbench::server
