#include "engine/runtime/batch_clock.h"

#include <thread>

namespace pdbench {

double SteadyBatchClock::now_ms() const {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
}

void SteadyBatchClock::wait_until_ms(double t) {
  const double wait = t - now_ms();
  if (wait > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(wait));
}

}  // namespace pdbench
