// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosis/summary_text.h"

// lupdate collects the patterns marked with Qt's QT_TRANSLATE_NOOP from this file; diagnosis/ has no Qt, so
// here the marker is the text itself.
#define QT_TRANSLATE_NOOP(context, text) text

namespace ringmaster::diagnosis {

namespace text {
const char kRankOnHost[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "rank %1 (%2)");
const char kRank[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "rank %1");

const char kStragglerCompute[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding",
    "%1: compute and data time are %2% above the median rank since step %3 (cause: %4); %5");
const char kStragglerLatency[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding",
                      "%1: all-reduce latency is %2% above the median rank since step %3 (cause: %4); %5");
const char kOthersWait[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding", "the others wait %1 ms per step, %2% of throughput lost");

const char kMemoryGrows[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding", "%1: %2 memory grows %3 MiB per step (%4 MiB/min) since step %5");
const char kMemoryGrowsUntilFull[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding",
                      "%1: %2 memory grows %3 MiB per step (%4 MiB/min) since step %5; %6 memory full in "
                      "about %7");
// The pattern runs stored before the time to full became a span ("about 17 min"); their findings keep it.
const char kMemoryGrowsUntilFullInMinutes[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding",
                      "%1: %2 memory grows %3 MiB per step (%4 MiB/min) since step %5; %6 memory full in "
                      "about %7 min");
const char kHostMemory[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "host");
const char kDeviceMemory[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "device");

const char kEndedTheRun[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "%1 %2, which ended the run.");
const char kEndedTheRunAndMore[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "%1 %2, which ended the run.%3");
const char kCouldNotStart[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "could not start");
const char kCouldNotStartBecause[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "could not start (%1)");
const char kKilledAfterStep[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "was killed by %1 after step %2");
const char kKilledBeforeFirstStep[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding", "was killed by %1 before its first step");
const char kExitedAfterStep[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "exited with code %1 after step %2");
const char kExitedBeforeFirstStep[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding", "exited with code %1 before its first step");
const char kLostAfterStep[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding", "stopped after step %1 without recording its end");
const char kLostBeforeFirstStep[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding", "stopped before its first step without recording its end");
const char kLastErrorLine[] = QT_TRANSLATE_NOOP("ringmaster::Finding", " Its last error line: \"%1\".");
const char kRankFailedToo[] = QT_TRANSLATE_NOOP("ringmaster::Finding", " Rank %1 then failed as well.");
const char kRanksFailedToo[] = QT_TRANSLATE_NOOP("ringmaster::Finding", " Ranks %1 then failed as well.");
const char kLastErrorLineRankFailedToo[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding", " Its last error line: \"%1\". Rank %2 then failed as well.");
const char kLastErrorLineRanksFailedToo[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding", " Its last error line: \"%1\". Ranks %2 then failed as well.");

const char kLossBecameAfterFinite[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding",
                      "The loss became %1 at step %2 %3 (the step before: %4): training goes on without "
                      "learning.");
const char kLossBecameFromFirstStep[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding",
                      "The loss became %1 at step %2 %3 (from the first step): training goes on without "
                      "learning.");
const char kNaN[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "NaN");
const char kInfinite[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "infinite");
const char kOnEveryRank[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "on every rank");
const char kOnRank[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "on rank %1");
const char kOnRanks[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "on ranks %1");

const char kCollectiveOfAt[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "%1 of %2 %3 (%4)");
const char kCollectiveAt[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "%1 (%2)");
const char kCallsWhereOtherIsIn[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding",
    "From step %1 %2 calls %3, which %4 does not call there; %4 is in %5. The ranks' collectives are out of "
    "step.");
const char kCallsWhereOtherCalls[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding",
                      "From step %1 %2 calls %3 where %4 calls %5. The ranks' collectives are out of step.");
const char kCallsThatOtherNeverCalls[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding",
    "From step %1 %2 calls %3, which %4 never calls. The ranks' collectives are out of step.");
const char kStepCollectivesDiffer[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding",
    "In step %1 %2 called %3 collectives and %4 called %5, or other ones. The ranks' collectives are out of "
    "step.");
const char kReplicasDiffer[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding",
    "From step %1 the replicas differ: %2 of %3 tensors (%4) hold other values %5 than on rank %6.");
const char kReplicasDifferAfterEqual[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding",
                      "From step %1 the replicas differ: %2 of %3 tensors (%4) hold other values %5 than on "
                      "rank %6; at step %7 "
                      "they were equal.");
const char kReplicasHaveOtherTensors[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding",
    "From step %1 the replicas differ: the model %2 has other tensors than on rank %3 (%4).");

const char kRankSentNoTelemetry[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding",
    "Rank %1 sent no telemetry while the others finished %2 steps: its figures and findings are missing.");
const char kRanksSentNoTelemetry[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding",
    "Ranks %1 sent no telemetry while the others finished %2 steps: their figures and findings are missing.");
const char kRankSentNoTelemetrySaying[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding",
    "Rank %1 sent no telemetry while the others finished %2 steps: its figures and findings are missing. The "
    "program's output says: \"%3\".");
const char kRanksSentNoTelemetrySaying[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding",
                      "Ranks %1 sent no telemetry while the others finished %2 steps: their figures and "
                      "findings are missing. The program's output says: \"%3\".");

const char kNotSubmitted[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding", "%1 has not submitted %2; ranks %3 have waited %4 s");
const char kNotSubmittedAndMore[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding", "%1 has not submitted %2 and %3 more; ranks %4 have waited %5 s");
const char kThenItWentOn[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "%1; then it went on");
const char kWentSilentOneWaits[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding",
    "%1 went silent %2: it %3 (frozen, stopped or out of memory and swapping) while rank %4 "
    "waits for it; the job has not progressed for %5 s");
const char kWentSilentManyWait[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding",
    "%1 went silent %2: it %3 (frozen, stopped or out of memory and swapping) while ranks %4 "
    "wait for it; the job has not progressed for %5 s");
const char kNoCollectiveOneWaits[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding",
    "%1 stopped calling collectives %2: it %3 while rank %4 waits in all-reduce; the job has "
    "not progressed for %5 s");
const char kNoCollectiveManyWait[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding",
    "%1 stopped calling collectives %2: it %3 while ranks %4 wait in all-reduce; the job has "
    "not progressed for %5 s");
const char kAfterStep[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "after step %1");
const char kBeforeFirstStep[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "before its first step");
const char kSentNothingFor[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "has sent nothing for %1 s");
const char kInPhaseFor[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "has been in %1 for %2 s");
const char kStoppedBehind[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding",
    "%1 stopped after step %2 while the others finished step %3; the job has not progressed "
    "for %4 s");
const char kNoRankFinished[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding", "no rank has finished a step for %1 s (all stopped after step %2)");

const char kSlowLink[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding", "%1: all-reduce bus bandwidth %2 GB/s, %3% below the other ranks' %4 GB/s");
const char kExposedCommunication[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding",
                      "%1% of step time waits on all-reduce (%2% of all-reduce time overlapped with compute; "
                      "median bus bandwidth %3 GB/s)");
const char kSlowOps[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding",
                      "%1% of all-reduce ops ran at under half the median bus bandwidth of ops their size");

const char kFewCompleteNegotiations[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding",
    "Only %1 of %2 negotiations in this timeline carry a ready tick from each of the %3 ranks, "
    "too few to tell which rank kept the others waiting (at least %4 are needed). Horovod's "
    "response cache skips negotiation for tensors it has seen: record the timeline with "
    "HOROVOD_CACHE_CAPACITY=0 to see every negotiation.");
const char kLastToBeReady[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding",
    "Rank %1 was the last to be ready for %2 % of %3 negotiated tensors (a fair share is %4 %), "
    "by %5 median: every collective it was late for waited on it.");

const char kImplausibleDuration[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding",
                      "%1 event has implausible durations (up to %2 in a trace whose events all start within "
                      "%3): drawn clipped at the trace's end, each keeps its recorded duration "
                      "(recorded_dur_ns).");
const char kImplausibleDurations[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding",
    "%1 events have implausible durations (up to %2 in a trace whose events all start within "
    "%3): drawn clipped at the trace's end, each keeps its recorded duration "
    "(recorded_dur_ns).");

const char kRecordsNotStored[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding",
    "%1 records of this run could not be stored in the run history: what it holds of the run "
    "is incomplete.");

const char kScalingEfficiency[] = QT_TRANSLATE_NOOP(
    "ringmaster::Finding",
    "scaling efficiency %1%: %2 on %3 ranks reaches %4 samples/s, where linear scaling from %5 "
    "on %6 would give %7");

const char kSlurmEndedJob[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "%1 (Slurm job %2: %3)");
const char kSlurmTimeLimit[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding", "Slurm ended the job at its time limit");
const char kSlurmNodeFailed[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding", "Slurm ended the job because one of its nodes failed");
const char kSlurmPreempted[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding", "Slurm preempted the job for another one");
const char kSlurmOutOfMemory[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding", "Slurm killed the job for using more memory than it asked for");
const char kSlurmBootFailed[] =
    QT_TRANSLATE_NOOP("ringmaster::Finding", "Slurm could not boot the job's nodes");
const char kSlurmDeadline[] = QT_TRANSLATE_NOOP("ringmaster::Finding", "Slurm ended the job at its deadline");
}  // namespace text

Sentence say(const char* pattern, const std::vector<Figure>& figures) {
  return sentence(kFindingContext, pattern, figures);
}

Sentence rankOnHost(int rank, const std::string& host) {
  return host.empty() ? say(text::kRank, {rank}) : say(text::kRankOnHost, {rank, host});
}

void setSummary(v1::Finding& finding, Sentence summary) {
  finding.set_summary(toText(summary));
  *finding.mutable_sentence() = std::move(summary);
}

const std::vector<const char*>& causeWords() {
  static const std::vector<const char*> words = {
      // What findings found (Finding.cause), shown in the summary and beside it.
      QT_TRANSLATE_NOOP("ringmaster::Finding", "compute"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "data"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "communication"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "exposed communication"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "readiness"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "host memory"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "device memory"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "missing tensors"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "silent"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "no collective"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "no progress"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "diverged"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "out of step"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "replicas differ"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "other tensors"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "no telemetry"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "failed to start"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "killed"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "exit code"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "horovod missing"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "scaling"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "implausible durations"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "records not stored"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "slurm"),
      // What a restart recovered from.
      QT_TRANSLATE_NOOP("ringmaster::Finding", "exit"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "signal"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "stall"),
      QT_TRANSLATE_NOOP("ringmaster::Finding", "lost host"),
  };
  return words;
}

}  // namespace ringmaster::diagnosis
