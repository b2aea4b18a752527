// SPDX-License-Identifier: GPL-3.0-or-later
// The run history: one SQLite file per user holding every run with its ranks, hosts, step samples, all-reduce
// ops, memory samples, timeline events, logs, stall reports and findings.
//
// Writes go in batches (one transaction per batch, prepared statements); the file is in WAL mode, so another
// RunStore (another thread or process) can read a run while it is being ingested. One RunStore object is used
// by one thread at a time. Records are protocol v1 messages; readers return value types.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "ringmaster/v1/job.pb.h"
#include "ringmaster/v1/records.pb.h"

namespace ringmaster {

// The store file is unusable: corrupt, locked, foreign, newer than this build, or not writable.
// The message names the file and says what to do.
class StoreError : public InputError {
 public:
  using InputError::InputError;
};

// What a new run starts with.
struct NewRun {
  std::string name;
  std::string source = "live";  // "live", "import:<file>" (a trace) or "records:<file>" (ranks' record files)
  std::string status = "running";
  v1::JobSpec spec;
  int worldSize = 0;                               // 0 = spec.world_size()
  int64_t startedUnixNs = 0;                       // 0 = now
  std::map<std::string, std::string> environment;  // versions, backend details, ...
};

struct RunInfo {
  int64_t id = 0;
  std::string name;
  std::string status;
  std::string source;
  std::string engine;  // "ddp", "horovod", or "" (imported)
  std::string backend;
  int worldSize = 0;
  int64_t startedUnixNs = 0;
  int64_t endedUnixNs = 0;  // 0 while running
  v1::JobSpec spec;
  std::map<std::string, std::string> environment;
  std::string notes;
  std::vector<std::string> tags;
  // The kinds of its warning and critical findings (v1::Finding::Kind), each once, in the enum's order.
  std::vector<int> findingKinds;
};

struct RankInfo {
  int rank = 0;
  std::string host;
  int pid = 0;
  v1::RankState::State state = v1::RankState::STATE_UNSPECIFIED;
  int exitCode = 0;
  int signal = 0;
  std::string message;
  std::optional<double> finalLoss;
  std::optional<double> testAccuracy;
  std::string paramChecksum;
  uint64_t steps = 0;
  double samplesPerS = 0;
  uint64_t recordsSent = 0;
  uint64_t recordsDropped = 0;
};

// Rows a run holds, per table.
struct TimelineExtent {
  int64_t events = 0;
  int64_t beginNs = 0;
  int64_t endNs = 0;
  // Its lanes in the order a reader of the whole timeline meets them, each with its earliest start.
  struct Lane {
    int rank = 0;
    std::string name;
    int64_t firstStartNs = 0;
  };
  std::vector<Lane> lanes;
};

struct RunCounts {
  int64_t steps = 0;
  int64_t allreduceOps = 0;
  int64_t memorySamples = 0;
  int64_t timelineEvents = 0;
  int64_t logLines = 0;
  int64_t stallReports = 0;
  int64_t findings = 0;
  int64_t total() const {
    return steps + allreduceOps + memorySamples + timelineEvents + logLines + stallReports + findings;
  }
};

// One rank's measurements, each sorted by step.
struct RankSeries {
  int rank = 0;
  std::vector<v1::StepSample> steps;
  std::vector<v1::AllreduceOp> allreduce;
  std::vector<v1::MemorySample> memory;
  std::vector<v1::Scalar> scalars;  // what the rank logged by name (test accuracy, ...); NaN: not finite
};

class RunStore {
 public:
  struct Options {
    bool readOnly = false;
    int busyTimeoutMs = 5000;  // how long to wait for another writer before calling the file locked
    // How long a live run's timeline events may wait in memory before their lanes' open chunks are stored
    // again (see append); 0: with every batch.
    int timelineFlushMs = 1000;
  };

  // Opens (creating it if needed, unless read-only) and migrates the store at `path`. Throws StoreError. A
  // store it creates only this user may read (0600). Read-only, it changes nothing: an empty file is not a
  // store, a store of an older schema is not upgraded.
  // Opened for writing, it marks "interrupted" every run still "running" or "importing" whose console has
  // died (see createRun).
  explicit RunStore(const std::string& path, Options options);
  explicit RunStore(const std::string& path) : RunStore(path, Options{}) {}
  ~RunStore();
  RunStore(RunStore&&) noexcept;
  RunStore& operator=(RunStore&&) noexcept;

  const std::string& path() const;
  // The schema version the file had when it was opened (0 for a new file), and the one it has now.
  int openedSchemaVersion() const;
  int schemaVersion() const;

  // ---- writing
  // A "running" or "importing" run is claimed by this process: it holds a lock file beside the store (in
  // <store>.consoles/) for as long as it lives, which tells a later reader whether the run's console (or the
  // import writing it) is still there.
  int64_t createRun(const NewRun& run);
  // Marks "interrupted" the runs left "running" or "importing" by processes that have died; returns how many.
  int markInterruptedRuns();
  void setRunStatus(int64_t runId, const std::string& status, int64_t endedUnixNs = 0);
  // A live run's end: its findings (replacing those stored) and its status, in one transaction. A live run
  // keeps a little room on the store's disk from createRun on: refused for a full disk, the end gives that
  // room back and is written again, so that a disk that filled during the run still gets its end.
  void endRun(int64_t runId, const std::string& status, int64_t endedUnixNs,
              const std::vector<v1::Finding>& findings);
  void setWorldSize(int64_t runId, int worldSize);
  void renameRun(int64_t runId, const std::string& name);
  void setNotes(int64_t runId, const std::string& notes);
  void addTag(int64_t runId, const std::string& tag);
  void removeTag(int64_t runId, const std::string& tag);
  void deleteRun(int64_t runId);
  // What a host told about itself (cores, memory, GPUs, versions), and the run's environment as a whole.
  void setHostInfo(int64_t runId, const std::string& host, const std::map<std::string, std::string>& info);
  void setEnvironment(int64_t runId, const std::map<std::string, std::string>& environment);

  // Stores a batch of records in one transaction. Sequence numbers are not kept: the agent's journal owns
  // them.
  //
  // Timeline events are kept per lane (rank, lane name) in compressed chunks (see history/timeline_chunk.h).
  // Appended here, a lane's events wait in its open chunk, which is stored when full and rewritten with the
  // batch that comes timelineFlushMs or more after the last rewrite, when the run's status changes from
  // "running", and when the store is closed: readers see a live run's timeline at most that late, and a
  // console that dies loses at most that much of it. (Rewriting every lane's open chunk with every batch
  // costs a live run of many ranks several times what its other records cost.)
  void append(int64_t runId, const v1::RecordBatch& batch);
  void append(int64_t runId, const std::vector<v1::Record>& records);
  void appendTimeline(int64_t runId, const std::vector<v1::TimelineEvent>& events);

  // Writes a large timeline (an import): each lane's events are stored as its chunks fill, in batches of
  // chunks, and the rest by finish(). Until then readers see the full chunks only; a writer destroyed
  // without finish() stores no more (an import that fails deletes its run).
  class TimelineWriter {
   public:
    TimelineWriter(RunStore& store, int64_t runId);
    ~TimelineWriter();
    TimelineWriter(const TimelineWriter&) = delete;
    TimelineWriter& operator=(const TimelineWriter&) = delete;
    void add(const v1::TimelineEvent& event);
    void finish();

   private:
    struct Lanes;
    void storeFull();
    RunStore& store_;
    int64_t runId_;
    std::unique_ptr<Lanes> lanes_;
  };
  // Timeline events ending after `afterNs` end at the latest end at or before it instead; each keeps its
  // recorded duration in the arg "recorded_dur_ns". For imported traces whose writer recorded absurd
  // durations.
  struct ClippedEnds {
    int64_t events = 0;
    int64_t longestNs = 0;  // the longest duration recorded among them
    int64_t clippedToNs = 0;
  };
  ClippedEnds clipTimelineEnds(int64_t runId, int64_t afterNs);
  // Forgets the run's step samples, all-reduce ops and memory samples of `fromStep` and later: a job
  // restarted from its checkpoint at that step records them again, and the later attempt's figures replace
  // the earlier's.
  void forgetStepsFrom(int64_t runId, uint64_t fromStep);
  // Replaces the run's findings (diagnosis re-runs as data arrives; the latest view wins).
  void replaceFindings(int64_t runId, const std::vector<v1::Finding>& findings);

  // ---- reading
  // A number that changes whenever another connection (another console, `ringmaster run`) has committed to
  // the file since this one last looked (SQLite's PRAGMA data_version): cheap enough to poll.
  int64_t dataVersion() const;
  std::vector<RunInfo> runs() const;  // newest first
  std::optional<RunInfo> run(int64_t runId) const;
  // "12" (an id), "last", or a run's name (the newest of that name). Throws InputError naming `text`.
  int64_t resolveRun(const std::string& text) const;
  RunCounts counts(int64_t runId) const;
  std::vector<RankInfo> ranks(int64_t runId) const;
  std::map<std::string, std::map<std::string, std::string>> hosts(int64_t runId) const;
  // Every rank that left any measurement, sorted by rank.
  std::vector<RankSeries> rankSeries(int64_t runId) const;
  std::vector<v1::LogLine> logs(int64_t runId, std::optional<int> rank = std::nullopt) const;
  std::vector<v1::StallReport> stallReports(int64_t runId) const;
  std::vector<v1::Finding> findings(int64_t runId) const;
  // How many timeline events the run has and the time they span (earliest start, latest end; 0 and 0 for
  // none), from the chunks' rows without unpacking any: what a reader needs to read a long run a range at a
  // time.
  TimelineExtent timelineExtent(int64_t runId) const;
  // Streams the run's timeline without holding it in memory, chunk by chunk as they were stored: each lane's
  // events in the order they were added (those of runs stored before chunks, row by row, come first). Throws
  // StoreError naming the run and lane when a chunk is damaged.
  void forEachTimelineEvent(int64_t runId, const std::function<void(const v1::TimelineEvent&)>& visit) const;
  // The same for the events that overlap [fromNs, toNs) (start before toNs, end at or after fromNs): only the
  // chunks that may hold such events are read, so a view of a short range of a long run reads little of it.
  void forEachTimelineEvent(int64_t runId, int64_t fromNs, int64_t toNs,
                            const std::function<void(const v1::TimelineEvent&)>& visit) const;

 private:
  void openForReading(const Options& options);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// True for an import whose process ended before it finished (kill -9, a crash): the run holds the part of the
// trace stored until then.
bool isInterruptedImport(const RunInfo& run);

// Host names and string maps as JSON objects (shared with readers of the store's text columns).
std::string encodeStringMap(const std::map<std::string, std::string>& map);
std::map<std::string, std::string> decodeStringMap(std::string_view json);

}  // namespace ringmaster
