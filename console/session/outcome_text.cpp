// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/session/outcome_text.h"

#include <QtGlobal>

namespace ringmaster::console {

namespace text {
const char kRankOnHostEnded[] = QT_TRANSLATE_NOOP("ringmaster::RunOutcome", "rank %1 on host %2 %3");
const char kWasKilledBy[] = QT_TRANSLATE_NOOP("ringmaster::RunOutcome", "was killed by %1");
const char kExitedWithCode[] = QT_TRANSLATE_NOOP("ringmaster::RunOutcome", "exited with code %1");
const char kExitedNormally[] = QT_TRANSLATE_NOOP("ringmaster::RunOutcome", "exited normally");
const char kEveryRankFinished[] = QT_TRANSLATE_NOOP("ringmaster::RunOutcome", "every rank finished");
const char kStoppedOnRequest[] = QT_TRANSLATE_NOOP("ringmaster::RunOutcome", "stopped on request");
const char kStopNotConfirmed[] = QT_TRANSLATE_NOOP(
    "ringmaster::RunOutcome",
    "stopped on request; host %1 did not confirm within %2 s that its ranks ended: they may still run there");
const char kLeftRunning[] =
    QT_TRANSLATE_NOOP("ringmaster::RunOutcome", "left running on its hosts; their agents keep its journal");
const char kNeverReportedExit[] =
    QT_TRANSLATE_NOOP("ringmaster::RunOutcome", "rank %1 never reported its exit");
const char kLostHost[] = QT_TRANSLATE_NOOP("ringmaster::RunOutcome", "lost host %1: %2");
const char kLostHostSilent[] =
    QT_TRANSLATE_NOOP("ringmaster::RunOutcome", "lost host %1: its agent has not answered for %2 s");
const char kStoppedAfterStall[] =
    QT_TRANSLATE_NOOP("ringmaster::RunOutcome", "stopped after a stall of %1 s (--stall-timeout-s %1): %2");
const char kSlurmEndedJob[] = QT_TRANSLATE_NOOP("ringmaster::RunOutcome", "Slurm ended job %1: %2");
const char kNoStepsAfterWarmUp[] =
    QT_TRANSLATE_NOOP("ringmaster::RunOutcome", "no step samples after the warm-up were stored");
const char kRestartAfter[] = QT_TRANSLATE_NOOP("ringmaster::RunOutcome", "restart %1 of %2 after %3");
const char kRestartAfterResumed[] =
    QT_TRANSLATE_NOOP("ringmaster::RunOutcome", "restart %1 of %2 after %3; resumed from step %4");
const char kRestartAfterOnRanks[] =
    QT_TRANSLATE_NOOP("ringmaster::RunOutcome", "restart %1 of %2 after %3 on %4 ranks (host %5 gone)");
const char kRestartAfterOnRanksResumed[] = QT_TRANSLATE_NOOP(
    "ringmaster::RunOutcome", "restart %1 of %2 after %3 on %4 ranks (host %5 gone); resumed from step %6");
const char kRestartCouldNotStart[] =
    QT_TRANSLATE_NOOP("ringmaster::RunOutcome", "restart %1 of %2 could not start: %3");
const char kAfterOneRestart[] =
    QT_TRANSLATE_NOOP("ringmaster::RunOutcome", "%1 (after 1 restart, --max-restarts %2)");
const char kAfterRestarts[] =
    QT_TRANSLATE_NOOP("ringmaster::RunOutcome", "%1 (after %2 restarts, --max-restarts %3)");
const char kFewerThanMinRanks[] = QT_TRANSLATE_NOOP(
    "ringmaster::RunOutcome", "%1; host %2 gone, and the %3 ranks left are fewer than --min-ranks %4");
}  // namespace text

Sentence outcomeSentence(const char* pattern, const std::vector<Figure>& figures) {
  return sentence(kOutcomeContext, pattern, figures);
}

}  // namespace ringmaster::console
