#include "bench/pdbench/stop_signals.h"

#include <unistd.h>

#include <csignal>
#include <cstring>

#include "engine/util/atomic_file.h"

namespace pdbench::cli {

namespace {

// Written from a signal handler: must be lock-free to be async-signal-safe.
std::atomic<int> g_received{0};
std::atomic<bool> g_ending_at_once{true};
static_assert(std::atomic<int>::is_always_lock_free);
static_assert(std::atomic<bool>::is_always_lock_free);

struct sigaction g_previous_int{};
struct sigaction g_previous_term{};

void say(const char* text) {
  const ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;  // nothing to do about a failed message in a handler
}

void end_now(int signal);

void on_signal(int signal) {
  if (g_ending_at_once.load()) end_now(signal);
  if (g_received.exchange(signal) != 0) {
    say("\npdbench: second signal: exiting now\n");
    remove_uncommitted_temporaries();
    ::_exit(128 + signal);
  }
  say("\npdbench: ");
  say(signal_name(signal));
  say(": stopping after writing the finished runs (again to quit at once)\n");
}

void end_now(int signal) {
  remove_uncommitted_temporaries();
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

void end_on_signals() {
  struct sigaction action{};
  action.sa_handler = end_now;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal, &action, nullptr);
}

StopSignals::StopSignals() {
  g_received = 0;
  g_ending_at_once = true;
  struct sigaction action{};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // writes in progress continue rather than fail with EINTR
  sigaction(SIGINT, &action, &g_previous_int);
  sigaction(SIGTERM, &action, &g_previous_term);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
}

const std::atomic<int>& StopSignals::received() const { return g_received; }

std::atomic<bool>& StopSignals::ending_at_once() { return g_ending_at_once; }

const char* signal_name(int signal) {
  return signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "a signal";
}

}  // namespace pdbench::cli
