// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/horovod_timeline_reader.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include "common/chrome_trace_reader.h"
#include "common/clock.h"
#include "common/diagnosis/horovod_readiness.h"
#include "common/json.h"
#include "common/trace_extent.h"

namespace ringmaster {

namespace {

int64_t toNs(double us) { return std::llround(us * 1000.0); }

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

// Converts trace events to timeline events; decides the format from the first events.
class Converter {
 public:
  explicit Converter(const std::function<void(v1::TimelineEvent&)>& emit) : emit_(emit) {}

  void add(const TraceEvent& e) {
    if (e.phase == 'M') {
      metadata(e);
      return;
    }
    if (!decided_) {
      // Horovod writes no thread ids, names its tensors as processes and starts with its own header.
      horovod_ = horovodHeader_ || (!e.hasTid && !processNames_.empty());
      decided_ = true;
    }
    horovod_ ? addHorovod(e) : addChrome(e);
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
  };

  void metadata(const TraceEvent& e) {
    if (e.name == "process_name") {
      if (e.args.count("start_time_since_epoch_in_micros")) horovodHeader_ = true;
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
    event_.set_start_ns(start);
    event_.set_end_ns(std::max(end, start));
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
    int64_t ts = toNs(e.tsUs);
    switch (e.phase) {
      case 'B': stack.push_back({e.name, ts, e.args}); break;
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
          send(0, tensor, e.name, ts, ts + toNs(e.durUs), e.args);
        } else {
          send(0, e.pid.empty() ? "markers" : tensor, e.name, ts, ts, e.args);  // CYCLE_START markers
        }
        break;
      default: ++summary_.skipped;
    }
  }

  int rankOf(const std::string& pid) {
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

  std::string laneOf(const TraceEvent& e) {
    auto it = threadNames_.find(e.pid + "\x1f" + e.tid);
    if (it != threadNames_.end()) return it->second;
    return e.tid.empty() ? std::string("main") : "thread " + e.tid;
  }

  void addChrome(const TraceEvent& e) {
    int64_t ts = toNs(e.tsUs);
    switch (e.phase) {
      case 'X': send(rankOf(e.pid), laneOf(e), e.name, ts, ts + toNs(e.durUs), e.args); break;
      case 'i':
      case 'I': send(rankOf(e.pid), laneOf(e), e.name, ts, ts, e.args); break;
      case 'B': open_[e.pid + "\x1f" + e.tid].push_back({e.name, ts, e.args}); break;
      case 'E': {
        auto& stack = open_[e.pid + "\x1f" + e.tid];
        if (stack.empty()) {
          ++summary_.skipped;
          break;
        }
        Open open = std::move(stack.back());
        stack.pop_back();
        for (const auto& [k, v] : e.args) open.args[k] = v;
        send(rankOf(e.pid), laneOf(e), open.name.empty() ? e.name : open.name, open.startNs, ts, open.args);
        break;
      }
      default: ++summary_.skipped;
    }
  }

  const std::function<void(v1::TimelineEvent&)>& emit_;
  bool decided_ = false;
  bool horovod_ = false;
  bool horovodHeader_ = false;
  std::unordered_map<std::string, std::string> processNames_, threadNames_;
  std::unordered_map<std::string, std::vector<Open>> open_;
  std::unordered_map<std::string, int> rankByPid_;
  std::set<int> ranks_;
  v1::TimelineEvent event_;
  TimelineReadSummary summary_;
};

}  // namespace

std::string formatName(TraceFormat format) {
  return format == TraceFormat::HorovodTimeline ? "Horovod timeline" : "Chrome trace";
}

TimelineReadSummary readTimeline(std::istream& in, const std::function<void(v1::TimelineEvent&)>& emit) {
  Converter converter(emit);
  TraceReadSummary read = readChromeTrace(in, [&](const TraceEvent& e) { converter.add(e); });
  TimelineReadSummary summary = converter.finish();
  summary.traceEvents = read.events;
  summary.complete = read.complete;
  summary.bytesRead = read.bytesRead;
  return summary;
}

ImportResult importTimeline(RunStore& store, const std::string& path, const std::string& name) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read " + path + ": no such file or not readable");

  NewRun run;
  run.name = name.empty() ? std::filesystem::path(path).filename().string() : name;
  run.source = "import:" + std::filesystem::absolute(path).string();
  run.status = "importing";
  ImportResult result;
  result.runId = store.createRun(run);

  constexpr size_t kBatch = 20000;
  std::vector<v1::TimelineEvent> batch;
  batch.reserve(kBatch);
  diagnosis::ReadinessTally readiness;
  TraceExtent extent;
  try {
    result.summary = readTimeline(in, [&](v1::TimelineEvent& e) {
      readiness.observe(e);
      extent.observe(e);
      batch.push_back(std::move(e));
      if (batch.size() == kBatch) {
        store.appendTimeline(result.runId, batch);
        batch.clear();
      }
    });
    store.appendTimeline(result.runId, batch);
  } catch (const JsonError& e) {
    store.deleteRun(result.runId);
    throw InputError(path + ": " + e.what() + "; nothing was imported");
  } catch (const StoreError&) {
    throw;
  } catch (const InputError& e) {
    store.deleteRun(result.runId);
    throw InputError(path + ": " + e.what());
  }
  store.setWorldSize(result.runId, result.summary.ranks);
  // What only the import can tell is judged here, once; what the stored measurements tell is replayed on
  // reading.
  std::vector<v1::Finding> findings;
  if (result.summary.format == TraceFormat::HorovodTimeline) findings = readiness.findings();
  if (auto clipped = clipImplausibleDurations(store, result.runId, extent)) findings.push_back(*clipped);
  if (!findings.empty()) store.replaceFindings(result.runId, findings);
  store.setRunStatus(result.runId, "imported", unixNs());
  return result;
}

}  // namespace ringmaster
