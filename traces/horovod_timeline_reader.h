// SPDX-License-Identifier: GPL-3.0-or-later
// Turns a Horovod timeline or a Chrome trace into Ringmaster timeline events, streaming, and imports it into
// the run store as a run.
//
// Horovod's timeline (HOROVOD_TIMELINE) is a bare JSON array written by rank 0 in which each tensor is a
// "process" (pid, named by a process_name metadata event) and its phases are nested B/E pairs:
// NEGOTIATE_ALLREDUCE with one zero-length tick per rank named by the rank number when that rank became
// ready, then ALLREDUCE with QUEUE, MEMCPY_IN_FUSION_BUFFER, NCCL_ALLREDUCE, ... inside. Its events become:
// rank 0, lane = tensor name, name = phase; each tick becomes an instant event of the ready rank on the
// tensor's lane, named by the rank number (as Horovod names it), which the timeline view draws as that rank's
// ready tick.
//
// PyTorch profiler traces (one file per rank; see pytorch_trace.h): every event is the file's rank, each
// thread a lane with one sub-lane per nesting depth ("thread 1 · depth 2"), and the steps, phases and
// all-reduce ops the trace holds are stored as a live run's are, so that the run is diagnosed like one.
//
// Any other Chrome trace (our own --timeline files): each process is a rank (a process named "rank N" is rank
// N, others are numbered in order of appearance), each thread a lane (its thread_name when known), complete
// (X) events, B/E pairs and instants are kept; counters, flows and async events are counted and skipped.
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <string>
#include <vector>

#include "history/run_store.h"

namespace ringmaster {

enum class TraceFormat { HorovodTimeline, ChromeTrace, PyTorchProfiler };

struct TimelineReadSummary {
  TraceFormat format = TraceFormat::ChromeTrace;
  uint64_t traceEvents = 0;     // events read from the file
  uint64_t timelineEvents = 0;  // events produced
  uint64_t skipped = 0;         // events of kinds a timeline does not show
  uint64_t unfinished = 0;      // B events whose E never came
  int ranks = 0;                // distinct ranks seen
  bool complete = true;         // false: the file was cut short; whole events were kept
  uint64_t bytesRead = 0;
};

// How a trace's events become timeline events.
struct TimelineReadOptions {
  int rank = -1;        // every event on this rank; -1: ranks from the trace's processes
  int64_t shiftNs = 0;  // added to every time (the file's clock to the run's)
  // Nesting depth by event index: lanes become "<thread> · depth N". Null: lanes are threads.
  const std::vector<uint8_t>* depth = nullptr;
};

// Reads `in` and calls `emit` for each timeline event. Throws JsonError (malformed, with byte position) or
// InputError (valid JSON that is no trace).
TimelineReadSummary readTimeline(std::istream& in, const std::function<void(v1::TimelineEvent&)>& emit,
                                 const TimelineReadOptions& options = {});

// One imported file.
struct ImportedTrace {
  std::string path;
  int rank = -1;  // -1: ranks from the trace's processes
  TimelineReadSummary summary;
  uint64_t steps = 0;
  uint64_t allreduceOps = 0;
  uint64_t otherCollectives = 0;  // broadcasts, all-gathers, ... within its steps
};

struct ImportResult {
  int64_t runId = 0;
  TimelineReadSummary summary;  // over every file
  std::vector<ImportedTrace> files;
  std::string rankRule;  // how each file's rank was told, for a person
  std::string clock;     // how the files' times were lined up, for a person
  uint64_t steps = 0;    // step samples stored (all ranks)
  uint64_t allreduceOps = 0;
  // The job's ranks, the traced ones or more (distributedInfo.world_size): what bus bandwidth is measured
  // against. 0 for a trace that holds its ranks itself (a Horovod timeline).
  int worldSize = 0;
};

// Imports trace files into `store` as ONE new run named `name` (default: the file's or folder's name).
// `inputs` are files (.json or .json.gz) or one folder of them; several files are one rank each: the rank
// comes from the trace (distributedInfo.rank), else from a number in the file name ("rank3", "worker3",
// "-3."), else from the files' order. A Horovod timeline (all ranks in one file) is imported on its own. On
// malformed input, a file without events, or a folder without trace files nothing is kept and an InputError
// names the file and says why.
ImportResult importTraces(RunStore& store, const std::vector<std::string>& inputs,
                          const std::string& name = "");
// One file.
ImportResult importTimeline(RunStore& store, const std::string& path, const std::string& name = "");

std::string formatName(TraceFormat format);

}  // namespace ringmaster
