// SPDX-License-Identifier: GPL-3.0-or-later
// The sentences that say how a run ended (JobOutcome::message: "rank 1 on host node2 was killed by SIGABRT",
// "every rank finished", ...), as English patterns with %1 … %9 (common/sentence.h). The launcher and the run
// session fill them with typed figures; the CLI prints the English (toText) and the window renders the
// sentence in its language (console::translated), a stall's finding inside a message in its own context.
#pragma once

#include <vector>

#include "common/sentence.h"

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

// The sentence `pattern` (one of text::k…) with its figures, in the outcomes' context.
Sentence outcomeSentence(const char* pattern, const std::vector<Figure>& figures = {});

}  // namespace ringmaster::console
