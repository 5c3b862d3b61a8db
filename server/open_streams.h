#pragma once
// The server-sent event streams still being written. httplib stops calling
// a chunked content provider once Server::stop() has run, so a stream whose
// job has ended but whose last events are unwritten would lose its tail:
// shutdown waits for every stream to close before it stops the server.
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>

namespace pdbench::server {

class OpenStreams {
 public:
  // Held by a stream's content provider; its release closes the stream.
  std::shared_ptr<void> open() {
    std::lock_guard lock(mutex_);
    ++open_;
    return std::shared_ptr<void>(nullptr, [this](void*) {
      std::lock_guard released(mutex_);
      if (--open_ == 0) closed_.notify_all();
    });
  }

  void wait_closed() {
    std::unique_lock lock(mutex_);
    closed_.wait(lock, [&] { return open_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable closed_;
  size_t open_ = 0;
};

}  // namespace pdbench::server
