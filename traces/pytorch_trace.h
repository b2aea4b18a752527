// SPDX-License-Identifier: GPL-3.0-or-later
// Reads one rank's PyTorch profiler trace as measurements: its steps (ProfilerStep#N) with the time of each
// phase, its all-reduce ops, and the nesting depth of every op (for the timeline's one row per depth).
//
// Both forms PyTorch writes are read: the legacy profiler's (a bare array, pid "CPU functions", times from
// the profiler's start, no args) and Kineto's (an object with traceEvents, distributedInfo,
// baseTimeNanoseconds, GPU kernels, communication ops with message sizes). An op's phase comes from its name
// and from the op it is nested in: the outermost op that names a phase gives it to everything inside
// (communication excepted, which is always communication). Exposed communication is the communication time of
// a step that no compute covers: on a rank with GPU kernels, communication kernels against the other kernels
// (as Holistic Trace Analysis measures it); without, communication ops (Gloo's run on their own threads)
// against the compute ops of every thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringmaster/v1/records.pb.h"
#include "traces/chrome_trace_reader.h"

namespace ringmaster {

enum class OpPhase : uint8_t { Other, Step, Data, Forward, Backward, Optimizer, Communication };

// The phase an op's own name gives it; `gpuKernel` for kernels on a device (only communication kernels name
// one).
OpPhase opPhase(std::string_view name, bool gpuKernel = false);

// Bytes of a communication op from Kineto's args ("In msg nelems", "Out msg nelems", "dtype"); 0 when not
// given.
uint64_t commBytes(const std::map<std::string, std::string>& args);

// What one rank's trace holds, on the trace's own clock (ns from its time 0).
struct RankTrace {
  bool pytorch = false;          // written by PyTorch's profiler (steps, distributedInfo or its legacy form)
  std::optional<int> rank;       // distributedInfo.rank
  std::optional<int> worldSize;  // distributedInfo.world_size
  std::string backend;           // distributedInfo.backend ("nccl", "gloo"); "" when not told
  std::optional<int64_t> baseUnixNs;  // the Unix time of the trace's time 0, where the trace tells it
  int64_t firstNs = 0;                // earliest event
  int64_t lastNs = 0;                 // latest end of an event
  std::vector<uint8_t> depth;         // nesting depth by event index (order in the file); 0 for non-spans
  std::vector<v1::StepSample> steps;  // rank not set; times on the trace's clock
  std::vector<v1::AllreduceOp> ops;   // rank and bandwidth not set; times on the trace's clock
  // What the trace tells of each op beyond its record.
  struct OpFacts {
    int groupSize = 0;  // ranks of its process group ("Group size"); 0 when the trace does not say
    // Its start and end are the collective's own (its kernels', its backend op's); false when the trace has
    // only the call that queued it for a device (an NCCL trace without its kernels), which times no transfer.
    bool timed = true;
  };
  std::vector<OpFacts> opFacts;   // by op
  uint64_t otherCollectives = 0;  // broadcasts, all-gathers, ... within the steps: counted, not stored

  // Start of step `step` on the trace's clock, if the trace has it.
  std::optional<int64_t> stepStart(uint64_t step) const;
  // True when the trace's times are Unix times (baseTimeNanoseconds, or Kineto's older absolute timestamps),
  // which ranks on synchronised hosts share.
  bool unixClock() const { return baseUnixNs.has_value(); }
};

// Collects a trace's events as they are read (see readChromeTrace), then works out its steps and ops.
class PyTorchTraceScanner {
 public:
  PyTorchTraceScanner();
  ~PyTorchTraceScanner();
  PyTorchTraceScanner(const PyTorchTraceScanner&) = delete;
  PyTorchTraceScanner& operator=(const PyTorchTraceScanner&) = delete;

  // `index`: the event's position among the trace's events (0-based).
  void add(const TraceEvent& event, uint32_t index);
  // `nesting`: work out every op's depth also when the trace is no PyTorch profiler's (it is one rank of
  // several files); a lone other trace is imported as it is and needs none.
  RankTrace finish(const TraceReadSummary& read, bool nesting = true);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ringmaster
