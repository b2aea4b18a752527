// SPDX-License-Identifier: GPL-3.0-or-later
#include "traces/pytorch_trace.h"

#include <algorithm>
#include <charconv>
#include <deque>
#include <unordered_map>
#include <utility>

#include "common/error.h"
#include "common/record_checks.h"

namespace ringmaster {

namespace {

bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}
bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

template <class Number>
std::optional<Number> numberIn(const std::map<std::string, std::string>& map, const std::string& key) {
  auto it = map.find(key);
  if (it == map.end()) return std::nullopt;
  Number value{};
  auto [end, error] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), value);
  if (error != std::errc() || end != it->second.data() + it->second.size()) return std::nullopt;
  return value;
}

// Bytes per element of PyTorch's scalar types, by the names Kineto writes ("Float", "BFloat16", ...).
uint64_t elementBytes(std::string_view dtype) {
  static const std::unordered_map<std::string_view, uint64_t> sizes = {
      {"Float", 4},       {"Double", 8},        {"Half", 2},         {"BFloat16", 2},
      {"Int", 4},         {"Long", 8},          {"Short", 2},        {"Char", 1},
      {"Byte", 1},        {"Bool", 1},          {"ComplexFloat", 8}, {"ComplexDouble", 16},
      {"ComplexHalf", 4}, {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1}};
  auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

bool isAllreduce(std::string_view name, const std::map<std::string, std::string>& args) {
  if (contains(name, "all_reduce") || contains(name, "allreduce") || contains(name, "AllReduce")) return true;
  auto it = args.find("Collective name");
  return it != args.end() && (it->second == "allreduce" || it->second == "all_reduce");
}

// Time intervals, sorted and disjoint.
using Intervals = std::vector<std::pair<int64_t, int64_t>>;

Intervals merged(Intervals spans) {
  std::sort(spans.begin(), spans.end());
  Intervals out;
  for (const auto& s : spans) {
    if (s.second <= s.first) continue;
    if (!out.empty() && s.first <= out.back().second) {
      out.back().second = std::max(out.back().second, s.second);
    } else {
      out.push_back(s);
    }
  }
  return out;
}

// The parts of `list` inside [a, b).
Intervals clipped(const Intervals& list, int64_t a, int64_t b) {
  Intervals out;
  auto it = std::lower_bound(list.begin(), list.end(), a,
                             [](const std::pair<int64_t, int64_t>& s, int64_t t) { return s.second <= t; });
  for (; it != list.end() && it->first < b; ++it)
    out.emplace_back(std::max(it->first, a), std::min(it->second, b));
  return out;
}

int64_t length(const Intervals& list) {
  int64_t total = 0;
  for (const auto& s : list) total += s.second - s.first;
  return total;
}

int64_t overlap(const Intervals& x, const Intervals& y) {
  int64_t total = 0;
  size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    total += std::max<int64_t>(0, std::min(x[i].second, y[j].second) - std::max(x[i].first, y[j].first));
    if (x[i].second < y[j].second) {
      ++i;
    } else {
      ++j;
    }
  }
  return total;
}

// What nesting gives each span (by span index).
struct SpanPhases {
  std::vector<OpPhase> effective;   // the phase it works for
  std::vector<bool> outermostComm;  // a communication op not inside another
};

// Merged times: each phase's host-side ops, and the compute and communication that exposed communication is
// measured with (kernels on a GPU rank, host ops otherwise).
struct PhaseTimes {
  Intervals data, forward, backward, optimizer;
  Intervals compute, comm;
};

// What the host side's all-reduce ops tell: the sizes that ops without one of their own take, and whether the
// backend's own ops are there.
struct HostAllreduces {
  std::unordered_map<int64_t, uint64_t> bytesByExternalId;
  std::vector<std::pair<int64_t, uint64_t>> sizedCalls;  // (start, bytes) of outermost sized calls
  bool haveBackendOps = false;
};

// Finds the step a time falls in; steps come in the order of their numbers, which need not be that of their
// starts.
class StepFinder {
 public:
  explicit StepFinder(const std::vector<v1::StepSample>& steps) : steps_(steps), byStart_(steps.size()) {
    for (size_t i = 0; i < byStart_.size(); ++i) byStart_[i] = i;
    std::sort(byStart_.begin(), byStart_.end(),
              [&](size_t a, size_t b) { return steps_[a].start_ns() < steps_[b].start_ns(); });
  }

  const v1::StepSample* stepAt(int64_t t) const {
    auto it = std::upper_bound(byStart_.begin(), byStart_.end(), t,
                               [&](int64_t time, size_t i) { return time < steps_[i].start_ns(); });
    if (it == byStart_.begin()) return nullptr;
    const auto& step = steps_[*std::prev(it)];
    return t < step.start_ns() + step.total_ns() ? &step : nullptr;
  }

 private:
  const std::vector<v1::StepSample>& steps_;
  std::vector<size_t> byStart_;
};

}  // namespace

OpPhase opPhase(std::string_view name, bool gpuKernel) {
  if (gpuKernel) return startsWith(name, "nccl") ? OpPhase::Communication : OpPhase::Other;
  if (startsWith(name, "ProfilerStep#")) return OpPhase::Step;
  if (startsWith(name, "enumerate(DataLoader)")) return OpPhase::Data;
  if (startsWith(name, "gloo:") || startsWith(name, "nccl:") || startsWith(name, "c10d::") ||
      name == "record_param_comms") {
    return OpPhase::Communication;
  }
  if (startsWith(name, "Optimizer.step#") || startsWith(name, "Optimizer.zero_grad#"))
    return OpPhase::Optimizer;
  if (startsWith(name, "autograd::engine::evaluate_function") || contains(name, "Backward")) {
    return OpPhase::Backward;
  }
  if (name == "DistributedDataParallel.forward" || startsWith(name, "nn.Module: ")) return OpPhase::Forward;
  return OpPhase::Other;
}

uint64_t commBytes(const std::map<std::string, std::string>& args) {
  auto dtype = args.find("dtype");
  if (dtype == args.end()) return 0;
  uint64_t elements = std::max(numberIn<uint64_t>(args, "In msg nelems").value_or(0),
                               numberIn<uint64_t>(args, "Out msg nelems").value_or(0));
  return elements * elementBytes(dtype->second);
}

std::optional<int64_t> RankTrace::stepStart(uint64_t step) const {
  auto it = std::lower_bound(steps.begin(), steps.end(), step,
                             [](const v1::StepSample& s, uint64_t n) { return s.step() < n; });
  if (it == steps.end() || it->step() != step) return std::nullopt;
  return it->start_ns();
}

struct PyTorchTraceScanner::State {
  // One op (an X event or a B/E pair) of the trace.
  struct Span {
    int64_t start = 0;
    int64_t end = 0;
    uint32_t thread = 0;
    uint32_t index = 0;          // event index (of the B event for a pair)
    uint32_t comm = UINT32_MAX;  // index into `comms` for communication ops
    OpPhase phase = OpPhase::Other;
    bool device = false;  // on a GPU (kernels, GPU-side annotations)
    bool kernel = false;
    bool stack = false;  // a Python call-stack frame, not work of its own
  };
  struct Comm {
    uint64_t bytes = 0;
    int64_t externalId = -1;
    bool allreduce = false;
    bool backend = false;  // the backend's own op (gloo:*, nccl:*), not the call that queued it
  };
  struct Open {
    uint32_t index;
    int64_t start;
    std::string name;
    std::string category;
    std::map<std::string, std::string> args;
  };

  std::unordered_map<std::string, uint32_t> threads;
  std::unordered_map<uint32_t, std::vector<Open>> open;
  // A deque: growing it never holds the old and the new copy at once (a trace of millions of ops).
  std::deque<Span> spans;
  std::vector<Comm> comms;
  std::vector<std::pair<uint64_t, uint32_t>> steps;  // (N of ProfilerStep#N, span)
  uint32_t events = 0;
  bool pytorch = false;
  bool sawTime = false;
  double firstUs = 0;
  double lastUs = 0;

  uint32_t threadOf(const TraceEvent& e) {
    std::string key = e.pid + '\x1f' + e.tid;
    return threads.try_emplace(std::move(key), uint32_t(threads.size())).first->second;
  }

  void addSpan(std::string_view name, std::string_view category,
               const std::map<std::string, std::string>& args, uint32_t thread, uint32_t index, int64_t start,
               int64_t end) {
    Span s;
    s.start = start;
    s.end = std::max(end, start);
    s.thread = thread;
    s.index = index;
    s.kernel = category == "kernel" || category == "Kernel";
    s.device = s.kernel || startsWith(category, "gpu_");
    s.stack = category == "python_function";
    s.phase = opPhase(name, s.kernel);
    if (s.device && !s.kernel)
      s.phase = OpPhase::Other;  // GPU-side copies of CPU annotations (ProfilerStep#N)
    if (s.phase == OpPhase::Step) {
      pytorch = true;
      uint64_t number = 0;
      const std::string_view digits = name.substr(std::string_view("ProfilerStep#").size());
      auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
      const bool allDigits = end == digits.data() + digits.size() && !digits.empty();
      if (!s.device && allDigits && (error == std::errc::result_out_of_range || number > kMaxStep)) {
        // A step no job reaches is a damaged trace: stored, every view would allocate up to it.
        throw InputError("event " + std::to_string(index + 1) + " (" + std::string(name.substr(0, 80)) +
                         ") names step " + std::string(digits.substr(0, 40)) + ", more than " +
                         std::to_string(kMaxStep) +
                         ", which no job reaches; the trace is damaged and nothing was imported");
      }
      if (error == std::errc() && allDigits && !s.device) {
        steps.emplace_back(number, uint32_t(spans.size()));
      }
    }
    if (s.phase == OpPhase::Communication) {
      Comm c;
      c.bytes = commBytes(args);
      c.externalId = numberIn<int64_t>(args, "External id").value_or(-1);
      c.allreduce = isAllreduce(name, args);
      c.backend = startsWith(name, "gloo:") || startsWith(name, "nccl:");
      s.comm = uint32_t(comms.size());
      comms.push_back(c);
    }
    spans.push_back(s);
  }

  SpanPhases nestSpans(std::vector<uint8_t>& depth) const;
  bool hasKernels() const;
  PhaseTimes phaseTimes(const std::vector<OpPhase>& effective, bool gpu) const;
  std::vector<v1::StepSample> stepSamples(const PhaseTimes& times);
  HostAllreduces hostAllreduces(const std::vector<bool>& outermostComm) const;
  std::vector<size_t> allreduceSpans(const std::vector<bool>& outermostComm, bool gpu,
                                     bool haveBackendOps) const;
  std::vector<v1::AllreduceOp> allreduceOps(const std::vector<bool>& outermostComm, bool gpu,
                                            const std::vector<v1::StepSample>& steps) const;
};

PyTorchTraceScanner::PyTorchTraceScanner() : state_(std::make_unique<State>()) {}
PyTorchTraceScanner::~PyTorchTraceScanner() = default;

void PyTorchTraceScanner::add(const TraceEvent& e, uint32_t index) {
  State& s = *state_;
  s.events = std::max(s.events, index + 1);
  if (e.phase == 'M') return;
  if (e.pid == "CPU functions") s.pytorch = true;  // the legacy profiler's only process
  if (!s.sawTime || e.tsUs < s.firstUs) s.firstUs = e.tsUs;
  s.lastUs = s.sawTime ? std::max(s.lastUs, e.tsUs + e.durUs) : e.tsUs + e.durUs;
  s.sawTime = true;
  switch (e.phase) {
    case 'X': {
      int64_t start = traceTimeToNs(e.tsUs);
      s.addSpan(e.name, e.category, e.args, s.threadOf(e), index, start, start + traceTimeToNs(e.durUs));
      break;
    }
    case 'B':
      s.open[s.threadOf(e)].push_back({index, traceTimeToNs(e.tsUs), e.name, e.category, e.args});
      break;
    case 'E': {
      auto& stack = s.open[s.threadOf(e)];
      if (stack.empty()) break;
      State::Open o = std::move(stack.back());
      stack.pop_back();
      s.addSpan(o.name.empty() ? e.name : o.name, o.category, o.args, s.threadOf(e), o.index, o.start,
                traceTimeToNs(e.tsUs));
      break;
    }
    default:
      break;
  }
}

// Nesting, thread by thread: parents before children (by start, the longer first), then a stack. Writes each
// span's depth by event index.
SpanPhases PyTorchTraceScanner::State::nestSpans(std::vector<uint8_t>& depth) const {
  std::vector<uint32_t> order(spans.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const auto& x = spans[a];
    const auto& y = spans[b];
    if (x.thread != y.thread) return x.thread < y.thread;
    if (x.start != y.start) return x.start < y.start;
    if (x.end != y.end) return x.end > y.end;
    return x.index < y.index;
  });
  // The phase an op works for: communication is always communication; otherwise the outermost op that names a
  // phase (a step names none of its own) gives it to everything inside.
  SpanPhases phases{std::vector<OpPhase>(spans.size(), OpPhase::Other),
                    std::vector<bool>(spans.size(), false)};
  std::vector<uint32_t> stack;
  for (size_t k = 0; k < order.size(); ++k) {
    const uint32_t i = order[k];
    const auto& span = spans[i];
    if (k > 0 && spans[order[k - 1]].thread != span.thread) stack.clear();
    while (!stack.empty() && spans[stack.back()].end <= span.start) stack.pop_back();
    depth[span.index] = uint8_t(std::min<size_t>(stack.size(), 255));
    OpPhase parent = stack.empty() ? OpPhase::Other : phases.effective[stack.back()];
    if (span.phase == OpPhase::Communication) {
      phases.effective[i] = OpPhase::Communication;
      phases.outermostComm[i] = parent != OpPhase::Communication;
    } else if (parent == OpPhase::Data || parent == OpPhase::Forward || parent == OpPhase::Backward ||
               parent == OpPhase::Optimizer || parent == OpPhase::Communication) {
      phases.effective[i] = parent;
    } else {
      phases.effective[i] = span.phase;
    }
    stack.push_back(i);
  }
  return phases;
}

bool PyTorchTraceScanner::State::hasKernels() const {
  return std::any_of(spans.begin(), spans.end(), [](const Span& x) { return x.kernel; });
}

PhaseTimes PyTorchTraceScanner::State::phaseTimes(const std::vector<OpPhase>& effective, bool gpu) const {
  PhaseTimes times;
  for (size_t i = 0; i < spans.size(); ++i) {
    const auto& span = spans[i];
    const std::pair<int64_t, int64_t> time{span.start, span.end};
    const OpPhase phase = effective[i];
    if (!span.device) {
      if (phase == OpPhase::Data) times.data.push_back(time);
      if (phase == OpPhase::Forward) times.forward.push_back(time);
      if (phase == OpPhase::Backward) times.backward.push_back(time);
      if (phase == OpPhase::Optimizer) times.optimizer.push_back(time);
    }
    if (gpu) {
      if (span.kernel) (phase == OpPhase::Communication ? times.comm : times.compute).push_back(time);
    } else if (!span.device) {
      if (phase == OpPhase::Communication) {
        times.comm.push_back(time);
      } else if (phase != OpPhase::Step && phase != OpPhase::Data && !span.stack) {
        times.compute.push_back(time);
      }
    }
  }
  for (Intervals* list :
       {&times.data, &times.forward, &times.backward, &times.optimizer, &times.compute, &times.comm}) {
    *list = merged(std::move(*list));
  }
  return times;
}

// Steps, from the host side's ProfilerStep#N, each with the time of its phases; a step named twice is kept
// once.
std::vector<v1::StepSample> PyTorchTraceScanner::State::stepSamples(const PhaseTimes& times) {
  std::sort(steps.begin(), steps.end());
  std::vector<v1::StepSample> samples;
  for (const auto& [number, spanIndex] : steps) {
    if (!samples.empty() && samples.back().step() == number) continue;
    const auto& span = spans[spanIndex];
    v1::StepSample sample;
    sample.set_step(number);
    sample.set_start_ns(span.start);
    sample.set_total_ns(span.end - span.start);
    sample.set_data_ns(length(clipped(times.data, span.start, span.end)));
    sample.set_forward_ns(length(clipped(times.forward, span.start, span.end)));
    sample.set_backward_ns(length(clipped(times.backward, span.start, span.end)));
    sample.set_optimizer_ns(length(clipped(times.optimizer, span.start, span.end)));
    const Intervals stepComm = clipped(times.comm, span.start, span.end);
    sample.set_comm_wait_ns(length(stepComm) -
                            overlap(stepComm, clipped(times.compute, span.start, span.end)));
    samples.push_back(sample);
  }
  return samples;
}

HostAllreduces PyTorchTraceScanner::State::hostAllreduces(const std::vector<bool>& outermostComm) const {
  HostAllreduces host;
  for (size_t i = 0; i < spans.size(); ++i) {
    const auto& span = spans[i];
    if (span.comm == UINT32_MAX || span.device) continue;
    const auto& c = comms[span.comm];
    host.haveBackendOps = host.haveBackendOps || (c.backend && c.allreduce && outermostComm[i]);
    if (c.bytes == 0 || !c.allreduce) continue;
    if (c.externalId >= 0) host.bytesByExternalId.try_emplace(c.externalId, c.bytes);
    if (!c.backend) host.sizedCalls.emplace_back(span.start, c.bytes);
  }
  std::sort(host.sizedCalls.begin(), host.sizedCalls.end());
  return host;
}

// The spans that are all-reduce ops, by start: on a GPU rank its communication kernels; otherwise the
// backend's own ops where the trace has them (Gloo's, on its threads), else the calls that queued them.
std::vector<size_t> PyTorchTraceScanner::State::allreduceSpans(const std::vector<bool>& outermostComm,
                                                               bool gpu, bool haveBackendOps) const {
  std::vector<size_t> opSpans;
  for (size_t i = 0; i < spans.size(); ++i) {
    const auto& span = spans[i];
    if (span.comm == UINT32_MAX || !comms[span.comm].allreduce) continue;
    const bool wanted =
        gpu ? span.kernel : !span.device && outermostComm[i] && comms[span.comm].backend == haveBackendOps;
    if (wanted) opSpans.push_back(i);
  }
  std::sort(opSpans.begin(), opSpans.end(),
            [&](size_t a, size_t b) { return spans[a].start < spans[b].start; });
  return opSpans;
}

// All-reduce ops within `steps`. Sizes come from the op's args, from the call that launched a kernel (its
// "External id"), or, in order, from the calls that carry one.
std::vector<v1::AllreduceOp> PyTorchTraceScanner::State::allreduceOps(
    const std::vector<bool>& outermostComm, bool gpu, const std::vector<v1::StepSample>& steps) const {
  const HostAllreduces host = hostAllreduces(outermostComm);
  const StepFinder finder(steps);
  std::vector<v1::AllreduceOp> ops;
  std::map<uint64_t, uint32_t> bucketsInStep;
  size_t nextSized = 0;
  for (size_t i : allreduceSpans(outermostComm, gpu, host.haveBackendOps)) {
    const auto& span = spans[i];
    const auto& c = comms[span.comm];
    uint64_t bytes = c.bytes;
    if (bytes == 0 && c.externalId >= 0) {
      auto it = host.bytesByExternalId.find(c.externalId);
      if (it != host.bytesByExternalId.end()) bytes = it->second;
    }
    if (bytes == 0 && !gpu && c.backend && nextSized < host.sizedCalls.size())
      bytes = host.sizedCalls[nextSized].second;
    if (!gpu && c.backend) ++nextSized;
    const v1::StepSample* step = finder.stepAt(span.start);
    if (!step) continue;  // outside the profiled steps (e.g. the parameters' broadcast at start)
    v1::AllreduceOp op;
    op.set_step(step->step());
    op.set_bucket(bucketsInStep[step->step()]++);
    op.set_bytes(bytes);
    op.set_start_ns(span.start);
    op.set_end_ns(span.end);
    ops.push_back(op);
  }
  return ops;
}

RankTrace PyTorchTraceScanner::finish(const TraceReadSummary& read, bool nesting) {
  State& s = *state_;
  RankTrace trace;
  trace.rank = numberIn<int>(read.metadata, "distributedInfo.rank");
  trace.worldSize = numberIn<int>(read.metadata, "distributedInfo.world_size");
  trace.pytorch = s.pytorch || trace.rank.has_value() || read.metadata.count("baseTimeNanoseconds") > 0;
  trace.firstNs = traceTimeToNs(s.firstUs);
  trace.lastNs = traceTimeToNs(s.lastUs);
  if (auto base = numberIn<int64_t>(read.metadata, "baseTimeNanoseconds")) {
    trace.baseUnixNs = *base;
  } else if (s.firstUs > 1e15) {
    trace.baseUnixNs = 0;  // Kineto before baseTimeNanoseconds: Unix microseconds
  }
  if (!trace.pytorch && !nesting) return trace;
  trace.depth.assign(s.events, 0);
  const SpanPhases phases = s.nestSpans(trace.depth);
  // Phases and all-reduce ops are measured within steps only.
  if (s.steps.empty()) return trace;

  const bool gpu = s.hasKernels();
  trace.steps = s.stepSamples(s.phaseTimes(phases.effective, gpu));
  trace.ops = s.allreduceOps(phases.outermostComm, gpu, trace.steps);
  return trace;
}

}  // namespace ringmaster
