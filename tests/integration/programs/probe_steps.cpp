// SPDX-License-Identifier: GPL-3.0-or-later
// A user's C++ program that reports through Ringmaster::probe what a test can predict: each rank's steps with
// 16 + rank samples, a loss of 1 / (step + 1), two all-reduces of known sizes, time in every phase, and at
// the end a scalar whose name is not UTF-8 and an accuracy of 0.75. No LibTorch: the tests that run it stay
// quick.
//
//   probe_steps STEPS [STALL_RANK:STEP:SECONDS]
//
// With a stall, rank STALL_RANK stops at step STEP waiting for data while the others wait in communication,
// as ranks do when one stops calling collectives; after SECONDS every rank gives up and exits 1.
#include <ringmaster/probe.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <thread>

namespace {

void busy(ringmaster::Step& step, ringmaster::Phase phase) {
  step.phase(phase);
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

void train(ringmaster::Probe& probe, int steps, int stallRank, int stallStep, int stallSeconds) {
  probe.setEpoch(3);
  const uint32_t samples = 16 + static_cast<uint32_t>(probe.rank());
  for (int s = 0; s < steps; ++s) {
    {
      ringmaster::Step step(probe, samples);
      if (s == stallStep) {
        if (probe.rank() != stallRank) step.phase(ringmaster::Phase::CommWait);
        std::this_thread::sleep_for(std::chrono::seconds(stallSeconds));
        throw std::runtime_error("rank " + std::to_string(probe.rank()) + ": gave up at step " +
                                 std::to_string(s));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // waiting for data
      busy(step, ringmaster::Phase::Forward);
      busy(step, ringmaster::Phase::Backward);
      step.phase(ringmaster::Phase::CommWait);
      for (uint32_t bucket = 0; bucket < 2; ++bucket) {
        const int64_t start = probe.now();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        probe.allreduce(4096 * (bucket + 1), start, probe.now(), bucket, 3);
      }
      ringmaster::Step::Scope optimizer(step, ringmaster::Phase::Optimizer);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    probe.log("loss", 1.0 / (s + 1));  // after the step's scope: still that step's loss
  }
  probe.log("grad norm \xff", 1.0);  // a name that is not UTF-8, as a program may make of its own data
  probe.log("accuracy", 0.75);
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::stoi(argv[1]) : 10;
  int stallRank = -1, stallStep = -1, stallSeconds = 0;
  if (argc > 2 && std::sscanf(argv[2], "%d:%d:%d", &stallRank, &stallStep, &stallSeconds) != 3) {
    std::cerr << "probe_steps: the stall is RANK:STEP:SECONDS, not '" << argv[2] << "'\n";
    return 2;
  }
  ringmaster::Probe probe;
  try {
    train(probe, steps, stallRank, stallStep, stallSeconds);
  } catch (const std::exception& e) {
    std::cerr << e.what() << std::endl;
    return 1;
  }
  std::cout << "rank " << probe.rank() << " of " << probe.worldSize() << ": " << steps << " steps"
            << (probe.active() ? ", reported" : "") << std::endl;
  return 0;
}
