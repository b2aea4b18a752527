// SPDX-License-Identifier: GPL-3.0-or-later
// The sentences that say how a run ended (JobOutcome::message: "rank 1 on host node2 was killed by SIGABRT",
// "every rank finished", ...), as English patterns with %1 … %9 (common/phrase.h) in one table. The launcher
// and the run session fill them and every front end prints the English; the window finds the pattern that
// makes a message again and shows its translation (console::translated), as it does for findings.
#pragma once

#include <QString>
#include <string>
#include <vector>

#include "common/phrase.h"

namespace ringmaster::console {

inline constexpr char kOutcomeContext[] = "ringmaster::RunOutcome";

namespace text {
extern const char kRankOnHostEnded[];  // "rank %1 on host %2 %3": %3 is one of the three below or the agent's
extern const char kWasKilledBy[];
extern const char kExitedWithCode[];
extern const char kExitedNormally[];
extern const char kEveryRankFinished[];
extern const char kStoppedOnRequest[];
extern const char kStopNotConfirmed[];  // %1: the hosts that did not
extern const char kLeftRunning[];
extern const char kNeverReportedExit[];
extern const char kLostHost[];
extern const char kLostHostSilent[];
extern const char kStoppedAfterStall[];  // %3: the stall finding's summary
extern const char kSlurmEndedJob[];
extern const char kNoStepsAfterWarmUp[];
// Elastic restarts (--max-restarts, --min-ranks): %3 is the message of the attempt that failed.
extern const char kRestartAfter[];
extern const char kRestartAfterResumed[];
extern const char kRestartAfterOnRanks[];
extern const char kRestartAfterOnRanksResumed[];
extern const char kRestartCouldNotStart[];
extern const char kAfterOneRestart[];
extern const char kAfterRestarts[];
extern const char kFewerThanMinRanks[];
}  // namespace text

// The table, followed by the findings' (a stall's summary inside a message is one).
const std::vector<PatternEntry>& outcomePatterns();

// A message made from the table in the interface's language (the findings' patterns looked up in their own
// context); as it is when no pattern makes it.
QString translatedOutcome(const std::string& english);

}  // namespace ringmaster::console
