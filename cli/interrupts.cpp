// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/interrupts.h"

#include <signal.h>

#include <atomic>

namespace ringmaster::cli {
namespace {

std::atomic<int> interrupts{0};

void onInterrupt(int) {
  interrupts.fetch_add(1);
}

}  // namespace

void catchInterrupts() {
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int interruptCount() {
  return interrupts.load();
}

}  // namespace ringmaster::cli
