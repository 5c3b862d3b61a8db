#pragma once
// A stand-in for an OpenAI-compatible server on an ephemeral loopback
// port, for the client's error paths: the test gives its routes.
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

namespace pdbench::test {

class FakeServer {
 public:
  FakeServer() = default;
  ~FakeServer() { stop(); }
  FakeServer(const FakeServer&) = delete;
  FakeServer& operator=(const FakeServer&) = delete;

  httplib::Server& http() { return http_; }
  // Lists `model` at /v1/models, as every target needs.
  void list_model(const std::string& model) {
    http_.Get("/v1/models", [model](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"object": "list", "data": [{"id": ")" + model + R"(", "object": "model"}]})",
                      "application/json");
    });
  }
  // Binds and serves (connections made before listen() runs wait in the
  // socket's backlog); returns the base URL.
  std::string start() {
    port_ = http_.bind_to_any_port("127.0.0.1");
    listener_ = std::thread([this] { http_.listen_after_bind(); });
    return url();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // An answer that stays alive but never sends a token: an SSE comment
  // every 10 ms until the client leaves or the test ends.
  void keep_alive_forever(httplib::Response& res) {
    res.set_chunked_content_provider("text/event-stream", [this](size_t, httplib::DataSink& sink) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      const std::string comment = ": keep-alive\n\n";
      return !stopping_ && sink.write(comment.data(), comment.size());
    });
  }
  void stop() {
    stopping_ = true;
    if (!listener_.joinable()) return;
    // stop() before listen() has begun would be lost, and join wait forever.
    while (!http_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    http_.stop();
    listener_.join();
  }

 private:
  httplib::Server http_;
  std::thread listener_;
  std::atomic<bool> stopping_{false};  // set when the test ends: long-running answers return
  int port_ = 0;
};

// A loopback port with nothing listening: bound, then closed.
inline int closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t size = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &size);
  ::close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace pdbench::test
