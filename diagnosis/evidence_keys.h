// SPDX-License-Identifier: GPL-3.0-or-later
// The keys of a finding's evidence (v1::Finding.evidence: each figure behind a finding, named with its unit),
// the one spelling every detector, the console, the window and the reports use. They are stored with each
// run and written to summary files, so a key, once stored, keeps its spelling; diagnosis/evidence_text gives
// each its label and unit.
#pragma once

namespace ringmaster::diagnosis::evidence {

// Stragglers (and Horovod readiness).
inline constexpr char kThroughputLostPct[] = "throughput_lost_pct";
inline constexpr char kOthersWaitMsPerStep[] = "others_wait_ms_per_step";
inline constexpr char kSlowdownPct[] = "slowdown_pct";
inline constexpr char kComputeExcessMsPerStep[] = "compute_excess_ms_per_step";
inline constexpr char kDataExcessMsPerStep[] = "data_excess_ms_per_step";
inline constexpr char kCommExcessMsPerStep[] = "comm_excess_ms_per_step";
// How much longer the other ranks wait exposed in communication than the straggler does (ms per step).
inline constexpr char kOthersCommExcessMsPerStep[] = "others_comm_excess_ms_per_step";
inline constexpr char kStepsSlow[] = "steps_slow";
inline constexpr char kLastSlowStep[] = "last_slow_step";
inline constexpr char kRecoveredAtStep[] = "recovered_at_step";
inline constexpr char kRobustScore[] = "robust_score";
inline constexpr char kLastSharePct[] = "last_share_pct";
inline constexpr char kMedianLateMs[] = "median_late_ms";
inline constexpr char kCompleteNegotiations[] = "complete_negotiations";
inline constexpr char kNegotiations[] = "negotiations";
// Memory.
inline constexpr char kMibPerStep[] = "mib_per_step";
inline constexpr char kMibPerMin[] = "mib_per_min";
inline constexpr char kMinutesToLimit[] = "minutes_to_limit";
inline constexpr char kLimitMib[] = "limit_mib";
inline constexpr char kLastMib[] = "last_mib";
inline constexpr char kMibPerStepLower[] = "mib_per_step_lower";
inline constexpr char kMibPerStepUpper[] = "mib_per_step_upper";
inline constexpr char kInterceptMib[] = "intercept_mib";
inline constexpr char kToStep[] = "to_step";
// Stalls.
inline constexpr char kQuietS[] = "quiet_s";
inline constexpr char kWaitedS[] = "waited_s";
inline constexpr char kMissingTensors[] = "missing_tensors";
inline constexpr char kWaitingRanks[] = "waiting_ranks";
inline constexpr char kStepsBehind[] = "steps_behind";
inline constexpr char kResumed[] = "resumed";
// Collectives out of step: the call where ranks differ (its place in its step), and the elements of each
// rank's call there.
inline constexpr char kCollectiveIndex[] = "collective_index";
inline constexpr char kElements[] = "elements";
inline constexpr char kOtherElements[] = "other_elements";
// Replicas that drift.
inline constexpr char kDriftingTensors[] = "drifting_tensors";
inline constexpr char kTensors[] = "tensors";
inline constexpr char kLastEqualStep[] = "last_equal_step";
inline constexpr char kCheckEverySteps[] = "check_every_steps";
// Communication.
inline constexpr char kExposedCommPct[] = "exposed_comm_pct";
inline constexpr char kOverlapPct[] = "overlap_pct";
inline constexpr char kBusbwGbps[] = "busbw_gbps";
inline constexpr char kRanksMedianBusbwGbps[] = "ranks_median_busbw_gbps";
inline constexpr char kMedianBusbwGbps[] = "median_busbw_gbps";
inline constexpr char kAllreducePerStep[] = "allreduce_per_step";
inline constexpr char kMeanAllreduceMib[] = "mean_allreduce_mib";
inline constexpr char kMedianLatencyMs[] = "median_latency_ms";
inline constexpr char kSlowOps[] = "slow_ops";
inline constexpr char kOps[] = "ops";
// Crashes and divergence.
inline constexpr char kSignal[] = "signal";
inline constexpr char kExitCode[] = "exit_code";
inline constexpr char kLastStep[] = "last_step";
inline constexpr char kFirstStep[] = "first_step";
inline constexpr char kLastFiniteLoss[] = "last_finite_loss";
// Restarts.
inline constexpr char kRestart[] = "restart";
inline constexpr char kResumedFromStep[] = "resumed_from_step";
inline constexpr char kWorldSize[] = "world_size";
// Scaling.
inline constexpr char kEfficiencyPct[] = "efficiency_pct";
inline constexpr char kThroughput[] = "throughput";
inline constexpr char kBaselineThroughput[] = "baseline_throughput";
inline constexpr char kRanks[] = "ranks";
inline constexpr char kBaselineRanks[] = "baseline_ranks";
// Imports.
inline constexpr char kClippedEvents[] = "clipped_events";
inline constexpr char kLongestRecordedS[] = "longest_recorded_s";
// The run history.
inline constexpr char kRecordsNotStored[] = "records_not_stored";
inline constexpr char kNotStoredFromStep[] = "not_stored_from_step";

// Every key above, in evidence_text's order (most telling first).
inline constexpr const char* kAll[] = {kThroughputLostPct,
                                       kOthersWaitMsPerStep,
                                       kSlowdownPct,
                                       kComputeExcessMsPerStep,
                                       kDataExcessMsPerStep,
                                       kCommExcessMsPerStep,
                                       kOthersCommExcessMsPerStep,
                                       kStepsSlow,
                                       kLastSlowStep,
                                       kRecoveredAtStep,
                                       kRobustScore,
                                       kLastSharePct,
                                       kMedianLateMs,
                                       kCompleteNegotiations,
                                       kNegotiations,
                                       kMibPerStep,
                                       kMibPerMin,
                                       kMinutesToLimit,
                                       kLimitMib,
                                       kLastMib,
                                       kMibPerStepLower,
                                       kMibPerStepUpper,
                                       kInterceptMib,
                                       kToStep,
                                       kQuietS,
                                       kWaitedS,
                                       kMissingTensors,
                                       kWaitingRanks,
                                       kStepsBehind,
                                       kResumed,
                                       kCollectiveIndex,
                                       kElements,
                                       kOtherElements,
                                       kDriftingTensors,
                                       kTensors,
                                       kLastEqualStep,
                                       kCheckEverySteps,
                                       kExposedCommPct,
                                       kOverlapPct,
                                       kBusbwGbps,
                                       kRanksMedianBusbwGbps,
                                       kMedianBusbwGbps,
                                       kAllreducePerStep,
                                       kMeanAllreduceMib,
                                       kMedianLatencyMs,
                                       kSlowOps,
                                       kOps,
                                       kSignal,
                                       kExitCode,
                                       kLastStep,
                                       kFirstStep,
                                       kLastFiniteLoss,
                                       kRestart,
                                       kResumedFromStep,
                                       kWorldSize,
                                       kEfficiencyPct,
                                       kThroughput,
                                       kBaselineThroughput,
                                       kRanks,
                                       kBaselineRanks,
                                       kClippedEvents,
                                       kLongestRecordedS,
                                       kRecordsNotStored,
                                       kNotStoredFromStep};

}  // namespace ringmaster::diagnosis::evidence
