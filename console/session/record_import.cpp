// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/session/record_import.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <queue>
#include <set>

#include "common/clock.h"
#include "common/error.h"
#include "common/printable.h"
#include "common/rank_frames.h"
#include "common/record_checks.h"
#include "console/session/ingest.h"
#include "console/session/launcher.h"

namespace ringmaster::console {
namespace {

namespace fs = std::filesystem;

constexpr size_t kReadChunk = size_t{1} << 20;
constexpr int kMaxRanks = 4096;
constexpr size_t kMaxNameBytes = 1024;  // a run's id or a host's name in a hello
// Job-clock times further than this from the job's epoch are no times at all (their sums would overflow).
constexpr int64_t kFarNs = int64_t{1} << 62;
// A replay's clock starts here, so that every arrival is positive (the diagnosis reads 0 as "no clock").
constexpr int64_t kReplayOriginNs = 1'000'000'000;
constexpr size_t kReplayBatch = 4096;
// Unix times before 2000 are a file's modification time that a copy did not keep, not when it was written.
constexpr int64_t kYear2000UnixNs = 946'684'800'000'000'000;

std::string howToMend() {
  return "nothing was imported: move the file out of the folder (or name the other files) to import the "
         "other ranks";
}

[[noreturn]] void refuse(const std::string& path, const std::string& problem) {
  throw InputError(path + ": " + problem + "; " + howToMend());
}

bool hasRecordExtension(const fs::path& path) {
  return path.extension() == kRecordFileExtension;
}

std::string fileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file";
}

// The job-clock time a record was written at, when it carries one.
std::optional<int64_t> writtenAt(const v1::Record& r) {
  std::optional<int64_t> t;
  switch (r.body_case()) {
    case v1::Record::kStep:
      if (std::abs(r.step().start_ns()) < kFarNs) t = r.step().start_ns() + r.step().total_ns();
      break;
    case v1::Record::kAllreduce:
      t = r.allreduce().end_ns();
      break;
    case v1::Record::kMemory:
      t = r.memory().time_ns();
      break;
    case v1::Record::kTimeline:
      t = r.timeline().end_ns();
      break;
    case v1::Record::kHeartbeat:
      t = r.heartbeat().time_ns();
      break;
    default:
      break;
  }
  if (t && std::abs(*t) >= kFarNs) t.reset();
  return t;
}

// A record file's frames, read a chunk at a time up to `limit` bytes; the file is open only while a chunk is
// read, so that an import of thousands of ranks holds no file open between chunks.
class FrameFile {
 public:
  FrameFile(std::string path, uint64_t limit)
      : path_(std::move(path)), limit_(limit), reader_(kRecordFileMagic) {}

  // The next whole frame; nullopt at the end of the whole frames, or where the frames are damaged (error()).
  std::optional<v1::RankFrame> next() {
    for (;;) {
      if (auto frame = reader_.next()) return frame;
      if (!reader_.error().empty() || fed_ >= limit_ || !refill()) return std::nullopt;
    }
  }
  const std::string& error() const { return reader_.error(); }
  const std::string& path() const { return path_; }
  uint64_t frames() const { return reader_.frames(); }
  // The magic and the whole frames read so far.
  uint64_t wholeBytes() const { return fed_ - reader_.pending(); }
  uint64_t fed() const { return fed_; }

 private:
  bool refill() {
    std::ifstream in(path_, std::ios::binary);
    if (!in || !in.seekg(static_cast<std::streamoff>(fed_))) {
      throw InputError(path_ + ": cannot be read (" + std::strerror(errno) + "); nothing was imported");
    }
    std::string chunk(static_cast<size_t>(std::min<uint64_t>(kReadChunk, limit_ - fed_)), '\0');
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const std::streamsize got = in.gcount();
    if (got <= 0) return false;
    reader_.feed(std::string_view(chunk.data(), static_cast<size_t>(got)));
    fed_ += static_cast<uint64_t>(got);
    return true;
  }

  std::string path_;
  uint64_t limit_;
  RankFrameReader reader_;
  uint64_t fed_ = 0;
};

// Whether the file holds nothing but zero bytes from `offset` to its end: what a host that went down while
// a rank wrote leaves after the rank's last whole frame.
bool zerosFrom(const std::string& path, uint64_t offset) {
  std::ifstream in(path, std::ios::binary);
  if (!in || !in.seekg(static_cast<std::streamoff>(offset))) return false;
  std::string chunk(kReadChunk, '\0');
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
    const auto got = static_cast<size_t>(in.gcount());
    if (std::any_of(chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(got),
                    [](char c) { return c != 0; }))
      return false;
  }
  return true;
}

std::string frameKind(const v1::RankFrame& frame) {
  switch (frame.body_case()) {
    case v1::RankFrame::kHello:
      return "a second hello";
    case v1::RankFrame::kPoll:
      return "a control poll";
    case v1::RankFrame::kWelcome:
    case v1::RankFrame::kRefused:
    case v1::RankFrame::kControl:
    case v1::RankFrame::kAccepted:
      return "an agent's answer";
    default:
      return "a frame of no known kind";
  }
}

struct ScannedFile {
  ImportedRecordFile info;
  std::string jobId;
  int worldSize = 0;  // as its hello says; 0: the rank did not know it
  uint64_t frames = 0;
  int64_t firstNs = std::numeric_limits<int64_t>::max();  // its records' times, on the job clock
  int64_t lastNs = std::numeric_limits<int64_t>::min();
  int64_t modifiedUnixNs = 0;
  std::set<std::string> backends;  // the process group's, as its runtime records say
  bool timed() const { return firstNs <= lastNs; }
};

// Reads a whole record file and checks it; throws InputError naming it when it cannot be imported.
ScannedFile scan(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw InputError("cannot read " + path + ": " + std::strerror(errno) + "; nothing was imported");
  }
  if (!S_ISREG(st.st_mode)) {
    throw InputError(path + ": " + fileKind(st.st_mode) +
                     ", not a regular file: name the record file itself (rank<R>-<host>-<pid>.rmrecs)");
  }
  ScannedFile file;
  file.info.path = path;
  file.modifiedUnixNs = int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  FrameFile frames(path, static_cast<uint64_t>(st.st_size));
  bool hello = false;
  while (auto frame = frames.next()) {
    const uint64_t number = frames.frames();
    if (!hello) {
      if (!frame->has_hello()) {
        refuse(path,
               "its first frame is not the rank's hello (which says which rank of which run wrote it): "
               "the file is damaged");
      }
      const v1::RankHello& h = frame->hello();
      if (h.world_size() < 0 || h.world_size() > kMaxRanks || h.rank() < 0 || h.rank() >= kMaxRanks ||
          (h.world_size() > 0 && h.rank() >= h.world_size())) {
        refuse(path, "its hello names rank " + std::to_string(h.rank()) + " of " +
                         std::to_string(h.world_size()) + ", which no run has: the file is damaged");
      }
      if (h.job_id().size() > kMaxNameBytes || h.host().size() > kMaxNameBytes) {
        refuse(path, "its hello's run id or host name is longer than " + std::to_string(kMaxNameBytes) +
                         " bytes: the file is damaged");
      }
      hello = true;
      file.jobId = h.job_id();
      file.worldSize = h.world_size();
      file.info.rank = h.rank();
      file.info.host = h.host();
      file.info.pid = h.pid();
      continue;
    }
    if (file.info.ended) {
      refuse(path, "frame " + std::to_string(number) +
                       " comes after the rank's end (bye): the file is damaged, or two files in one");
    }
    if (frame->has_bye()) {
      file.info.ended = true;
      continue;
    }
    if (frame->body_case() == v1::RankFrame::BODY_NOT_SET) {
      // Zero bytes to the end are a host that went down while the rank wrote: the rest was never written.
      const uint64_t at = frames.wholeBytes() - 4;  // where this frame's length was
      if (zerosFrom(path, at)) {
        file.info.cutShort = true;
        file.frames = number - 1;
        file.info.bytes = at;
        return file;
      }
      refuse(path, "frame " + std::to_string(number) + " (at byte " + std::to_string(at) +
                       ") is empty: the file is damaged there");
    }
    if (!frame->has_batch()) {
      refuse(path, "frame " + std::to_string(number) + " is " + frameKind(*frame) +
                       ", which a record file does not hold: the file is damaged");
    }
    if (static_cast<size_t>(frame->batch().records_size()) > kMaxRecordsPerReport) {
      refuse(path, "frame " + std::to_string(number) + " holds " +
                       std::to_string(frame->batch().records_size()) + " records, more than the " +
                       std::to_string(kMaxRecordsPerReport) + " a rank writes at once: the file is damaged");
    }
    const int world = std::max(file.worldSize, file.info.rank + 1);
    for (const auto& record : frame->batch().records()) {
      if (std::string problem = rankRecordProblem(record, file.info.rank, world); !problem.empty()) {
        if (file.info.refused++ == 0) file.info.firstRefused = std::move(problem);
        continue;
      }
      ++file.info.records;
      if (record.has_step()) {
        ++file.info.steps;
        file.info.lastStep = std::max(file.info.lastStep.value_or(0), record.step().step());
      }
      if (record.has_allreduce()) ++file.info.allreduceOps;
      if (record.has_runtime() && !record.runtime().backend().empty())
        file.backends.insert(record.runtime().backend());
      if (auto t = writtenAt(record)) {
        file.firstNs = std::min(file.firstNs, *t);
        file.lastNs = std::max(file.lastNs, *t);
      }
    }
  }
  if (!frames.error().empty()) {
    const uint64_t at = frames.wholeBytes();
    if (frames.frames() > 0 && zerosFrom(path, at)) {
      file.info.cutShort = true;
    } else if (frames.frames() == 0 && at == 0) {
      refuse(path, "it does not begin as a Ringmaster record file does (\"" +
                       std::string(kRecordFileMagic.substr(0, kRecordFileMagic.size() - 1)) +
                       "\"): it is not one, or its start is damaged");
    } else {
      refuse(path, frames.error() + " (at byte " + std::to_string(at) + "): the file is damaged there");
    }
  } else if (frames.wholeBytes() < frames.fed()) {
    file.info.cutShort = true;  // a torn last frame: the rank was ended while it wrote
  }
  if (!hello) {
    refuse(path, frames.fed() < kRecordFileMagic.size()
                     ? std::string("it ends before the record files' magic: the rank was ended as it began")
                     : std::string("it holds no whole hello (which says which rank of which run wrote it): "
                                   "the rank was ended before it wrote one"));
  }
  file.frames = frames.frames();
  file.info.bytes = frames.wholeBytes();
  return file;
}

// The record files `inputs` name: files as given, and folders' files that begin as record files do or are
// named like them (others, a README or a trace, are left alone), each folder's in name order.
std::vector<std::string> recordFiles(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const auto& input : inputs) {
    std::error_code error;
    if (!fs::is_directory(input, error)) {
      if (!fs::exists(fs::symlink_status(input, error))) {
        throw InputError("cannot read " + input + ": no such file or folder");
      }
      files.push_back(input);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(input, error)) {
      std::error_code kind;
      if (!entry.is_regular_file(kind)) continue;
      if (hasRecordExtension(entry.path()) || isRecordFile(entry.path().string()))
        found.push_back(entry.path().string());
    }
    if (error) throw InputError("cannot list " + input + ": " + error.message());
    if (found.empty()) {
      throw InputError(input +
                       " holds no record files (*.rmrecs): point at the folder the ranks wrote them to "
                       "(RINGMASTER_RECORD_DIR), gathered from every host, or name the files");
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  if (files.empty()) throw InputError("no record files to import: name files or a folder");
  return files;
}

std::string runNameFor(const std::vector<std::string>& inputs) {
  if (inputs.size() == 1) {
    fs::path path(inputs.front());
    if (!path.has_filename()) path = path.parent_path();  // "run1/"
    return path.filename().string();
  }
  return fs::absolute(inputs.front()).parent_path().filename().string();
}

// The files are one run's, each rank once; throws InputError naming the files that are not.
int checkOneRun(const std::vector<ScannedFile>& files) {
  const ScannedFile& first = files.front();
  int worldSize = 0;
  const ScannedFile* sized = nullptr;
  std::map<int, const ScannedFile*> byRank;
  for (const auto& f : files) {
    if (f.jobId != first.jobId) {
      throw InputError(first.info.path + " is of run \"" + printable(first.jobId) + "\" and " + f.info.path +
                       " of run \"" + printable(f.jobId) +
                       "\": import one run's record files at a time (name its files, or give each run a "
                       "folder of its own with RINGMASTER_RECORD_DIR); nothing was imported");
    }
    if (f.worldSize > 0 && sized && f.worldSize != sized->worldSize) {
      throw InputError(sized->info.path + " is of a run of " + std::to_string(sized->worldSize) +
                       " ranks and " + f.info.path + " of " + std::to_string(f.worldSize) +
                       ": they are of different runs, or attempts of one; import one attempt's files at a "
                       "time (name them); nothing was imported");
    }
    if (f.worldSize > 0 && !sized) sized = &f;
    auto [it, fresh] = byRank.emplace(f.info.rank, &f);
    if (!fresh) {
      const ScannedFile& other = *it->second;
      throw InputError(other.info.path + " and " + f.info.path + " both hold rank " +
                       std::to_string(f.info.rank) + " (pid " + std::to_string(other.info.pid) + " on " +
                       printable(other.info.host) + ", pid " + std::to_string(f.info.pid) + " on " +
                       printable(f.info.host) +
                       "): the folder holds two runs, or two attempts of one (a restart); name the files of "
                       "one to import it; nothing was imported");
    }
    worldSize = std::max({worldSize, f.worldSize, f.info.rank + 1});
  }
  return worldSize;
}

// The Unix time of a job-clock time: the file written last was last modified when its last record was
// written. Without such a time (no timed records, a copy that did not keep the times), now.
class UnixClock {
 public:
  explicit UnixClock(const std::vector<ScannedFile>& files) {
    const ScannedFile* last = nullptr;
    for (const auto& f : files) {
      if (f.timed() && (!last || f.lastNs > last->lastNs)) last = &f;
    }
    if (last && last->modifiedUnixNs > kYear2000UnixNs) {
      offsetNs_ = last->modifiedUnixNs - last->lastNs;
    } else {
      int64_t modified = 0;
      for (const auto& f : files) modified = std::max(modified, f.modifiedUnixNs);
      const int64_t end = modified > kYear2000UnixNs ? modified : unixNs();
      offsetNs_ = last ? end - last->lastNs : end;
    }
  }
  int64_t at(int64_t jobNs) const { return offsetNs_ + jobNs; }

 private:
  int64_t offsetNs_ = 0;
};

v1::Record rankState(const ScannedFile& f, v1::RankState::State state, int64_t unixTimeNs,
                     const std::string& message) {
  v1::Record r;
  auto* s = r.mutable_rank_state();
  s->set_rank(f.info.rank);
  s->set_state(state);
  s->set_pid(f.info.pid);
  s->set_host(f.info.host);
  s->set_time_unix_ns(unixTimeNs);
  s->set_message(message);
  return r;
}

// One file's records in the order written, each with its arrival on the replay's clock.
class Cursor {
 public:
  Cursor(const ScannedFile& file, int64_t originNs)
      : file_(file), frames_(file.info.path, file.info.bytes), originNs_(originNs) {
    frames_.next();  // the hello, read and checked by the scan
  }

  // Moves to the next record kept; false at the end of the file.
  bool advance() {
    for (;;) {
      if (at_ < batch_.size()) {
        v1::Record& r = batch_[at_];
        if (r.has_runtime() && r.runtime().host().empty()) r.mutable_runtime()->set_host(file_.info.host);
        if (auto t = writtenAt(r)) arrivalNs_ = std::max(arrivalNs_, *t - originNs_ + kReplayOriginNs);
        return true;
      }
      at_ = 0;
      batch_.clear();
      if (frames_.frames() >= file_.frames) return false;
      auto frame = frames_.next();
      if (!frame) {
        throw InputError(file_.info.path +
                         ": changed while it was imported (a rank still writing it?); nothing was imported");
      }
      if (!frame->has_batch()) continue;  // the bye
      const int world = std::max(file_.worldSize, file_.info.rank + 1);
      for (auto& record : *frame->mutable_batch()->mutable_records()) {
        if (rankRecordProblem(record, file_.info.rank, world).empty()) batch_.push_back(std::move(record));
      }
    }
  }
  v1::Record take() { return std::move(batch_[at_++]); }
  int64_t arrivalNs() const { return arrivalNs_; }
  const ScannedFile& file() const { return file_; }

 private:
  const ScannedFile& file_;
  FrameFile frames_;
  int64_t originNs_;
  std::vector<v1::Record> batch_;
  size_t at_ = 0;
  int64_t arrivalNs_ = kReplayOriginNs;
};

}  // namespace

bool isRecordFile(const std::string& path) {
  struct stat st {};
  // By its type before opening it: a FIFO with no writer would block the open.
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  std::ifstream in(path, std::ios::binary);
  std::string head(kRecordFileMagic.size(), '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  return in.gcount() == static_cast<std::streamsize>(head.size()) && head == kRecordFileMagic;
}

bool namesRecordFiles(const std::vector<std::string>& inputs) {
  for (const auto& input : inputs) {
    std::error_code error;
    if (!fs::is_directory(input, error)) {
      if (hasRecordExtension(input) || isRecordFile(input)) return true;
      continue;
    }
    for (const auto& entry : fs::directory_iterator(input, error)) {
      std::error_code kind;
      if (entry.is_regular_file(kind) &&
          (hasRecordExtension(entry.path()) || isRecordFile(entry.path().string())))
        return true;
    }
  }
  return false;
}

RecordImportResult importRecordFiles(RunStore& store, const std::vector<std::string>& inputs,
                                     const std::string& name) {
  std::vector<ScannedFile> files;
  for (const auto& path : recordFiles(inputs)) files.push_back(scan(path));
  std::sort(files.begin(), files.end(),
            [](const ScannedFile& a, const ScannedFile& b) { return a.info.rank < b.info.rank; });
  RecordImportResult result;
  result.worldSize = checkOneRun(files);
  result.jobId = files.front().jobId;
  std::set<std::string> hosts, backends;
  // The earliest and latest times the ranks' records carry, on the job clock.
  int64_t originNs = std::numeric_limits<int64_t>::max(), endNs = std::numeric_limits<int64_t>::min();
  bool allEnded = true;
  for (const auto& f : files) {
    result.files.push_back(f.info);
    result.records += f.info.records;
    result.steps += f.info.steps;
    result.allreduceOps += f.info.allreduceOps;
    result.bytes += f.info.bytes;
    allEnded = allEnded && f.info.ended;
    if (!f.info.host.empty()) hosts.insert(f.info.host);
    backends.insert(f.backends.begin(), f.backends.end());
    if (f.timed()) {
      originNs = std::min(originNs, f.firstNs);
      endNs = std::max(endNs, f.lastNs);
    }
  }
  if (originNs > endNs) originNs = endNs = 0;
  for (int r = 0, i = 0; r < result.worldSize; ++r) {
    if (i < int(files.size()) && files[size_t(i)].info.rank == r) {
      ++i;
    } else {
      result.missingRanks.push_back(r);
    }
  }
  const UnixClock unixClock(files);
  result.status = std::string(statusName(allEnded ? JobStatus::Succeeded : JobStatus::Failed));

  NewRun run;
  run.name = name.empty() ? runNameFor(inputs) : name;
  run.source = "records:" + fs::absolute(inputs.front()).string();
  run.status = "importing";
  run.worldSize = result.worldSize;
  run.spec.set_world_size(static_cast<uint32_t>(result.worldSize));
  if (backends.size() == 1 && *backends.begin() == "gloo") run.spec.set_backend(v1::BACKEND_GLOO);
  if (backends.size() == 1 && *backends.begin() == "nccl") run.spec.set_backend(v1::BACKEND_NCCL);
  run.startedUnixNs = unixClock.at(originNs);
  if (!result.jobId.empty()) run.environment["run id"] = result.jobId;

  std::optional<RunIngest> ingest;
  ingest.emplace(store.path(), run);
  result.runId = ingest->runId();
  try {
    std::map<std::string, std::map<std::string, std::string>> hostFacts;
    for (const auto& host : hosts) hostFacts[host];
    std::map<std::string, std::string> environment{{"hosts", std::to_string(hosts.size())}};
    if (!result.jobId.empty()) environment["run id"] = result.jobId;
    ingest->recordEnvironment(environment, hostFacts);

    std::vector<v1::Record> batch;
    std::vector<int64_t> arrivals;
    int64_t nowNs = kReplayOriginNs;
    const auto emit = [&](v1::Record record, int64_t arrivalNs) {
      nowNs = std::max(nowNs, arrivalNs);
      batch.push_back(std::move(record));
      arrivals.push_back(nowNs);
      if (batch.size() >= kReplayBatch) {
        ingest->replay(batch, arrivals);
        batch.clear();
        arrivals.clear();
      }
    };
    const auto unixAt = [&](int64_t arrivalNs) {
      return unixClock.at(arrivalNs - kReplayOriginNs + originNs);
    };
    for (const auto& f : files)
      emit(rankState(f, v1::RankState::STATE_RUNNING, unixClock.at(f.timed() ? f.firstNs : originNs),
                     "started"),
           kReplayOriginNs);

    std::vector<std::unique_ptr<Cursor>> cursors;
    using Next = std::pair<int64_t, size_t>;  // arrival, cursor
    std::priority_queue<Next, std::vector<Next>, std::greater<Next>> next;
    std::vector<const ScannedFile*> lost;  // by when their records stop
    // A file read to its end: its rank ended there (its bye), or is lost, which is told once all are read.
    const auto readToItsEnd = [&](const Cursor& c) {
      if (c.file().info.ended) {
        emit(rankState(c.file(), v1::RankState::STATE_EXITED, unixAt(c.arrivalNs()),
                       "ended: its record file is whole"),
             c.arrivalNs());
      } else {
        lost.push_back(&c.file());
      }
    };
    for (const auto& f : files) {
      cursors.push_back(std::make_unique<Cursor>(f, originNs));
      if (cursors.back()->advance()) {
        next.emplace(cursors.back()->arrivalNs(), cursors.size() - 1);
      } else {
        readToItsEnd(*cursors.back());
      }
    }
    while (!next.empty()) {
      const size_t i = next.top().second;
      next.pop();
      Cursor& c = *cursors[i];
      emit(c.take(), c.arrivalNs());
      if (c.advance()) {
        next.emplace(c.arrivalNs(), i);
      } else {
        readToItsEnd(c);
      }
    }
    // A rank without its end vanished when its records stop; the others may have waited for it (a stall)
    // until theirs stopped too, which is when the run is judged.
    const int64_t lastNs = nowNs;
    for (const ScannedFile* f : lost) {
      const int64_t stoppedNs = f->timed() ? f->lastNs - originNs + kReplayOriginNs : kReplayOriginNs;
      const std::string message = f->info.lastStep
                                      ? "its records stop after step " + std::to_string(*f->info.lastStep) +
                                            " without its end (killed, crashed, or its host went down)"
                                      : std::string(
                                            "its records stop before its first step without its end (killed, "
                                            "crashed, or its host went down)");
      emit(rankState(*f, v1::RankState::STATE_LOST, unixAt(stoppedNs), message), lastNs);
    }
    if (!batch.empty()) ingest->replay(batch, arrivals);
    ingest->finishAt(result.status, unixAt(lastNs), lastNs);
    if (ingest->recordsLost() > 0 || !ingest->storeProblem().empty()) {
      const std::string problem = ingest->storeProblem();
      ingest.reset();
      store.deleteRun(result.runId);
      throw StoreError("the run store " + store.path() + " did not take the import (" + problem +
                       "); nothing was imported");
    }
  } catch (const StoreError&) {
    throw;
  } catch (...) {
    ingest.reset();
    store.deleteRun(result.runId);
    throw;
  }
  return result;
}

}  // namespace ringmaster::console
