#pragma once
// Where continuous batching reads the time and waits for the next arrival:
// the steady clock in a real run, a simulated one in tests, so arrivals,
// admission and queueing delay can be checked exactly on a fake forward
// pass.
#include <chrono>

namespace pdbench {

class BatchClock {
 public:
  virtual ~BatchClock() = default;
  // Milliseconds since the run started (start() sets zero).
  virtual void start() = 0;
  virtual double now_ms() const = 0;
  // Returns at now_ms() >= t (at once when it is already past).
  virtual void wait_until_ms(double t) = 0;
};

class SteadyBatchClock : public BatchClock {
 public:
  void start() override { start_ = std::chrono::steady_clock::now(); }
  double now_ms() const override;
  void wait_until_ms(double t) override;

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Time moves only when told: advance() (a fake forward pass's cost) or a
// wait, which jumps to the time waited for.
class SimulatedBatchClock : public BatchClock {
 public:
  void start() override { now_ = 0; }
  double now_ms() const override { return now_; }
  void wait_until_ms(double t) override { now_ = t > now_ ? t : now_; }
  void advance(double ms) { now_ += ms; }

 private:
  double now_ = 0;
};

}  // namespace pdbench
