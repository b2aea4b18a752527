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

// Microseconds (Chrome trace's unit) with nanosecond precision.
std::string micros(int64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", static_cast<double>(ns) / 1000.0);
  return text;
}

std::string metadata(const char* name, int pid, int tid, const std::string& argKey, const std::string& argJson) {
  return std::string("{\"name\":\"") + name + "\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
         ",\"tid\":" + std::to_string(tid) + ",\"args\":{" + jsonString(argKey) + ":" + argJson + "}}";
}

}  // namespace

std::string jsonString(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

ChromeTraceWriter::ChromeTraceWriter(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw InputError("--timeline " + path + ": cannot create the file: " + std::strerror(errno));
  std::string empty = std::string(kOpening) + std::string(kClosing.substr(1));
  if (::pwrite(fd_, empty.data(), empty.size(), 0) != static_cast<ssize_t>(empty.size())) {
    throw InputError("--timeline " + path + ": cannot write: " + std::strerror(errno));
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

void ChromeTraceWriter::queue(std::string json) {
  if (eventsWritten_ + eventsQueued_ > 0) pending_ += ",\n";
  pending_ += json;
  ++eventsQueued_;
}

void ChromeTraceWriter::nameRank(int rank, const std::string& label) {
  namedRanks_.insert(rank);
  queue(metadata("process_name", rank, 0, "name", jsonString(label)));
  queue(metadata("process_sort_index", rank, 0, "sort_index", std::to_string(rank)));
}

int ChromeTraceWriter::laneId(int rank, const std::string& lane) {
  if (!namedRanks_.count(rank)) nameRank(rank, "rank " + std::to_string(rank));
  auto& lanes = lanes_[rank];
  if (auto it = lanes.find(lane); it != lanes.end()) return it->second;
  // Compute first, then communication, then per-tensor lanes in the order they appear.
  int id = lane == "compute" ? 1 : lane == "comm" ? 2 : 3 + nextTensorLane_[rank]++;
  lanes[lane] = id;
  queue(metadata("thread_name", rank, id, "name", jsonString(lane)));
  queue(metadata("thread_sort_index", rank, id, "sort_index", std::to_string(id)));
  return id;
}

void ChromeTraceWriter::add(const v1::TimelineEvent& e) {
  int tid = laneId(e.rank(), e.lane());
  std::string json = "{\"name\":" + jsonString(e.name()) + ",\"cat\":" + jsonString(e.lane());
  bool instant = e.end_ns() <= e.start_ns();
  json += instant ? ",\"ph\":\"i\",\"s\":\"t\"" : ",\"ph\":\"X\"";
  json += ",\"ts\":" + micros(e.start_ns());
  if (!instant) json += ",\"dur\":" + micros(e.end_ns() - e.start_ns());
  json += ",\"pid\":" + std::to_string(e.rank()) + ",\"tid\":" + std::to_string(tid);
  json += ",\"args\":{\"step\":" + std::to_string(e.step());
  // Sorted keys make the file reproducible.
  std::map<std::string, std::string> args(e.args().begin(), e.args().end());
  for (const auto& [key, value] : args) json += "," + jsonString(key) + ":" + jsonString(value);
  json += "}}";
  queue(std::move(json));
}

void ChromeTraceWriter::flush() {
  if (pending_.empty()) return;
  // Overwrite the closing bracket with the new events and a new closing bracket, in one write.
  bool first = eventsWritten_ == 0;
  uint64_t offset = first ? kOpening.size() : fileSize_ - kClosing.size();
  std::string chunk = pending_ + std::string(kClosing);
  const char* data = chunk.data();
  size_t left = chunk.size();
  uint64_t at = offset;
  while (left > 0) {
    ssize_t n = ::pwrite(fd_, data, left, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError("--timeline " + path_ + ": cannot write: " + std::strerror(errno));
    data += n;
    left -= static_cast<size_t>(n);
    at += static_cast<uint64_t>(n);
  }
  fileSize_ = at;
  eventsWritten_ += eventsQueued_;
  eventsQueued_ = 0;
  pending_.clear();
}

}  // namespace ringmaster
