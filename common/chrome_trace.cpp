// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/chrome_trace.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/error.h"

namespace ringmaster {
namespace {

constexpr std::string_view kOpening = "[\n";
constexpr std::string_view kClosing = "\n]\n";

}  // namespace

ChromeTraceWriter::ChromeTraceWriter(const std::string& path, const std::string& label)
    : path_(path), label_(label.empty() ? path : label), json_(pending_) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw InputError(label_ + ": cannot create the file: " + std::strerror(errno));
  std::string empty = std::string(kOpening) + std::string(kClosing.substr(1));
  if (::pwrite(fd_, empty.data(), empty.size(), 0) != static_cast<ssize_t>(empty.size())) {
    throw InputError(label_ + ": cannot write: " + std::strerror(errno));
  }
  fileSize_ = empty.size();
}

ChromeTraceWriter::~ChromeTraceWriter() {
  try {
    flush();
  } catch (const InputError&) {
    // The file keeps what was flushed before; a destructor has no one to tell.
  }
  ::close(fd_);
}

void ChromeTraceWriter::beginEvent() {
  if (eventsWritten_ + eventsQueued_ > 0) {
    pending_.Put(',');
    pending_.Put('\n');
  }
  json_.Reset(pending_);
  ++eventsQueued_;
}

void ChromeTraceWriter::beginMetadata(const char* name, int pid, int tid, const char* argKey) {
  beginEvent();
  json_.StartObject();
  json_.Key("name");
  json_.String(name);
  json_.Key("ph");
  json_.String("M");
  json_.Key("pid");
  json_.Int(pid);
  json_.Key("tid");
  json_.Int(tid);
  json_.Key("args");
  json_.StartObject();
  json_.Key(argKey);
}

void ChromeTraceWriter::endMetadata() {
  json_.EndObject();
  json_.EndObject();
}

void ChromeTraceWriter::nameRank(int rank, const std::string& label) {
  namedRanks_.insert(rank);
  beginMetadata("process_name", rank, 0, "name");
  json_.String(label);
  endMetadata();
  beginMetadata("process_sort_index", rank, 0, "sort_index");
  json_.Int(rank);
  endMetadata();
}

int ChromeTraceWriter::laneId(int rank, const std::string& lane) {
  if (!namedRanks_.count(rank)) nameRank(rank, "rank " + std::to_string(rank));
  auto& lanes = lanes_[rank];
  if (auto it = lanes.find(lane); it != lanes.end()) return it->second;
  // Compute first, then communication, then per-tensor lanes in the order they appear.
  int id = lane == "compute" ? 1 : lane == "comm" ? 2 : 3 + nextTensorLane_[rank]++;
  lanes[lane] = id;
  beginMetadata("thread_name", rank, id, "name");
  json_.String(lane);
  endMetadata();
  beginMetadata("thread_sort_index", rank, id, "sort_index");
  json_.Int(id);
  endMetadata();
  return id;
}

void ChromeTraceWriter::add(const v1::TimelineEvent& e) {
  int tid = laneId(e.rank(), e.lane());
  // Microseconds (Chrome trace's unit) with nanosecond precision.
  char micros[32];
  auto writeMicros = [&](int64_t ns) {
    int length = std::snprintf(micros, sizeof micros, "%.3f", static_cast<double>(ns) / 1000.0);
    json_.RawValue(micros, static_cast<size_t>(length), rapidjson::kNumberType);
  };
  beginEvent();
  json_.StartObject();
  json_.Key("name");
  json_.String(e.name());
  json_.Key("cat");
  json_.String(e.lane());
  bool instant = e.end_ns() <= e.start_ns();
  json_.Key("ph");
  json_.String(instant ? "i" : "X");
  if (instant) {
    json_.Key("s");
    json_.String("t");
  }
  json_.Key("ts");
  writeMicros(e.start_ns());
  if (!instant) {
    json_.Key("dur");
    writeMicros(e.end_ns() - e.start_ns());
  }
  json_.Key("pid");
  json_.Int(e.rank());
  json_.Key("tid");
  json_.Int(tid);
  json_.Key("args");
  json_.StartObject();
  json_.Key("step");
  json_.Uint64(e.step());
  // Sorted keys make the file reproducible.
  std::map<std::string, std::string> args(e.args().begin(), e.args().end());
  for (const auto& [key, value] : args) {
    json_.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    json_.String(value);
  }
  json_.EndObject();
  json_.EndObject();
}

void ChromeTraceWriter::flush() {
  if (pending_.GetSize() == 0) return;
  // Overwrite the closing bracket with the new events and a new closing bracket, in one write.
  bool first = eventsWritten_ == 0;
  uint64_t offset = first ? kOpening.size() : fileSize_ - kClosing.size();
  for (char c : kClosing) pending_.Put(c);
  const char* data = pending_.GetString();
  size_t left = pending_.GetSize();
  uint64_t at = offset;
  while (left > 0) {
    ssize_t n = ::pwrite(fd_, data, left, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      pending_.Pop(kClosing.size());  // the events stay queued for the next try
      throw InputError(label_ + ": cannot write: " + std::strerror(errno));
    }
    data += n;
    left -= static_cast<size_t>(n);
    at += static_cast<uint64_t>(n);
  }
  fileSize_ = at;
  eventsWritten_ += eventsQueued_;
  eventsQueued_ = 0;
  pending_.Clear();
}

}  // namespace ringmaster
