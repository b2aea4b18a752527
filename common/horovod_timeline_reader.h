// SPDX-License-Identifier: GPL-3.0-or-later
// Turns a Horovod timeline or a Chrome trace into Ringmaster timeline events, streaming, and imports it into the
// run store as a run.
//
// Horovod's timeline (HOROVOD_TIMELINE) is a bare JSON array written by rank 0 in which each tensor is a
// "process" (pid, named by a process_name metadata event) and its phases are nested B/E pairs: NEGOTIATE_ALLREDUCE
// with one zero-length tick per rank named by the rank number when that rank became ready, then ALLREDUCE with
// QUEUE, MEMCPY_IN_FUSION_BUFFER, NCCL_ALLREDUCE, ... inside. Its events become: rank 0, lane = tensor name,
// name = phase; each tick becomes an instant event of the ready rank on the tensor's lane, named by the rank
// number (as Horovod names it), which the timeline view draws as that rank's ready tick.
//
// Any other Chrome trace (PyTorch's profiler, our own --timeline files): each process is a rank (a process named
// "rank N" is rank N, others are numbered in order of appearance), each thread a lane (its thread_name when
// known), complete (X) events, B/E pairs and instants are kept; counters, flows and async events are counted and
// skipped.
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <string>

#include "common/run_store.h"

namespace ringmaster {

enum class TraceFormat { HorovodTimeline, ChromeTrace };

struct TimelineReadSummary {
  TraceFormat format = TraceFormat::ChromeTrace;
  uint64_t traceEvents = 0;      // events read from the file
  uint64_t timelineEvents = 0;   // events produced
  uint64_t skipped = 0;          // events of kinds a timeline does not show
  uint64_t unfinished = 0;       // B events whose E never came
  int ranks = 0;                 // distinct ranks seen
  bool complete = true;          // false: the file was cut short; whole events were kept
  uint64_t bytesRead = 0;
};

// Reads `in` and calls `emit` for each timeline event. Throws JsonError (malformed, with byte position) or
// InputError (valid JSON that is no trace).
TimelineReadSummary readTimeline(std::istream& in, const std::function<void(v1::TimelineEvent&)>& emit);

struct ImportResult {
  int64_t runId = 0;
  TimelineReadSummary summary;
};

// Imports the trace at `path` into `store` as a new run named `name` (default: the file's name). On malformed
// input nothing is kept and an InputError names the file and the byte position.
ImportResult importTimeline(RunStore& store, const std::string& path, const std::string& name = "");

std::string formatName(TraceFormat format);

}  // namespace ringmaster
