// SPDX-License-Identifier: GPL-3.0-or-later
#include "traces/horovod_timeline_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <thread>
#include <unordered_map>
#include <vector>

#include "common/allreduce_bandwidth.h"
#include "common/clock.h"
#include "common/json.h"
#include "diagnosis/horovod_readiness.h"
#include "traces/chrome_trace_reader.h"
#include "traces/pytorch_trace.h"
#include "traces/trace_extent.h"

namespace ringmaster {

namespace {

bool isRankNumber(const std::string& text) {
  if (text.empty() || text.size() > 6) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

uint64_t stepOf(const std::map<std::string, std::string>& args) {
  auto it = args.find("step");
  if (it == args.end()) return 0;
  return std::strtoull(it->second.c_str(), nullptr, 10);
}

// Tells a Horovod timeline from other Chrome traces by its first events: Horovod writes no thread ids, names
// its tensors as processes and starts with its own header, which holds the timeline's start as a Unix time.
class HorovodSniffer {
 public:
  // Returns whether the trace is a Horovod timeline once an event other than metadata has been seen.
  std::optional<bool> add(const TraceEvent& e) {
    if (decided_) return horovod_;
    if (e.phase == 'M') {
      if (e.name == "process_name") {
        namedProcess_ = true;
        auto start = e.args.find("start_time_since_epoch_in_micros");
        if (start != e.args.end()) {
          header_ = true;
          // A start no clock can hold (beyond 2262 in nanoseconds, or before 1970) is no start at all.
          const long long micros = std::strtoll(start->second.c_str(), nullptr, 10);
          int64_t ns = 0;
          startUnixNs_ = micros > 0 && !__builtin_mul_overflow(micros, int64_t{1000}, &ns) ? ns : 0;
        }
      }
      return std::nullopt;
    }
    horovod_ = header_ || (!e.hasTid && namedProcess_);
    decided_ = true;
    return horovod_;
  }
  int64_t startUnixNs() const { return startUnixNs_; }

 private:
  bool decided_ = false, horovod_ = false, header_ = false, namedProcess_ = false;
  int64_t startUnixNs_ = 0;
};

// Converts trace events to timeline events; decides the format from the first events.
class Converter {
 public:
  Converter(const std::function<void(v1::TimelineEvent&)>& emit, const TimelineReadOptions& options)
      : emit_(emit), options_(options) {}

  void add(const TraceEvent& e) {
    const uint32_t index = index_++;
    if (auto horovod = sniffer_.add(e)) horovod_ = *horovod;
    if (e.phase == 'M') {
      metadata(e);
      return;
    }
    horovod_ ? addHorovod(e) : addChrome(e, index);
  }

  TimelineReadSummary finish() {
    for (const auto& [key, stack] : open_) summary_.unfinished += stack.size();
    summary_.format = horovod_ ? TraceFormat::HorovodTimeline : TraceFormat::ChromeTrace;
    summary_.ranks = int(ranks_.size());
    return summary_;
  }

 private:
  struct Open {
    std::string name;
    int64_t startNs;
    std::map<std::string, std::string> args;
    uint32_t index = 0;
  };

  void metadata(const TraceEvent& e) {
    if (e.name == "process_name") {
      auto it = e.args.find("name");
      if (it != e.args.end()) processNames_[e.pid] = it->second;
    } else if (e.name == "thread_name") {
      auto it = e.args.find("name");
      if (it != e.args.end()) threadNames_[e.pid + "\x1f" + e.tid] = it->second;
    }
  }

  void send(int rank, const std::string& lane, const std::string& name, int64_t start, int64_t end,
            const std::map<std::string, std::string>& args) {
    event_.Clear();
    event_.set_rank(rank);
    event_.set_lane(lane);
    event_.set_name(name);
    event_.set_start_ns(start + options_.shiftNs);
    event_.set_end_ns(std::max(end, start) + options_.shiftNs);
    event_.set_step(stepOf(args));
    for (const auto& [k, v] : args) (*event_.mutable_args())[k] = v;
    ranks_.insert(rank);
    ++summary_.timelineEvents;
    emit_(event_);
  }

  void addHorovod(const TraceEvent& e) {
    auto named = processNames_.find(e.pid);
    const std::string& tensor = named != processNames_.end() ? named->second : e.pid;
    auto& stack = open_[e.pid];
    int64_t ts = traceTimeToNs(e.tsUs);
    switch (e.phase) {
      case 'B':
        stack.push_back({e.name, ts, e.args});
        break;
      case 'E':
        if (stack.empty()) {
          ++summary_.skipped;
          break;
        }
        {
          Open open = std::move(stack.back());
          stack.pop_back();
          for (const auto& [k, v] : e.args) open.args[k] = v;
          send(0, tensor, open.name, open.startNs, ts, open.args);
        }
        break;
      case 'X':
      case 'i':
      case 'I':
        if (isRankNumber(e.name) && (e.durUs == 0 || e.phase != 'X')) {
          // A rank's ready tick inside NEGOTIATE_*.
          send(std::stoi(e.name), tensor, e.name, ts, ts, e.args);
        } else if (e.phase == 'X') {
          send(0, tensor, e.name, ts, ts + traceTimeToNs(e.durUs), e.args);
        } else {
          send(0, e.pid.empty() ? "markers" : tensor, e.name, ts, ts, e.args);  // CYCLE_START markers
        }
        break;
      default:
        ++summary_.skipped;
    }
  }

  int rankOf(const std::string& pid) {
    if (options_.rank >= 0) return options_.rank;
    auto it = rankByPid_.find(pid);
    if (it != rankByPid_.end()) return it->second;
    int rank = int(rankByPid_.size());
    auto named = processNames_.find(pid);
    if (named != processNames_.end() && named->second.rfind("rank ", 0) == 0) {
      rank = std::atoi(named->second.c_str() + 5);
    }
    rankByPid_[pid] = rank;
    return rank;
  }

  std::string laneOf(const TraceEvent& e, uint32_t index) {
    auto it = threadNames_.find(e.pid + "\x1f" + e.tid);
    std::string lane = it != threadNames_.end() ? it->second
                       : e.tid.empty()          ? std::string("main")
                                                : "thread " + e.tid;
    if (options_.depth) {
      const auto& depth = *options_.depth;
      lane += " \u00b7 depth " + std::to_string(index < depth.size() ? depth[index] : 0);
    }
    return lane;
  }

  void addChrome(const TraceEvent& e, uint32_t index) {
    int64_t ts = traceTimeToNs(e.tsUs);
    switch (e.phase) {
      case 'X':
        send(rankOf(e.pid), laneOf(e, index), e.name, ts, ts + traceTimeToNs(e.durUs), e.args);
        break;
      case 'i':
      case 'I':
        send(rankOf(e.pid), laneOf(e, index), e.name, ts, ts, e.args);
        break;
      case 'B':
        open_[e.pid + "\x1f" + e.tid].push_back({e.name, ts, e.args, index});
        break;
      case 'E': {
        auto& stack = open_[e.pid + "\x1f" + e.tid];
        if (stack.empty()) {
          ++summary_.skipped;
          break;
        }
        Open open = std::move(stack.back());
        stack.pop_back();
        for (const auto& [k, v] : e.args) open.args[k] = v;
        send(rankOf(e.pid), laneOf(e, open.index), open.name.empty() ? e.name : open.name, open.startNs, ts,
             open.args);
        break;
      }
      default:
        ++summary_.skipped;
    }
  }

  const std::function<void(v1::TimelineEvent&)>& emit_;
  const TimelineReadOptions& options_;
  HorovodSniffer sniffer_;
  uint32_t index_ = 0;
  bool horovod_ = false;
  std::unordered_map<std::string, std::string> processNames_, threadNames_;
  std::unordered_map<std::string, std::vector<Open>> open_;
  std::unordered_map<std::string, int> rankByPid_;
  std::set<int> ranks_;
  v1::TimelineEvent event_;
  TimelineReadSummary summary_;
};

// Ends the first reading of a file as soon as it shows itself a Horovod timeline (read once, as it is).
struct HorovodTimelineFound {
  int64_t startUnixNs = 0;
};

// A file's first reading: its measurements, and whether it is a Horovod timeline.
struct ScannedFile {
  std::string path;
  bool horovod = false;
  int64_t horovodStartUnixNs = 0;
  RankTrace trace;
  TraceReadSummary read;
};

// `alone`: the only file of its run.
ScannedFile scan(const std::string& path, bool alone) {
  ScannedFile file;
  file.path = path;
  TraceFile in(path);
  PyTorchTraceScanner scanner;
  HorovodSniffer sniffer;
  uint32_t index = 0;
  uint64_t events = 0;
  try {
    file.read = readChromeTrace(in.stream(), [&](const TraceEvent& e) {
      if (sniffer.add(e).value_or(false)) throw HorovodTimelineFound{sniffer.startUnixNs()};
      if (e.phase != 'M') ++events;
      scanner.add(e, index++);
    });
  } catch (const HorovodTimelineFound& found) {
    file.horovod = true;
    file.horovodStartUnixNs = found.startUnixNs;
    return file;
  }
  if (events == 0) {
    throw InputError(
        file.read.complete
            ? "the trace holds no events (a profiler writes events only for the steps its schedule "
              "records); nothing was imported"
            : "the file is cut short before its first event; nothing was imported");
  }
  file.trace = scanner.finish(file.read, !alone);
  return file;
}

bool isTraceFileName(const std::string& name) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  auto endsWith = [&](const std::string& tail) {
    return lower.size() >= tail.size() && lower.compare(lower.size() - tail.size(), tail.size(), tail) == 0;
  };
  return endsWith(".json") || endsWith(".json.gz");
}

// The files `inputs` name: files as given, folders as the trace files they hold (by name).
std::vector<std::string> traceFiles(const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const auto& input : inputs) {
    std::error_code error;
    if (!fs::is_directory(input, error)) {
      if (!fs::exists(input, error)) throw InputError("cannot read " + input + ": no such file or folder");
      // By its type, without opening it: a FIFO with no writer would block the open, a device never ends.
      struct stat info {};
      if (::stat(input.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
        throw InputError(input + ": " + fileKind(info.st_mode) +
                         ", not a regular file: name the trace file itself (a .json or .json.gz file)");
      }
      files.push_back(input);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(input, error)) {
      if (entry.is_regular_file(error) && isTraceFileName(entry.path().filename().string())) {
        found.push_back(entry.path().string());
      }
    }
    if (error) throw InputError("cannot list " + input + ": " + error.message());
    if (found.empty()) {
      throw InputError(input +
                       " holds no trace files (*.json, *.json.gz) and no record files (*.rmrecs); point at "
                       "the folder the profiler wrote its traces to, or the ranks their records to "
                       "(RINGMASTER_RECORD_DIR), or name the files");
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  if (files.empty()) throw InputError("no trace files to import: name files or a folder");
  return files;
}

// A rank in a file's name: "rank3", "worker_3", "trace-3.json".
std::optional<int> rankInFileName(const std::string& path) {
  static const std::regex pattern(R"((?:rank|worker)[-_]?(\d{1,6})|-(\d{1,6})\.)", std::regex::icase);
  const std::string name = std::filesystem::path(path).filename().string();
  std::smatch match;
  if (!std::regex_search(name, match, pattern)) return std::nullopt;
  return std::stoi(match[1].matched ? match[1].str() : match[2].str());
}

constexpr int kMaxRanks = 4096;
// A world size a trace may claim (distributedInfo.world_size): the largest jobs have some hundred thousand.
constexpr int kMaxWorldSize = 1 << 20;

// Every file's rank by the first rule that gives each a different one; the rule, for a person.
std::pair<std::vector<int>, std::string> assignRanks(const std::vector<ScannedFile>& files) {
  auto distinct = [](const std::vector<std::optional<int>>& ranks) -> std::optional<std::vector<int>> {
    std::set<int> seen;
    std::vector<int> out;
    for (const auto& r : ranks) {
      if (!r || *r < 0 || *r >= kMaxRanks || !seen.insert(*r).second) return std::nullopt;
      out.push_back(*r);
    }
    return out;
  };
  std::vector<std::optional<int>> fromTrace, fromName;
  for (const auto& f : files) {
    fromTrace.push_back(f.trace.rank);
    fromName.push_back(rankInFileName(f.path));
  }
  if (auto ranks = distinct(fromTrace)) return {*ranks, "rank from each trace's distributedInfo.rank"};
  if (auto ranks = distinct(fromName)) return {*ranks, "rank from the number in each file's name"};
  std::vector<int> order(files.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = int(i);
  return {order, "rank by file order (neither the traces nor the file names tell ranks apart)"};
}

// How far each file's times move onto the run's clock, and the run's start as a Unix time (0: unknown).
struct Alignment {
  std::vector<int64_t> shiftNs;
  int64_t startUnixNs = 0;
  std::string clock;
};

Alignment align(const std::vector<ScannedFile>& files) {
  Alignment a;
  const bool unixClock =
      std::all_of(files.begin(), files.end(), [](const ScannedFile& f) { return f.trace.unixClock(); });
  if (unixClock) {
    // Times the hosts share: the run starts with the earliest event of any rank.
    int64_t start = INT64_MAX;
    for (const auto& f : files) start = std::min(start, *f.trace.baseUnixNs + f.trace.firstNs);
    for (const auto& f : files) a.shiftNs.push_back(*f.trace.baseUnixNs - start);
    a.startUnixNs = start;
    a.clock = files.size() > 1 ? "ranks on the traces' shared clock" : "the trace's own clock";
    return a;
  }
  for (const auto& f : files) {
    if (f.trace.baseUnixNs) a.startUnixNs = *f.trace.baseUnixNs + f.trace.firstNs;
  }
  // No shared clock: the first step every rank has starts at the same time on every rank.
  std::optional<uint64_t> common;
  if (files.size() > 1) {
    for (const auto& step : files.front().trace.steps) {
      if (std::all_of(files.begin(), files.end(),
                      [&](const ScannedFile& f) { return f.trace.stepStart(step.step()).has_value(); })) {
        common = step.step();
        break;
      }
    }
  }
  if (!common) {
    for (const auto& f : files) a.shiftNs.push_back(-f.trace.firstNs);
    a.clock = files.size() > 1 ? "each rank from its own first event (no clock or step in common)"
                               : "the trace's own clock";
    return a;
  }
  int64_t lead = 0;  // how long before the common step the earliest rank's trace begins
  for (const auto& f : files) lead = std::max(lead, *f.trace.stepStart(*common) - f.trace.firstNs);
  for (const auto& f : files) a.shiftNs.push_back(lead - *f.trace.stepStart(*common));
  a.clock = "ranks lined up at the start of ProfilerStep#" + std::to_string(*common) + " (no shared clock)";
  return a;
}

std::string runNameFor(const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  if (inputs.size() == 1) {
    fs::path path = fs::path(inputs.front());
    if (!path.has_filename()) path = path.parent_path();  // "traces/"
    return path.filename().string();
  }
  return fs::absolute(inputs.front()).parent_path().filename().string();
}

// Runs `body` on the file at `path`; its errors name the file.
template <class Body>
auto namingFile(const std::string& path, Body&& body) {
  try {
    return body();
  } catch (const JsonError& e) {
    throw InputError(path + ": " + e.what() + "; nothing was imported");
  } catch (const StoreError&) {
    throw;
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what());
  }
}

// A Unix time a trace gives for its start, when it is one (after 2000; a test's or a broken writer's "1" is
// not).
int64_t plausibleUnixNs(int64_t ns) {
  return ns > 946'684'800'000'000'000 ? ns : 0;
}

// A file's events as timeline events, into the store; errors name the file. `observe` sees each event first.
TimelineReadSummary storeTimeline(RunStore& store, int64_t runId, const std::string& path,
                                  const TimelineReadOptions& options,
                                  const std::function<void(const v1::TimelineEvent&)>& observe = {}) {
  return namingFile(path, [&] {
    TraceFile in(path);
    RunStore::TimelineWriter writer(store, runId);
    TimelineReadSummary summary = readTimeline(
        in.stream(),
        [&](v1::TimelineEvent& e) {
          if (observe) observe(e);
          writer.add(e);
        },
        options);
    writer.finish();
    return summary;
  });
}

void addTotals(TimelineReadSummary& total, const TimelineReadSummary& file) {
  total.traceEvents += file.traceEvents;
  total.timelineEvents += file.timelineEvents;
  total.skipped += file.skipped;
  total.unfinished += file.unfinished;
  total.complete = total.complete && file.complete;
  total.bytesRead += file.bytesRead;
}

// Scans every file, as many at a time as there are cores: each file is read on its own, and the first reading
// of a folder of per-rank traces is half of its import. Errors are those of the first file in order that
// fails.
std::vector<ScannedFile> scanAll(const std::vector<std::string>& paths) {
  std::vector<ScannedFile> files(paths.size());
  std::vector<std::exception_ptr> errors(paths.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < paths.size(); i = next++) {
      try {
        files[i] = namingFile(paths[i], [&] { return scan(paths[i], paths.size() == 1); });
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  {
    struct Joined {
      std::vector<std::thread> threads;
      ~Joined() {
        for (auto& t : threads) t.join();
      }
    } helpers;
    const size_t threads = std::min<size_t>(paths.size(), std::max(1u, std::thread::hardware_concurrency()));
    for (size_t t = 1; t < threads; ++t) helpers.threads.emplace_back(work);
    work();
  }
  for (const auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  return files;
}

// A Horovod timeline or a single trace whose processes are its ranks: read once, as it is.
ImportResult importWhole(RunStore& store, const ScannedFile& file, const std::string& name,
                         int64_t startUnixNs) {
  NewRun run;
  run.name = name;
  run.source = "import:" + std::filesystem::absolute(file.path).string();
  run.status = "importing";
  run.startedUnixNs = plausibleUnixNs(startUnixNs);
  ImportResult result;
  result.runId = store.createRun(run);
  diagnosis::ReadinessTally readiness;
  TraceExtent extent;
  int64_t endNs = 0;
  try {
    result.summary = storeTimeline(store, result.runId, file.path, {}, [&](const v1::TimelineEvent& e) {
      readiness.observe(e);
      extent.observe(e);
      endNs = std::max(endNs, e.end_ns());
    });
  } catch (const StoreError&) {
    throw;
  } catch (...) {
    store.deleteRun(result.runId);
    throw;
  }
  if (result.summary.timelineEvents == 0) {
    store.deleteRun(result.runId);
    throw InputError(file.path + ": the trace holds no events a timeline shows; nothing was imported");
  }
  result.files.push_back({file.path, -1, result.summary, 0, 0});
  result.rankRule =
      file.horovod ? "ranks from the timeline's ready ticks" : "ranks from the trace's processes";
  result.clock = "the trace's own clock";
  store.setWorldSize(result.runId, result.summary.ranks);
  // What only the import can tell is judged here, once; what the stored measurements tell is replayed on
  // reading.
  std::vector<v1::Finding> findings;
  if (file.horovod) findings = readiness.findings();
  if (auto clipped = clipImplausibleDurations(store, result.runId, extent)) findings.push_back(*clipped);
  if (!findings.empty()) store.replaceFindings(result.runId, findings);
  endNs = std::min(endNs, extent.plausibleEndNs());
  store.setRunStatus(result.runId, "imported", run.startedUnixNs ? run.startedUnixNs + endNs : unixNs());
  return result;
}

}  // namespace

std::string formatName(TraceFormat format) {
  switch (format) {
    case TraceFormat::HorovodTimeline:
      return "Horovod timeline";
    case TraceFormat::PyTorchProfiler:
      return "PyTorch profiler trace";
    case TraceFormat::ChromeTrace:
      break;
  }
  return "Chrome trace";
}

TimelineReadSummary readTimeline(std::istream& in, const std::function<void(v1::TimelineEvent&)>& emit,
                                 const TimelineReadOptions& options) {
  Converter converter(emit, options);
  TraceReadSummary read = readChromeTrace(in, [&](const TraceEvent& e) { converter.add(e); });
  TimelineReadSummary summary = converter.finish();
  summary.traceEvents = read.events;
  summary.complete = read.complete;
  summary.bytesRead = read.bytesRead;
  return summary;
}

ImportResult importTraces(RunStore& store, const std::vector<std::string>& inputs, const std::string& name) {
  const std::vector<std::string> paths = traceFiles(inputs);
  std::vector<ScannedFile> files = scanAll(paths);
  for (const auto& file : files) {
    if (file.horovod && paths.size() > 1) {
      throw InputError(file.path + " is a Horovod timeline, which holds every rank: import it on its own");
    }
  }
  const std::string runName = name.empty() ? runNameFor(inputs) : name;
  if (files.size() == 1 && (files.front().horovod || !files.front().trace.pytorch)) {
    const auto& f = files.front();
    return importWhole(store, f, runName, f.horovod ? f.horovodStartUnixNs : f.trace.baseUnixNs.value_or(0));
  }

  auto [ranks, rule] = assignRanks(files);
  const Alignment alignment = align(files);
  int worldSize = int(files.size());
  for (int r : ranks) worldSize = std::max(worldSize, r + 1);
  // The job may have had more ranks than were traced (2 ranks' traces of a 128-rank job): its world size is
  // what bus bandwidth is measured against, while the run holds the ranks it has.
  int jobWorldSize = worldSize;
  std::string backend;
  for (const auto& f : files) {
    if (f.trace.worldSize && *f.trace.worldSize <= kMaxWorldSize)
      jobWorldSize = std::max(jobWorldSize, *f.trace.worldSize);
    if (backend.empty()) backend = f.trace.backend;
  }

  NewRun run;
  run.name = runName;
  run.source = "import:" + std::filesystem::absolute(inputs.front()).string();
  run.status = "importing";
  run.worldSize = worldSize;
  run.startedUnixNs = plausibleUnixNs(alignment.startUnixNs);
  if (backend == "nccl") run.spec.set_backend(v1::BACKEND_NCCL);
  if (backend == "gloo") run.spec.set_backend(v1::BACKEND_GLOO);
  if (jobWorldSize > worldSize) run.environment["world size"] = std::to_string(jobWorldSize);
  ImportResult result;
  result.worldSize = jobWorldSize;
  result.rankRule = rule;
  result.clock = alignment.clock;
  result.runId = store.createRun(run);
  int64_t endNs = 0;
  TraceExtent extent;
  try {
    for (size_t i = 0; i < files.size(); ++i) {
      const RankTrace& trace = files[i].trace;
      const int64_t shift = alignment.shiftNs[i];
      TimelineReadOptions options;
      options.rank = ranks[i];
      options.shiftNs = shift;
      options.depth = &trace.depth;
      ImportedTrace imported;
      imported.path = files[i].path;
      imported.rank = ranks[i];
      imported.summary = storeTimeline(store, result.runId, files[i].path, options,
                                       [&](const v1::TimelineEvent& e) { extent.observe(e); });
      imported.summary.format = trace.pytorch ? TraceFormat::PyTorchProfiler : TraceFormat::ChromeTrace;

      std::vector<v1::Record> records;
      for (v1::StepSample sample : trace.steps) {
        sample.set_rank(ranks[i]);
        sample.set_start_ns(sample.start_ns() + shift);
        *records.emplace_back().mutable_step() = std::move(sample);
      }
      for (size_t k = 0; k < trace.ops.size(); ++k) {
        v1::AllreduceOp op = trace.ops[k];
        const RankTrace::OpFacts& facts = trace.opFacts[k];
        op.set_rank(ranks[i]);
        op.set_start_ns(op.start_ns() + shift);
        op.set_end_ns(op.end_ns() + shift);
        // An op the trace does not time keeps no latency or bandwidth: not measured, rather than 0.
        if (facts.timed) setLatencyAndBandwidth(op, facts.groupSize > 1 ? facts.groupSize : jobWorldSize);
        *records.emplace_back().mutable_allreduce() = std::move(op);
      }
      store.append(result.runId, records);
      imported.steps = trace.steps.size();
      imported.allreduceOps = trace.ops.size();
      imported.otherCollectives = trace.otherCollectives;
      result.steps += imported.steps;
      result.allreduceOps += imported.allreduceOps;
      endNs = std::max(endNs, trace.lastNs + shift);
      addTotals(result.summary, imported.summary);
      result.files.push_back(std::move(imported));
    }
  } catch (const StoreError&) {
    throw;
  } catch (...) {
    store.deleteRun(result.runId);
    throw;
  }
  result.summary.format =
      files.front().trace.pytorch ? TraceFormat::PyTorchProfiler : TraceFormat::ChromeTrace;
  result.summary.ranks = int(files.size());
  if (auto clipped = clipImplausibleDurations(store, result.runId, extent)) {
    store.replaceFindings(result.runId, {*clipped});
    endNs = std::min(endNs, extent.plausibleEndNs());
  }
  store.setRunStatus(result.runId, "imported", run.startedUnixNs ? run.startedUnixNs + endNs : unixNs());
  return result;
}

ImportResult importTimeline(RunStore& store, const std::string& path, const std::string& name) {
  return importTraces(store, {path}, name);
}

}  // namespace ringmaster
