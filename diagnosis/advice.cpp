// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosis/advice.h"

#include <csignal>
#include <string>

#include "diagnosis/evidence_keys.h"
#include "diagnosis/evidence_text.h"
#include "diagnosis/straggler_detector.h"

// lupdate collects the patterns marked with Qt's QT_TRANSLATE_NOOP from this file; diagnosis/ has no Qt, so
// here the marker is the text itself.
#define QT_TRANSLATE_NOOP(context, text) text

namespace ringmaster::diagnosis {

namespace {

// Advice is made again from its finding wherever it is shown, so its figures are the evidence's texts.
Sentence phrase(const char* pattern, const std::vector<Figure>& args = {}) {
  return sentence(kAdviceContext, pattern, args);
}

bool has(const v1::Finding& f, const char* key) {
  return f.evidence().count(key) > 0;
}

double number(const v1::Finding& f, const char* key) {
  auto it = f.evidence().find(key);
  return it == f.evidence().end() ? 0 : it->second;
}

// A figure of the evidence as the evidence shows it ("40.2 ms", "23.5 GiB").
// A figure as the Findings page shows it: a span in the reader's words ("16.6 分钟"), others as they are.
Figure figure(const v1::Finding& f, const char* key) {
  EvidenceText text = evidenceText(key, number(f, key));
  if (!isEmpty(text.said)) return Figure(std::move(text.said));
  return Figure(std::move(text.value));
}

std::string rank(const v1::Finding& f) {
  return std::to_string(f.rank());
}

// Below kMaterialLossPct of throughput, or for too few steps, a slowness costs nothing worth
// acting on; detectors then make the finding information.
Sentence immaterial(const v1::Finding& f) {
  if (number(f, evidence::kThroughputLostPct) >= kMaterialLossPct) {
    return phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                    "Rank %1 was slow only from step %2 to step %3 (%4 of throughput lost "
                                    "meanwhile): nothing to do unless it lasts."),
                  {rank(f), std::to_string(f.since_step()), figure(f, evidence::kLastSlowStep),
                   figure(f, evidence::kThroughputLostPct)});
  }
  return phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                  "Only %1 of throughput was lost, between steps %2 and %3: nothing to do "
                                  "unless it lasts or grows."),
                {figure(f, evidence::kThroughputLostPct), std::to_string(f.since_step()),
                 figure(f, evidence::kLastSlowStep)});
}

// Slow up to the last step measured: nothing says it would have stopped, there were only too few steps to
// tell (what a straggler's cause calls for is said with it), or the slowdown was too small to matter.
Sentence stillSlow(const v1::Finding& f, const Sentence& causeAdvice) {
  // Slow for many steps, costing enough, and still information: it was too little of a slowdown, not too
  // short.
  const StragglerConfig straggler;
  if (number(f, evidence::kStepsSlow) >= double(straggler.materialSteps) &&
      number(f, evidence::kThroughputLostPct) >= kMaterialLossPct &&
      number(f, evidence::kSlowdownPct) < 100 * straggler.minSlowdown) {
    return phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                    "Rank %1 has been slower than the others from step %2 to step %3, the "
                                    "last one measured, but only by %4 (%5 of throughput lost): too little "
                                    "to act on unless it grows."),
                  {rank(f), std::to_string(f.since_step()), figure(f, evidence::kLastSlowStep),
                   figure(f, evidence::kSlowdownPct), figure(f, evidence::kThroughputLostPct)});
  }
  if (number(f, evidence::kThroughputLostPct) >= kMaterialLossPct) {
    return sentence(
        kAdviceContext,
        QT_TRANSLATE_NOOP("ringmaster::Advice",
                          "Rank %1 was slow from step %2 to step %3, the last one measured (%4 of "
                          "throughput lost meanwhile), too few steps to tell how long it lasts: "
                          "%5"),
        {rank(f), f.since_step(), figure(f, evidence::kLastSlowStep), figure(f, evidence::kThroughputLostPct),
         causeAdvice});
  }
  return phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                  "Only %1 of throughput was lost, from step %2 to step %3, the last one "
                                  "measured: nothing to do unless it grows."),
                {figure(f, evidence::kThroughputLostPct), std::to_string(f.since_step()),
                 figure(f, evidence::kLastSlowStep)});
}

Sentence stragglerCauseAdvice(const v1::Finding& f);

Sentence stragglerAdvice(const v1::Finding& f) {
  if (f.cause() == "readiness") {
    if (f.rank() < 0) {
      return phrase(
          QT_TRANSLATE_NOOP("ringmaster::Advice",
                            "Record the timeline again with HOROVOD_CACHE_CAPACITY=0, so that every "
                            "tensor is negotiated and carries a ready tick from each rank."));
    }
    return phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                    "Rank %1 was the last to be ready for %2 of the tensors, %3 late at the "
                                    "median: look at what it does before it submits its gradients (data "
                                    "loading, a slower device or host)."),
                  {rank(f), figure(f, evidence::kLastSharePct), figure(f, evidence::kMedianLateMs)});
  }
  if (f.severity() == v1::Finding::SEVERITY_INFO && has(f, evidence::kThroughputLostPct)) {
    return has(f, evidence::kRecoveredAtStep) ? immaterial(f) : stillSlow(f, stragglerCauseAdvice(f));
  }
  return stragglerCauseAdvice(f);
}

// What a straggler's cause calls for.
Sentence stragglerCauseAdvice(const v1::Finding& f) {
  const bool host = !f.host().empty();
  if (f.cause() == "data") {
    std::vector<Figure> args{rank(f), figure(f, evidence::kDataExcessMsPerStep), f.host()};
    return host
               ? phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                          "Rank %1 spends %2 more per step than the others in its data path: "
                                          "check its input pipeline (loader workers, prefetching), its disk "
                                          "and CPU contention on %3."),
                        args)
               : phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                          "Rank %1 spends %2 more per step than the others in its data path: "
                                          "check its input pipeline (loader workers, prefetching), its disk "
                                          "and CPU contention on its host."),
                        args);
  }
  if (f.cause() == "communication") {
    std::vector<Figure> args{rank(f), figure(f, evidence::kCommExcessMsPerStep), f.host()};
    return host ? phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                           "Rank %1's all-reduce takes %2 longer per step than the others': "
                                           "check the network of %3 (link speed, errors, other traffic) and "
                                           "that NCCL_SOCKET_IFNAME or GLOO_SOCKET_IFNAME name its fast "
                                           "interface."),
                         args)
                : phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                           "Rank %1's all-reduce takes %2 longer per step than the others': "
                                           "check its host's network (link speed, errors, other traffic) and "
                                           "that NCCL_SOCKET_IFNAME or GLOO_SOCKET_IFNAME name its fast "
                                           "interface."),
                         args);
  }
  std::vector<Figure> args{rank(f), figure(f, evidence::kComputeExcessMsPerStep), f.host()};
  return host
             ? phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                        "Rank %1 computes %2 longer per step than the others: look for other "
                                        "processes on the CPUs or GPU of %3 (top, nvidia-smi), a slower or "
                                        "throttled device, or more work given to this rank."),
                      args)
             : phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                        "Rank %1 computes %2 longer per step than the others: look for other "
                                        "processes on its host's CPUs or GPU (top, nvidia-smi), a slower or "
                                        "throttled device, or more work given to this rank."),
                      args);
}

Sentence leakAdvice(const v1::Finding& f) {
  const bool device = f.cause() == "device memory";
  if (has(f, evidence::kMinutesToLimit) && has(f, evidence::kLimitMib)) {
    std::vector<Figure> args{figure(f, evidence::kMibPerStep), figure(f, evidence::kLimitMib),
                             figure(f, evidence::kMinutesToLimit)};
    return device
               ? phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                          "Device memory grows %1 per step and reaches the device's %2 in "
                                          "about %3: look for tensors kept across steps (e.g. appending "
                                          "`loss` instead of `loss.item()`) or outputs kept with their "
                                          "autograd graph."),
                        args)
               : phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                          "RSS grows %1 per step and reaches the host's %2 in about %3: look "
                                          "for tensors kept across steps (e.g. appending `loss` instead of "
                                          "`loss.item()`) and lists or caches that only grow."),
                        args);
  }
  std::vector<Figure> args{figure(f, evidence::kMibPerStep), figure(f, evidence::kMibPerMin)};
  return device
             ? phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                        "Device memory grows %1 per step (%2 per minute): look for tensors "
                                        "kept across steps (e.g. appending `loss` instead of `loss.item()`) "
                                        "or outputs kept with their autograd graph."),
                      args)
             : phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                        "RSS grows %1 per step (%2 per minute): look for tensors kept across "
                                        "steps (e.g. appending `loss` instead of `loss.item()`) and lists or "
                                        "caches that only grow."),
                      args);
}

Sentence stallAdvice(const v1::Finding& f) {
  const bool host = !f.host().empty();
  if (has(f, evidence::kResumed)) {
    return phrase(
        QT_TRANSLATE_NOOP("ringmaster::Advice",
                          "Rank %1 held the job up for %2 and then went on: if it happens again, look "
                          "for work that rank does alone (checkpoints, logging, garbage collection) "
                          "or for a host that pauses (swapping, another job)."),
        {rank(f), figure(f, evidence::kQuietS)});
  }
  if (f.rank() < 0) {
    return phrase(
        QT_TRANSLATE_NOOP("ringmaster::Advice",
                          "No rank has finished a step for %1: get every rank's stack (py-spy dump, "
                          "gdb -p) to see where they wait; usually a collective that not every rank "
                          "reached, or a hung file system or data loader."),
        {figure(f, evidence::kQuietS)});
  }
  if (f.cause() == "silent") {
    std::vector<Figure> args{rank(f), f.host()};
    return host ? phrase(
                      QT_TRANSLATE_NOOP("ringmaster::Advice",
                                        "Rank %1 sends nothing, not even heartbeats: see whether its process "
                                        "on %2 is frozen, stopped or swapping (top, dmesg); if it does not "
                                        "come back, stop the job and resume from the last checkpoint."),
                      args)
                : phrase(
                      QT_TRANSLATE_NOOP("ringmaster::Advice",
                                        "Rank %1 sends nothing, not even heartbeats: see whether its process "
                                        "is frozen, stopped or swapping (top, dmesg); if it does not come "
                                        "back, stop the job and resume from the last checkpoint."),
                      args);
  }
  if (f.cause() == "missing tensors") {
    return phrase(
        QT_TRANSLATE_NOOP("ringmaster::Advice",
                          "Rank %1 has not submitted %2 tensors that the others have: every rank must "
                          "run the same model and compute gradients for every parameter; look for "
                          "branches that depend on rank-local data, or get its stack (py-spy dump, "
                          "gdb -p) to see where it is stuck."),
        {rank(f), figure(f, evidence::kMissingTensors)});
  }
  if (f.cause() == "no collective") {
    return phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                    "Rank %1 stopped calling collectives while %2 ranks wait for it: get its "
                                    "stack (py-spy dump, gdb -p); work that only some ranks do (evaluation, "
                                    "checkpoints, logging) must be done by all of them or kept short."),
                  {rank(f), figure(f, evidence::kWaitingRanks)});
  }
  return phrase(
      QT_TRANSLATE_NOOP("ringmaster::Advice",
                        "Rank %1 is %2 steps behind the others and the job has not progressed for %3: "
                        "get its stack (py-spy dump, gdb -p) to see where it is stuck."),
      {rank(f), figure(f, evidence::kStepsBehind), figure(f, evidence::kQuietS)});
}

Sentence communicationAdvice(const v1::Finding& f, const AdviceReader& reader) {
  if (f.cause() == "exposed communication") {
    const bool manySmall = number(f, evidence::kAllreducePerStep) >= 8 &&
                           has(f, evidence::kMeanAllreduceMib) && number(f, evidence::kMeanAllreduceMib) < 4;
    // A program of its own (a traced or instrumented one) sets its buckets itself, not with our flags.
    if (manySmall && !reader.ringmasterEngine) {
      return phrase(
          QT_TRANSLATE_NOOP("ringmaster::Advice",
                            "%1 of step time waits on %2 all-reduce ops per step of %3 each: fuse them "
                            "into fewer, larger ones (PyTorch DDP: raise its bucket_cap_mb= argument; "
                            "Horovod: raise HOROVOD_FUSION_THRESHOLD)."),
          {figure(f, evidence::kExposedCommPct), figure(f, evidence::kAllreducePerStep),
           figure(f, evidence::kMeanAllreduceMib)});
    }
    if (number(f, evidence::kOverlapPct) < 50 && !manySmall && !reader.ringmasterEngine) {
      return phrase(
          QT_TRANSLATE_NOOP("ringmaster::Advice",
                            "%1 of step time waits on all-reduce and only %2 of it overlaps with the "
                            "backward pass: start it earlier with smaller buckets (PyTorch DDP: lower its "
                            "bucket_cap_mb= argument; Horovod: lower HOROVOD_CYCLE_TIME), so that the first "
                            "gradients travel while later layers still compute."),
          {figure(f, evidence::kExposedCommPct), figure(f, evidence::kOverlapPct)});
    }
    if (manySmall) {
      return phrase(
          QT_TRANSLATE_NOOP("ringmaster::Advice",
                            "%1 of step time waits on %2 all-reduce ops per step of %3 each: fuse them "
                            "into fewer, larger ones (ddp: raise --bucket-cap-mb; horovod: raise "
                            "--fusion-threshold-mb)."),
          {figure(f, evidence::kExposedCommPct), figure(f, evidence::kAllreducePerStep),
           figure(f, evidence::kMeanAllreduceMib)});
    }
    if (number(f, evidence::kOverlapPct) < 50) {
      return phrase(
          QT_TRANSLATE_NOOP("ringmaster::Advice",
                            "%1 of step time waits on all-reduce and only %2 of it overlaps with the "
                            "backward pass: start it earlier with smaller buckets (ddp: lower "
                            "--bucket-cap-mb; horovod: lower --cycle-time-ms), so that the first "
                            "gradients travel while later layers still compute."),
          {figure(f, evidence::kExposedCommPct), figure(f, evidence::kOverlapPct)});
    }
    return phrase(
        QT_TRANSLATE_NOOP("ringmaster::Advice",
                          "%1 of step time waits on all-reduce at %2 of bus bandwidth, though %3 of it "
                          "overlaps with compute: the network is the limit; send fewer bytes per "
                          "sample (a larger batch per rank, gradient accumulation, half-precision "
                          "gradients) or use a faster interconnect."),
        {figure(f, evidence::kExposedCommPct), figure(f, evidence::kMedianBusbwGbps),
         figure(f, evidence::kOverlapPct)});
  }
  if (f.rank() >= 0 && has(f, evidence::kBusbwGbps)) {
    if (f.severity() == v1::Finding::SEVERITY_INFO) {
      return phrase(
          QT_TRANSLATE_NOOP("ringmaster::Advice",
                            "Only %1 of step time waits on all-reduce, so rank %2's slower link costs "
                            "little: nothing to do unless the job's communication grows."),
          {figure(f, evidence::kExposedCommPct), rank(f)});
    }
    std::vector<Figure> args{rank(f), figure(f, evidence::kBusbwGbps),
                             figure(f, evidence::kRanksMedianBusbwGbps), f.host()};
    return !f.host().empty()
               ? phrase(
                     QT_TRANSLATE_NOOP("ringmaster::Advice",
                                       "Rank %1's all-reduce runs at %2 against the other ranks' %3: check "
                                       "the network of %4 (link speed, errors, other traffic) and that "
                                       "NCCL_SOCKET_IFNAME or GLOO_SOCKET_IFNAME name its fast interface."),
                     args)
               : phrase(
                     QT_TRANSLATE_NOOP("ringmaster::Advice",
                                       "Rank %1's all-reduce runs at %2 against the other ranks' %3: check "
                                       "its host's network (link speed, errors, other traffic) and that "
                                       "NCCL_SOCKET_IFNAME or GLOO_SOCKET_IFNAME name its fast interface."),
                     args);
  }
  if (has(f, evidence::kSlowOps) && number(f, evidence::kOps) > 0) {
    return phrase(
        QT_TRANSLATE_NOOP("ringmaster::Advice",
                          "%1 of %2 all-reduce ops ran at under half the usual bandwidth: occasional "
                          "congestion on a shared network; if it grows, look at other traffic on the "
                          "hosts' links."),
        {figure(f, evidence::kSlowOps), figure(f, evidence::kOps)});
  }
  return {};
}

Sentence scalingAdvice(const v1::Finding& f) {
  if (f.severity() == v1::Finding::SEVERITY_INFO) {
    return phrase(
        QT_TRANSLATE_NOOP("ringmaster::Advice", "%1 ranks keep %2 of linear scaling from %3: nothing to do."),
        {figure(f, evidence::kRanks), figure(f, evidence::kEfficiencyPct),
         figure(f, evidence::kBaselineRanks)});
  }
  return phrase(
      QT_TRANSLATE_NOOP("ringmaster::Advice",
                        "%1 ranks reach only %2 of linear scaling from %3: look for what grows with "
                        "the rank count (exposed all-reduce, a straggler); a larger batch per rank or "
                        "fewer, larger all-reduce ops hide more of the communication."),
      {figure(f, evidence::kRanks), figure(f, evidence::kEfficiencyPct),
       figure(f, evidence::kBaselineRanks)});
}

Sentence divergenceAdvice(const v1::Finding& f) {
  const Figure first = figure(f, evidence::kFirstStep);
  if (f.rank() >= 0) {
    return phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                    "Only rank %1 went non-finite: check its share of the data for NaN or "
                                    "infinite values first, then lower the learning rate or clip gradients; "
                                    "resume from a checkpoint taken before step %2."),
                  {rank(f), first});
  }
  return phrase(
      QT_TRANSLATE_NOOP("ringmaster::Advice",
                        "Lower the learning rate (or warm it up), clip gradients, and check the data "
                        "for NaN or infinite values; resume from a checkpoint taken before step %1."),
      {first});
}

Sentence crashAdvice(const v1::Finding& f, const AdviceReader& reader) {
  const bool host = !f.host().empty();
  if (f.cause() == "failed to start") {
    return host ? phrase(
                      QT_TRANSLATE_NOOP("ringmaster::Advice",
                                        "Check the program's path and permissions on %1, and that the agent "
                                        "there allows the program."),
                      {f.host()})
                : phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                           "Check the program's path and permissions on the rank's host, and "
                                           "that the agent there allows the program."));
  }
  if (f.cause() == "no end") {
    return host ? phrase(
                      QT_TRANSLATE_NOOP("ringmaster::Advice",
                                        "Rank %1's records stop without its end: it was killed, crashed, or "
                                        "%2 went down. The launcher's or scheduler's log of the rank and "
                                        "`dmesg` on %2 (the out-of-memory killer) say which."),
                      {rank(f), f.host()})
                : phrase(
                      QT_TRANSLATE_NOOP("ringmaster::Advice",
                                        "Rank %1's records stop without its end: it was killed, crashed, or "
                                        "its host went down. The launcher's or scheduler's log of the rank "
                                        "and `dmesg` on its host (the out-of-memory killer) say which."),
                      {rank(f)});
  }
  if (f.cause() == "horovod missing") {
    return phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                    "Rank %1's program imports Horovod, which is not installed where it ran: "
                                    "run it with `ringmaster run --horovod ...` on Ringmaster's "
                                    "Horovod-compatible layer over torch.distributed (no Horovod or MPI "
                                    "needed), or install Horovod on its host."),
                  {rank(f)});
  }
  if (has(f, evidence::kSignal)) {
    const int signal = static_cast<int>(number(f, evidence::kSignal));
    if (signal == SIGKILL) {
      return host
                 ? phrase(
                       QT_TRANSLATE_NOOP("ringmaster::Advice",
                                         "Ringmaster did not send this SIGKILL: most often it is the "
                                         "kernel's out-of-memory killer. Check `dmesg` on %1 and the rank's "
                                         "memory chart, then lower the batch size or fix the leak."),
                       {f.host()})
                 : phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                            "Ringmaster did not send this SIGKILL: most often it is the "
                                            "kernel's out-of-memory killer. Check `dmesg` on the rank's host "
                                            "and its memory chart, then lower the batch size or fix the "
                                            "leak."));
    }
    return phrase(
        QT_TRANSLATE_NOOP("ringmaster::Advice",
                          "%1 is a crash in native code: rank %2's last log lines and its core dump "
                          "(coredumpctl gdb) say where; run again with the same seed to see whether "
                          "it repeats."),
        {signalName(signal), rank(f)});
  }
  if (reader.terminal) {
    return phrase(
        QT_TRANSLATE_NOOP("ringmaster::Advice",
                          "Rank %1's log (ringmaster show %2 --log %1) holds the error that made it "
                          "exit with code %3: fix it and run again."),
        {rank(f), reader.runId > 0 ? std::to_string(reader.runId) : std::string("last"),
         figure(f, evidence::kExitCode)});
  }
  return phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                  "Rank %1's log (Logs page, rank %1) holds the error that made it exit with "
                                  "code %2: fix it and run again."),
                {rank(f), figure(f, evidence::kExitCode)});
}

// A restart recovered the job; what failed still wants fixing, or every restart pays for it again.
Sentence restartAdvice(const v1::Finding& f, const AdviceReader& reader) {
  if (f.cause() == "exit" || f.cause() == "signal") return crashAdvice(f, reader);
  if (f.cause() == "stall") {
    return phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                    "Rank %1 stalled and every rank was started again from the last "
                                    "checkpoint: if it stalls again at the same step, look at what that step "
                                    "does on rank %1 (its data, a collective only some ranks reach); if not, "
                                    "at its host (swapping, another job)."),
                  {rank(f)});
  }
  if (f.cause() == "lost host" && !f.host().empty()) {
    return phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                    "Check that the agent on %1 still runs and that the host answers on the "
                                    "network; once it is back, a new run can use all hosts again."),
                  {f.host()});
  }
  return {};
}

Sentence collectivesAdvice(const v1::Finding& f) {
  return phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                  "Every rank of a process group must call the same collectives in the same "
                                  "order, with the same op, dtype and number of elements. Look at the call "
                                  "named above for a condition only some ranks meet (rank == 0, a "
                                  "rank-dependent number of batches, a metric reduced on one rank) and make "
                                  "every rank call it, or none, from step %1 on."),
                {figure(f, evidence::kFirstStep)});
}

Sentence replicaDriftAdvice(const v1::Finding& f) {
  if (f.cause() == "other tensors") {
    return phrase(QT_TRANSLATE_NOOP("ringmaster::Advice",
                                    "The ranks train different models: build the same model on every rank "
                                    "before wrapping it in DistributedDataParallel, with no module added or "
                                    "removed on some ranks only."));
  }
  return phrase(
      QT_TRANSLATE_NOOP("ringmaster::Advice",
                        "Replicas should hold the same values. Usual causes: a module added after "
                        "DistributedDataParallel wrapped the model (its parameters are neither "
                        "broadcast nor all-reduced: build the whole model first), "
                        "broadcast_buffers=False with BatchNorm (use SyncBatchNorm or broadcast the "
                        "buffers), parameters changed outside the optimizer or on one rank only, a "
                        "custom layer whose tensors are not registered as parameters or buffers "
                        "(register them). The tensors named above show which part of the model "
                        "it is."));
}

Sentence missingTelemetryAdvice() {
  return phrase(
      QT_TRANSLATE_NOOP("ringmaster::Advice",
                        "A process the program starts itself reports as a rank only with the job's "
                        "environment: start ranks with torch.multiprocessing.spawn or keep "
                        "RINGMASTER_TELEMETRY_SOCKET, RINGMASTER_JOB_ID and RINGMASTER_JOB_SECRET in "
                        "their environment. A rank the agent refused says why in the program's output "
                        "(a wrong secret, a rank number taken twice)."));
}

// Findings of no detector's kind: what an import or the run history tells.
Sentence otherAdvice(const v1::Finding& f) {
  if (f.cause() == "implausible durations") {
    return phrase(
        QT_TRANSLATE_NOOP("ringmaster::Advice",
                          "Nothing to fix in training: the profiler recorded events longer than the "
                          "trace itself, most often because it stopped before they ended. Record the "
                          "trace again if you need their true length."));
  }
  if (f.cause() == "records not stored") {
    return phrase(
        QT_TRANSLATE_NOOP("ringmaster::Advice",
                          "Nothing to fix in training: the run history could not take these records, most "
                          "often because the disk holding it was full. Free space there, or keep the history "
                          "elsewhere with --store, before the next run."));
  }
  return {};
}

}  // namespace

AdviceReader adviceReaderOf(const std::string& source, bool userProgram, int64_t runId, bool terminal) {
  AdviceReader reader;
  reader.ringmasterEngine = source == "live" && !userProgram;
  reader.terminal = terminal;
  reader.runId = runId;
  return reader;
}

Sentence adviceFor(const v1::Finding& f, const AdviceReader& reader) {
  switch (f.kind()) {
    case v1::Finding::KIND_STRAGGLER:
      return stragglerAdvice(f);
    case v1::Finding::KIND_MEMORY_LEAK:
      return leakAdvice(f);
    case v1::Finding::KIND_STALL:
      return stallAdvice(f);
    case v1::Finding::KIND_COMMUNICATION:
      return communicationAdvice(f, reader);
    case v1::Finding::KIND_SCALING:
      return scalingAdvice(f);
    case v1::Finding::KIND_DIVERGENCE:
      return divergenceAdvice(f);
    case v1::Finding::KIND_CRASH:
      return crashAdvice(f, reader);
    case v1::Finding::KIND_RESTART:
      return restartAdvice(f, reader);
    case v1::Finding::KIND_COLLECTIVES:
      return collectivesAdvice(f);
    case v1::Finding::KIND_REPLICA_DRIFT:
      return replicaDriftAdvice(f);
    case v1::Finding::KIND_MISSING_TELEMETRY:
      return missingTelemetryAdvice();
    default:
      return otherAdvice(f);
  }
}

void addAdvice(v1::Finding& finding) {
  if (finding.advice().empty()) finding.set_advice(toText(adviceFor(finding)));
}

bool adviceIsOurs(const v1::Finding& finding) {
  return finding.advice().empty() || finding.advice() == toText(adviceFor(finding));
}

std::string adviceTextFor(const v1::Finding& finding, const AdviceReader& reader) {
  return adviceIsOurs(finding) ? toText(adviceFor(finding, reader)) : finding.advice();
}

}  // namespace ringmaster::diagnosis
