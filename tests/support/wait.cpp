// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/support/wait.h"

#include <thread>

namespace ringmaster::test {

bool eventually(const std::function<bool()>& done, std::chrono::milliseconds timeout,
                std::chrono::milliseconds every) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(every);
  }
  return done();
}

}  // namespace ringmaster::test
