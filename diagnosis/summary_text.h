// SPDX-License-Identifier: GPL-3.0-or-later
// The sentences findings are told in: every summary a detector writes, as English patterns with %1 … %9
// (common/sentence.h), and the cause words. A detector fills a pattern with typed figures and stores the
// sentence with the finding (Finding.sentence) next to its English (Finding.summary); the GUI renders the
// sentence in its own language. Parts of a sentence that vary in words ("rank 2 (node2)", "the others wait
// 8.1 ms per step, …") are sentences of their own, so a translation may put them where its language wants.
#pragma once

#include <string>
#include <vector>

#include "common/sentence.h"
#include "ringmaster/v1/records.pb.h"

namespace ringmaster::diagnosis {

inline constexpr char kFindingContext[] = "ringmaster::Finding";

namespace text {
// Who: "rank 2 (node2)", "rank 2".
extern const char kRankOnHost[];
extern const char kRank[];
// Stragglers.
extern const char kStragglerCompute[];
extern const char kStragglerLatency[];
extern const char kOthersWait[];
// Memory.
extern const char kMemoryGrows[];
extern const char kMemoryGrowsUntilFull[];
extern const char kHostMemory[];
extern const char kDeviceMemory[];
// Crashes: who, how and when, then what else is known.
extern const char kEndedTheRun[];
extern const char kEndedTheRunAndMore[];
extern const char kCouldNotStart[];
extern const char kCouldNotStartBecause[];
extern const char kKilledAfterStep[];
extern const char kKilledBeforeFirstStep[];
extern const char kExitedAfterStep[];
extern const char kExitedBeforeFirstStep[];
// A rank whose records stop without its end (STATE_LOST): killed, crashed, or its host went down.
extern const char kLostAfterStep[];
extern const char kLostBeforeFirstStep[];
extern const char kLastErrorLine[];
extern const char kRankFailedToo[];
extern const char kRanksFailedToo[];
extern const char kLastErrorLineRankFailedToo[];
extern const char kLastErrorLineRanksFailedToo[];
// Divergence.
extern const char kLossBecameAfterFinite[];
extern const char kLossBecameFromFirstStep[];
extern const char kNaN[];
extern const char kInfinite[];
extern const char kOnEveryRank[];
extern const char kOnRank[];
extern const char kOnRanks[];
// Collectives out of step.
extern const char kCollectiveOfAt[];
extern const char kCollectiveAt[];
extern const char kCallsWhereOtherIsIn[];
extern const char kCallsWhereOtherCalls[];
extern const char kCallsThatOtherNeverCalls[];
extern const char kStepCollectivesDiffer[];
// Replicas that drift.
extern const char kReplicasDiffer[];
extern const char kReplicasDifferAfterEqual[];
extern const char kReplicasHaveOtherTensors[];
// Ranks that never sent telemetry.
extern const char kRankSentNoTelemetry[];
extern const char kRanksSentNoTelemetry[];
extern const char kRankSentNoTelemetrySaying[];
extern const char kRanksSentNoTelemetrySaying[];
// Stalls.
extern const char kNotSubmitted[];
extern const char kNotSubmittedAndMore[];
extern const char kThenItWentOn[];
extern const char kWentSilentOneWaits[];
extern const char kWentSilentManyWait[];
extern const char kNoCollectiveOneWaits[];
extern const char kNoCollectiveManyWait[];
extern const char kAfterStep[];
extern const char kBeforeFirstStep[];
extern const char kSentNothingFor[];
extern const char kInPhaseFor[];
extern const char kStoppedBehind[];
extern const char kNoRankFinished[];
// Communication.
extern const char kSlowLink[];
extern const char kExposedCommunication[];
extern const char kSlowOps[];
// Horovod readiness.
extern const char kFewCompleteNegotiations[];
extern const char kLastToBeReady[];
// Imported traces.
extern const char kImplausibleDuration[];
extern const char kImplausibleDurations[];
// The run history.
extern const char kRecordsNotStored[];
// Comparing runs.
extern const char kScalingEfficiency[];
// Slurm ended the job: why, then which job and its state.
extern const char kSlurmEndedJob[];
extern const char kSlurmTimeLimit[];
extern const char kSlurmNodeFailed[];
extern const char kSlurmPreempted[];
extern const char kSlurmOutOfMemory[];
extern const char kSlurmBootFailed[];
extern const char kSlurmDeadline[];
}  // namespace text

// The sentence `pattern` (one of text::k…) with its figures, in the findings' context.
Sentence say(const char* pattern, const std::vector<Figure>& figures = {});
// "rank 2 (node2)", or "rank 2" without a host.
Sentence rankOnHost(int rank, const std::string& host);

// Sets the finding's summary: the sentence, and its English for readers that show no other language.
void setSummary(v1::Finding& finding, Sentence summary);

// The words findings name their causes with (Finding.cause: "compute", "host memory", …), each a message of
// the findings' context.
const std::vector<const char*>& causeWords();

}  // namespace ringmaster::diagnosis
