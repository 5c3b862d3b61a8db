#include "server/http_server.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

#include <httplib.h>

#include "engine/format/gguf.h"
#include "engine/util/error.h"
#include "server/api_error.h"
#include "server/chat_template.h"
#include "server/completion_request.h"
#include "server/stop_text.h"

namespace pdbench::server {

namespace {

using nlohmann::json;
using std::chrono::milliseconds;

// How often a stream waiting for its next token writes an SSE comment: a
// client that left is found (the write fails) and its job cancelled.
constexpr milliseconds kKeepAlive{500};

enum class Api { Completions, Chat };

void send_json(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(), "application/json");
}

int64_t unix_time() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string finish_reason(const std::string& stop_reason) { return stop_reason == "length" ? "length" : "stop"; }

// One request's text, finish reason and counts as it streams.
struct Completion {
  std::shared_ptr<Job> job;
  StopText stop;
  Api api;
  std::string id;
  std::string model;
  bool include_usage;
  size_t completion_tokens = 0;
  std::string finish;  // "" until done
  bool role_sent = false;
  bool counted = false;

  // Counts the request in /metrics once, however it ended.
  void count(ServerMetrics& metrics, const std::string& reason) {
    if (counted) return;
    counted = true;
    metrics.request_finished(reason, std::chrono::duration<double>(ServerClock::now() - job->arrival()).count());
  }

  // Takes one event; returns the text to send now (and sets finish).
  std::string take(const TokenEvent& ev) {
    if (ev.id) ++completion_tokens;
    std::string text = stop.push(ev.text);
    if (stop.stopped()) {
      job->cancel();  // frees its blocks before the next step
      finish = "stop";
    } else if (!ev.stop_reason.empty()) {
      text += stop.finish();
      finish = finish_reason(ev.stop_reason);
    }
    return text;
  }

  json usage() const {
    const size_t p = job->prompt().size();
    return {{"prompt_tokens", p}, {"completion_tokens", completion_tokens}, {"total_tokens", p + completion_tokens}};
  }

  json choice(const std::string& text, bool streaming) {
    const json reason = finish.empty() ? json(nullptr) : json(finish);
    if (api == Api::Completions) return {{"index", 0}, {"text", text}, {"logprobs", nullptr}, {"finish_reason", reason}};
    json message = {{"content", text}};
    if (!streaming || !role_sent) message["role"] = "assistant";
    role_sent = true;
    return {{"index", 0}, {streaming ? "delta" : "message", message}, {"finish_reason", reason}};
  }

  // The response's envelope; OpenAI names a chat stream's pieces apart.
  json object(bool streaming) const {
    const char* kind = api == Api::Completions ? "text_completion" : streaming ? "chat.completion.chunk" : "chat.completion";
    return {{"id", id}, {"object", kind}, {"created", unix_time()}, {"model", model}};
  }

  json chunk(const std::string& text) {
    json j = object(true);
    j["choices"] = json::array({choice(text, true)});
    if (!finish.empty()) j["usage"] = usage();  // llama-server's habit; OpenAI's own chunk follows
    return j;
  }
};

std::string event(const json& j) { return "data: " + j.dump() + "\n\n"; }

bool write(httplib::DataSink& sink, const std::string& s) { return sink.write(s.data(), s.size()); }

}  // namespace

HttpServer::HttpServer(const Engine& engine, const GeneratorOptions& generator, const ServerOptions& options)
    : engine_(engine),
      options_(options),
      loop_(engine, generator, options.loop, metrics_),
      http_(std::make_unique<httplib::Server>()) {
  // Each open stream holds a thread: room for every slot and queued request.
  const size_t threads = std::min<size_t>(options.loop.max_batch + options.loop.max_waiting, 512) + 4;
  http_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  // Each token is a small write: with Nagle's algorithm on, every one after
  // the first waits for the client's delayed ACK, and a stream arrives in bursts.
  http_->set_tcp_nodelay(true);
  routes();
}

HttpServer::~HttpServer() = default;

int HttpServer::bind() {
  const int port = options_.port == 0 ? http_->bind_to_any_port(options_.host)
                                      : (http_->bind_to_port(options_.host, options_.port) ? options_.port : -1);
  if (port <= 0)
    throw Error("serve: cannot listen on " + options_.host + ":" + std::to_string(options_.port) +
                " (in use, or not an address of this machine)");
  return port;
}

void HttpServer::listen() {
  std::thread http([this] { http_->listen_after_bind(); });
  loop_.run();
  http.join();
}

void HttpServer::shutdown() {
  loop_.drain();
  streams_.wait_closed();
  http_->stop();
  loop_.stop();
}

namespace {

// The prompt of a request as token ids, checked against the vocabulary.
std::vector<int32_t> prompt_ids(const Engine& engine, const CompletionRequest& r, Api api) {
  const Tokenizer& tok = engine.tokenizer();
  if (api == Api::Chat) {
    const gguf::GgufFile* file = engine.model().gguf();
    const std::string source = file != nullptr ? file->get_string("tokenizer.chat_template", "") : "";
    return tok.encode(render_chat(chat_family(source), r.messages), true);
  }
  if (r.prompt_ids.empty()) return tok.encode(r.prompt_text, true);
  for (int32_t id : r.prompt_ids)
    if (id >= tok.n_vocab())
      throw invalid_field("prompt", "token id " + std::to_string(id) + " is outside the vocabulary of " +
                                        std::to_string(tok.n_vocab()));
  return r.prompt_ids;
}

GenerateRequest generate_request(const CompletionRequest& r, size_t prompt_tokens, size_t context, Api api) {
  GenerateRequest g;
  // Chat without max_tokens may use the rest of the context, as OpenAI's does.
  const size_t rest = context + 1 > prompt_tokens ? context + 1 - prompt_tokens : 1;
  g.max_new_tokens = r.max_tokens.value_or(api == Api::Chat ? rest : 16);
  g.sampling = r.sampling;
  if (!r.seed_given) g.sampling.seed = std::random_device{}();
  g.ignore_stop = r.ignore_eos;
  try {
    g.sampling.validate();
  } catch (const Error& e) {
    throw ApiError(400, "invalid_request_error", e.what());
  }
  return g;
}

}  // namespace

namespace {

void answer(ServerMetrics& metrics, const std::shared_ptr<Completion>& c, httplib::Response& res) {
  std::string text;
  while (c->finish.empty()) {
    const std::optional<TokenEvent> ev = c->job->next(kKeepAlive);
    if (ev) text += c->take(*ev);
    else if (c->job->ended()) throw ApiError(500, "server_error", "the request ended early: " + c->job->error());
  }
  json j = c->object(false);
  j["choices"] = json::array({c->choice(text, false)});
  j["usage"] = c->usage();
  c->count(metrics, c->finish);
  send_json(res, 200, j);
}

// `open` is released with the response, once its last chunk is written.
void stream(ServerMetrics& metrics, const std::shared_ptr<Completion>& c, std::shared_ptr<void> open,
            httplib::Response& res) {
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider(
      "text/event-stream",
      [&metrics, c, open](size_t, httplib::DataSink& sink) {
        std::optional<TokenEvent> ev = c->job->next(kKeepAlive);
        if (!ev && c->job->ended()) {  // the server stopped or the engine failed
          write(sink, event(ApiError(500, "server_error", "the request ended early: " + c->job->error()).to_json()));
          c->count(metrics, "abort");
          return false;
        }
        if (!ev) {  // nothing yet: a comment tells whether the client is still there
          if (write(sink, ": keep-alive\n\n")) return true;
          c->job->cancel();
          return false;
        }
        const std::string text = c->take(*ev);
        if ((!text.empty() || !c->finish.empty()) && !write(sink, event(c->chunk(text)))) {
          c->job->cancel();
          return false;
        }
        if (c->finish.empty()) return true;
        if (c->include_usage) {
          json u = c->object(true);
          u["choices"] = json::array();
          u["usage"] = c->usage();
          write(sink, event(u));
        }
        write(sink, "data: [DONE]\n\n");
        c->count(metrics, c->finish);
        sink.done();
        return true;
      },
      [&metrics, c](bool success) {
        if (success) return;
        c->count(metrics, "abort");
        c->job->cancel();  // the client left: the loop frees its blocks
      });
}

}  // namespace

void HttpServer::routes() {
  auto guarded = [this](auto handler) {
    return [this, handler](const httplib::Request& req, httplib::Response& res) {
      try {
        handler(req, res);
      } catch (const ApiError& e) {
        metrics_.request_refused();
        send_json(res, e.status, e.to_json());
      } catch (const std::exception& e) {
        metrics_.request_refused();
        send_json(res, 500, ApiError(500, "server_error", e.what()).to_json());
      }
    };
  };
  auto completion = [this](Api api) {
    return [this, api](const httplib::Request& req, httplib::Response& res) {
      const CompletionRequest r = api == Api::Chat ? parse_chat_request(req.body) : parse_completion_request(req.body);
      if (!r.model.empty() && r.model != options_.model_name)
        throw ApiError(404, "invalid_request_error",
                       "the model '" + r.model + "' is not served here; this server serves '" + options_.model_name + "'",
                       "model", "model_not_found");
      std::vector<int32_t> ids = prompt_ids(engine_, r, api);
      const GenerateRequest g = generate_request(r, ids.size(), loop_.context(), api);
      static std::atomic<uint64_t> counter{0};
      auto c = std::make_shared<Completion>(Completion{loop_.submit(std::move(ids), g), StopText(r.stop), api,
                                                       (api == Api::Chat ? "chatcmpl-" : "cmpl-") + std::to_string(++counter),
                                                       options_.model_name, r.include_usage, 0, "", false, false});
      if (r.stream)
        stream(metrics_, c, streams_.open(), res);
      else
        answer(metrics_, c, res);
    };
  };
  http_->Post("/v1/completions", guarded(completion(Api::Completions)));
  http_->Post("/v1/chat/completions", guarded(completion(Api::Chat)));
  http_->Get("/v1/models", guarded([this](const httplib::Request&, httplib::Response& res) {
    const ModelConfig& c = engine_.model().config();
    send_json(res, 200,
              {{"object", "list"},
               {"data", json::array({{{"id", options_.model_name}, {"object", "model"}, {"created", unix_time()},
                                      {"owned_by", "pdbench"},
                                      {"meta", {{"n_vocab", c.vocab}, {"n_ctx", loop_.context()},
                                                {"file", engine_.model().path()}}}}})}});
  }));
  http_->Get("/health", [](const httplib::Request&, httplib::Response& res) { send_json(res, 200, {{"status", "ok"}}); });
  http_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics_.prometheus(loop_.gauges()), "text/plain; version=0.0.4");
  });
  http_->Get("/debug/profile", [this](const httplib::Request&, httplib::Response& res) {
    send_json(res, 200, loop_.recent_profile());
  });
  http_->set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    const std::string message = res.status == 404 ? "no route " + req.method + " " + req.path : "bad request";
    send_json(res, res.status, ApiError(res.status, "invalid_request_error", message).to_json());
  });
}

}  // namespace pdbench::server
