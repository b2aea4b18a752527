// SPDX-License-Identifier: GPL-3.0-or-later
#include "traces/pytorch_trace.h"

#include <algorithm>
#include <charconv>
#include <deque>
#include <limits>
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
  // For a host span working for communication: the outermost communication op it is inside (itself for
  // that op), which is one collective call; UINT32_MAX for others.
  std::vector<uint32_t> commRoot;
};

// Merged times: each phase's host-side ops, and the compute and communication that exposed communication is
// measured with (kernels on a GPU rank, host ops otherwise).
struct PhaseTimes {
  Intervals data, forward, backward, optimizer;
  Intervals compute, comm;
  Intervals covered;  // any op of the host (every thread) or kernel of a device: the rank was seen at work
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
    uint32_t comm = UINT32_MAX;  // index into `comms`: communication ops, and what links a kernel to its call
    OpPhase phase = OpPhase::Other;
    bool device = false;  // on a GPU (kernels, GPU-side annotations)
    bool kernel = false;
    bool stack = false;       // a Python call-stack frame, not work of its own
    bool deviceComm = false;  // a GPU-side copy of a communication annotation (nccl:all_reduce)
  };
  // What a communication op tells, or a runtime call or a GPU-side annotation that may link a kernel to the
  // call that launched it; kept apart from Span, which every one of a trace's millions of events has.
  struct Comm {
    uint64_t bytes = 0;
    int64_t externalId = -1;   // Kineto's "External id": a kernel's is that of the host op that launched it
    int64_t correlation = -1;  // links a runtime call (cudaLaunchKernel) to the kernel it launched
    int groupSize = 0;         // ranks of its process group ("Group size"); 0 when not given
    bool allreduce = false;
    bool backend = false;  // the backend's own op (gloo:*, nccl:*), not the call that queued it
    bool nccl = false;
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
    if (s.device && !s.kernel) {
      s.deviceComm = s.phase == OpPhase::Communication;
      s.phase = OpPhase::Other;  // GPU-side copies of CPU annotations (ProfilerStep#N, nccl:all_reduce)
    }
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
    if (s.phase == OpPhase::Communication || s.deviceComm || startsWith(category, "cuda_runtime")) {
      Comm c;
      c.bytes = commBytes(args);
      c.externalId = numberIn<int64_t>(args, "External id").value_or(-1);
      c.correlation = numberIn<int64_t>(args, "correlation").value_or(-1);
      c.groupSize = numberIn<int>(args, "Group size").value_or(0);
      c.allreduce = s.phase == OpPhase::Communication && isAllreduce(name, args);
      c.backend = startsWith(name, "gloo:") || startsWith(name, "nccl:");
      c.nccl = startsWith(name, "nccl:");
      s.comm = uint32_t(comms.size());
      comms.push_back(c);
    }
    spans.push_back(s);
  }

  SpanPhases nestSpans(std::vector<uint8_t>& depth) const;
  bool hasKernels() const;
  PhaseTimes phaseTimes(const std::vector<OpPhase>& effective, bool gpu) const;
  std::vector<v1::StepSample> stepSamples(const PhaseTimes& times);
  // What the ops inside one collective call tell of it.
  struct Call {
    uint64_t bytes = 0;
    int groupSize = 0;
    bool allreduce = false;
    bool nccl = false;  // NCCL's (an nccl: op inside): run on a device, after the call returns
  };
  // One collective of the rank: when it was called, and its own start and end where the trace has them.
  struct Collective {
    int64_t at = 0;  // the call, or the kernel where no call launched it: what gives its step
    int64_t start = 0;
    int64_t end = 0;
    uint64_t bytes = 0;
    int groupSize = 0;
    bool allreduce = false;
    bool timed = true;
  };
  HostAllreduces hostAllreduces(const std::vector<bool>& outermostComm) const;
  std::unordered_map<uint32_t, Call> hostCalls(const SpanPhases& phases) const;
  std::vector<size_t> allreduceSpans(const std::vector<bool>& outermostComm, bool haveBackendOps) const;
  std::vector<Collective> hostCollectives(const SpanPhases& phases) const;
  std::vector<Collective> deviceCollectives(const SpanPhases& phases) const;
  void allreduceOps(const SpanPhases& phases, bool gpu, RankTrace& trace) const;
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
                    std::vector<bool>(spans.size(), false), std::vector<uint32_t>(spans.size(), UINT32_MAX)};
  std::vector<uint32_t> stack;
  for (size_t k = 0; k < order.size(); ++k) {
    const uint32_t i = order[k];
    const auto& span = spans[i];
    if (k > 0 && spans[order[k - 1]].thread != span.thread) stack.clear();
    while (!stack.empty() && spans[stack.back()].end <= span.start) stack.pop_back();
    depth[span.index] = uint8_t(std::min<size_t>(stack.size(), 255));
    OpPhase parent = stack.empty() ? OpPhase::Other : phases.effective[stack.back()];
    if (parent == OpPhase::Communication) phases.commRoot[i] = phases.commRoot[stack.back()];
    if (span.phase == OpPhase::Communication) {
      phases.effective[i] = OpPhase::Communication;
      phases.outermostComm[i] = parent != OpPhase::Communication;
      if (phases.outermostComm[i]) phases.commRoot[i] = i;
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
    if ((!span.device || span.kernel) && !span.stack && span.phase != OpPhase::Step)
      times.covered.push_back(time);
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
  for (Intervals* list : {&times.data, &times.forward, &times.backward, &times.optimizer, &times.compute,
                          &times.comm, &times.covered}) {
    *list = merged(std::move(*list));
  }
  return times;
}

// Steps, from the host side's ProfilerStep#N, each with the time of its phases; a step named twice is kept
// once. The time of a step in which neither the host (on any thread) nor a device ran any op is the rank's
// own (loading data, sleeping, host work the profiler does not see, before its first op or between two): it
// is counted as data time, since the others wait for it as for a slow input pipeline.
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
    // A profiler trace holds neither the loss nor the learning rate: not measured.
    sample.set_loss(std::numeric_limits<double>::quiet_NaN());
    sample.set_lr(std::numeric_limits<double>::quiet_NaN());
    const int64_t uncovered = (span.end - span.start) - length(clipped(times.covered, span.start, span.end));
    sample.set_data_ns(length(clipped(times.data, span.start, span.end)) + uncovered);
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
    if (span.phase != OpPhase::Communication || span.device) continue;
    const auto& c = comms[span.comm];
    host.haveBackendOps = host.haveBackendOps || (c.backend && c.allreduce && outermostComm[i]);
    if (c.bytes == 0 || !c.allreduce) continue;
    if (c.externalId >= 0) host.bytesByExternalId.try_emplace(c.externalId, c.bytes);
    if (!c.backend) host.sizedCalls.emplace_back(span.start, c.bytes);
  }
  std::sort(host.sizedCalls.begin(), host.sizedCalls.end());
  return host;
}

std::unordered_map<uint32_t, PyTorchTraceScanner::State::Call> PyTorchTraceScanner::State::hostCalls(
    const SpanPhases& phases) const {
  std::unordered_map<uint32_t, Call> calls;
  for (uint32_t i = 0; i < spans.size(); ++i) {
    const uint32_t root = phases.commRoot[i];
    if (root == UINT32_MAX || spans[i].device) continue;
    Call& call = calls[root];
    const auto& span = spans[i];
    if (span.phase != OpPhase::Communication) continue;
    const auto& c = comms[span.comm];
    call.bytes = std::max(call.bytes, c.bytes);
    call.groupSize = std::max(call.groupSize, c.groupSize);
    call.allreduce = call.allreduce || c.allreduce;
    call.nccl = call.nccl || c.nccl;
  }
  return calls;
}

// The spans that are all-reduce ops of a rank without kernels, by start: the backend's own ops where the
// trace has them (Gloo's, on its threads), else the calls that queued them.
std::vector<size_t> PyTorchTraceScanner::State::allreduceSpans(const std::vector<bool>& outermostComm,
                                                               bool haveBackendOps) const {
  std::vector<size_t> opSpans;
  for (size_t i = 0; i < spans.size(); ++i) {
    const auto& span = spans[i];
    if (span.phase != OpPhase::Communication || !comms[span.comm].allreduce) continue;
    if (!span.device && outermostComm[i] && comms[span.comm].backend == haveBackendOps) opSpans.push_back(i);
  }
  std::sort(opSpans.begin(), opSpans.end(),
            [&](size_t a, size_t b) { return spans[a].start < spans[b].start; });
  return opSpans;
}

// The collectives of a rank without kernels. Sizes come from the op's args or, in order, from the calls that
// carry one. A call that NCCL runs on a device is timed by its kernels, which the trace lacks: its host span
// is only the time to queue it.
std::vector<PyTorchTraceScanner::State::Collective> PyTorchTraceScanner::State::hostCollectives(
    const SpanPhases& phases) const {
  const HostAllreduces host = hostAllreduces(phases.outermostComm);
  const auto calls = hostCalls(phases);
  std::vector<Collective> out;
  size_t nextSized = 0;
  for (size_t i : allreduceSpans(phases.outermostComm, host.haveBackendOps)) {
    const auto& span = spans[i];
    const auto& c = comms[span.comm];
    Collective k;
    k.at = span.start;
    k.start = span.start;
    k.end = span.end;
    k.bytes = c.bytes;
    k.allreduce = true;
    if (auto call = calls.find(uint32_t(i)); call != calls.end()) {
      k.bytes = std::max(k.bytes, call->second.bytes);
      k.groupSize = call->second.groupSize;
      k.timed = !call->second.nccl;
    }
    if (k.bytes == 0 && c.backend && nextSized < host.sizedCalls.size())
      k.bytes = host.sizedCalls[nextSized].second;
    if (c.backend) ++nextSized;
    if (!k.timed) k.end = k.start;
    out.push_back(k);
  }
  // Other collectives (broadcasts, all-gathers) are counted, not measured: each once, as the backend's op
  // or as the call, whichever the all-reduces are counted by.
  for (const auto& [root, call] : calls) {
    if (!call.allreduce && comms[spans[root].comm].backend == host.haveBackendOps) {
      Collective k;
      k.at = k.start = k.end = spans[root].start;
      k.timed = false;
      out.push_back(k);
    }
  }
  return out;
}

// The collectives of a rank with kernels: each call the host made (an outermost communication op, with
// record_param_comms and the nccl: annotation inside it) is one collective, timed by the kernels it launched
// (found by their External id or their launch's correlation), else by its GPU-side annotation; a
// communication kernel no call launched is a collective of its own. So a collective seen on both sides counts
// once.
std::vector<PyTorchTraceScanner::State::Collective> PyTorchTraceScanner::State::deviceCollectives(
    const SpanPhases& phases) const {
  const auto calls = hostCalls(phases);
  std::unordered_map<uint32_t, size_t> byRoot;
  std::vector<Collective> out;
  for (const auto& [root, call] : calls) {
    byRoot[root] = out.size();
    Collective k;
    k.at = spans[root].start;
    k.start = spans[root].start;
    k.end = spans[root].start;
    k.bytes = call.bytes;
    k.groupSize = call.groupSize;
    k.allreduce = call.allreduce;
    k.timed = false;
    out.push_back(k);
  }
  std::unordered_map<int64_t, size_t> byExternalId, byCorrelation;
  for (uint32_t i = 0; i < spans.size(); ++i) {
    const uint32_t root = phases.commRoot[i];
    if (root == UINT32_MAX || spans[i].device || spans[i].comm == UINT32_MAX) continue;
    const auto& c = comms[spans[i].comm];
    if (c.externalId >= 0) byExternalId.try_emplace(c.externalId, byRoot.at(root));
    if (c.correlation >= 0) byCorrelation.try_emplace(c.correlation, byRoot.at(root));
  }
  auto callOf = [&](const Span& span) -> std::optional<size_t> {
    const auto& c = comms[span.comm];
    if (auto it = byExternalId.find(c.externalId); c.externalId >= 0 && it != byExternalId.end())
      return it->second;
    if (auto it = byCorrelation.find(c.correlation); c.correlation >= 0 && it != byCorrelation.end())
      return it->second;
    return std::nullopt;
  };
  std::vector<bool> byKernel(out.size(), false);
  for (const auto& span : spans) {
    if (!span.kernel || span.phase != OpPhase::Communication) continue;
    const auto& c = comms[span.comm];
    auto call = callOf(span);
    if (!call) {
      call = out.size();
      out.emplace_back().at = span.start;
      byKernel.push_back(false);
    }
    Collective& k = out[*call];
    k.start = byKernel[*call] ? std::min(k.start, span.start) : span.start;
    k.end = byKernel[*call] ? std::max(k.end, span.end) : span.end;
    byKernel[*call] = true;
    k.timed = true;
    k.bytes = std::max(k.bytes, c.bytes);
    k.groupSize = std::max(k.groupSize, c.groupSize);
    k.allreduce = k.allreduce || c.allreduce;
  }
  for (const auto& span : spans) {
    if (!span.deviceComm) continue;
    auto call = callOf(span);
    if (!call || byKernel[*call]) continue;
    Collective& k = out[*call];
    k.start = k.timed ? std::min(k.start, span.start) : span.start;
    k.end = k.timed ? std::max(k.end, span.end) : span.end;
    k.timed = true;
  }
  return out;
}

// All-reduce ops within `steps`, each in the step its call was made in; the other collectives are counted.
void PyTorchTraceScanner::State::allreduceOps(const SpanPhases& phases, bool gpu, RankTrace& trace) const {
  std::vector<Collective> collectives = gpu ? deviceCollectives(phases) : hostCollectives(phases);
  std::sort(collectives.begin(), collectives.end(),
            [](const Collective& a, const Collective& b) { return a.start < b.start; });
  const StepFinder finder(trace.steps);
  std::map<uint64_t, uint32_t> bucketsInStep;
  for (const auto& k : collectives) {
    const v1::StepSample* step = finder.stepAt(k.at);
    if (!step) continue;  // outside the profiled steps (e.g. the parameters' broadcast at start)
    if (!k.allreduce) {
      ++trace.otherCollectives;
      continue;
    }
    v1::AllreduceOp op;
    op.set_step(step->step());
    op.set_bucket(bucketsInStep[step->step()]++);
    op.set_bytes(k.bytes);
    op.set_start_ns(k.start);
    op.set_end_ns(k.end);
    trace.ops.push_back(op);
    trace.opFacts.push_back({k.groupSize, k.timed});
  }
}

RankTrace PyTorchTraceScanner::finish(const TraceReadSummary& read, bool nesting) {
  State& s = *state_;
  RankTrace trace;
  trace.rank = numberIn<int>(read.metadata, "distributedInfo.rank");
  trace.worldSize = numberIn<int>(read.metadata, "distributedInfo.world_size");
  if (auto backend = read.metadata.find("distributedInfo.backend"); backend != read.metadata.end())
    trace.backend = backend->second.substr(0, 32);
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
  s.allreduceOps(phases, gpu, trace);
  return trace;
}

}  // namespace ringmaster
