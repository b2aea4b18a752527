// SPDX-License-Identifier: GPL-3.0-or-later
#include "traces/chrome_trace_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <new>
#include <vector>

#include "common/error.h"
#include "common/json.h"

namespace ringmaster {

namespace {

// The most one trace event (or one value outside the events) may take in the file: far more than any
// profiler writes for one event, and little enough to hold. A trace whose writer dumped a buffer of
// gigabytes into one event is refused before it is held in memory.
constexpr size_t kMaxEventBytes = size_t{16} << 20;
// Members of the root object (and of its objects) kept as metadata; a trace has a handful.
constexpr size_t kMaxMetadata = 1024;

// Collects events from the reader's SAX calls. Numbers arrive as they were written
// (kParseNumbersAsStringsFlag): ids are kept as text and only "ts" and "dur" are converted.
class TraceHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, TraceHandler> {
 public:
  TraceHandler(JsonInputStream& in, TraceReadSummary& summary,
               const std::function<void(const TraceEvent&)>& visit)
      : in_(in), summary_(summary), visit_(visit) {}

  bool sawEvents() const { return sawEvents_; }

  bool Null() { return scalar("null", false); }
  bool Bool(bool b) { return scalar(b ? "true" : "false", false); }
  bool RawNumber(const char* text, rapidjson::SizeType length, bool) { return scalar({text, length}, false); }
  bool String(const char* text, rapidjson::SizeType length, bool) { return scalar({text, length}, true); }

  bool Key(const char* text, rapidjson::SizeType length, bool) {
    if (!inEvent_) in_.markSpan();
    if (skip_ > 0) return true;
    std::string_view key(text, length);
    switch (level_) {
      case Level::RootObject:
        eventsNext_ = key == "traceEvents";
        rootKey_.assign(key);
        break;
      case Level::RootMember:
        memberKey_ = rootKey_;
        memberKey_.append(".").append(key);
        break;
      case Level::Event:
        field_ = fieldOf(key);
        break;
      case Level::Args:
        argKey_.assign(key);
        break;
      default:
        break;
    }
    return true;
  }

  bool StartObject() { return open(true); }
  bool EndObject(rapidjson::SizeType) { return close(); }
  bool StartArray() { return open(false); }
  bool EndArray(rapidjson::SizeType) { return close(); }

 private:
  // Where the reader is: in the root object, the event array, an event, or an event's args.
  enum class Level : uint8_t { Root, RootObject, RootMember, Events, Event, Args, Done };
  enum class Field : uint8_t { Other, Phase, Name, Category, Ts, Dur, Pid, Tid, Scope, Args };

  static Field fieldOf(std::string_view key) {
    // By length first: this runs for every member of tens of millions of events.
    switch (key.size()) {
      case 1:
        return key == "s" ? Field::Scope : Field::Other;
      case 2:
        return key == "ph" ? Field::Phase : key == "ts" ? Field::Ts : Field::Other;
      case 3:
        return key == "dur"   ? Field::Dur
               : key == "pid" ? Field::Pid
               : key == "tid" ? Field::Tid
               : key == "cat" ? Field::Category
                              : Field::Other;
      case 4:
        return key == "name" ? Field::Name : key == "args" ? Field::Args : Field::Other;
      default:
        return Field::Other;
    }
  }

  // A number, or a string holding one (some writers quote their timestamps).
  static double numberOf(std::string_view text) {
    double value = 0;
    std::from_chars(text.data(), text.data() + text.size(), value);
    return value;
  }

  [[noreturn]] void notAnEvent() const {
    throw JsonError(in_.Tell(), "expected a trace event (an object) in the event array");
  }

  bool scalar(std::string_view text, bool isString) {
    if (!inEvent_) in_.markSpan();
    if (skip_ > 0) return true;
    switch (level_) {
      case Level::Root:
        throw InputError(
            "not a trace: the JSON is a single value, not an array of events or an object with "
            "\"traceEvents\"");
      case Level::Events:
        notAnEvent();
      case Level::Event:
        eventField(text, isString);
        break;
      case Level::Args:
        event_.args[argKey_].assign(text);
        break;
      case Level::RootObject:
        keepMetadata(rootKey_, text);
        break;
      case Level::RootMember:
        keepMetadata(memberKey_, text);
        break;
      default:
        break;
    }
    return true;
  }

  void eventField(std::string_view text, bool isString) {
    switch (field_) {
      case Field::Phase:
        if (isString && !text.empty()) event_.phase = text[0];
        break;
      case Field::Name:
        event_.name.assign(text);
        break;
      case Field::Category:
        event_.category.assign(text);
        break;
      case Field::Ts:
        event_.tsUs = numberOf(text);
        break;
      case Field::Dur:
        event_.durUs = numberOf(text);
        event_.hasDur = true;
        break;
      case Field::Pid:
        event_.pid.assign(text);
        break;
      case Field::Tid:
        event_.tid.assign(text);
        event_.hasTid = true;
        break;
      case Field::Scope:
        event_.scope.assign(text);
        break;
      case Field::Args:
      case Field::Other:
        break;
    }
  }

  void keepMetadata(const std::string& key, std::string_view text) {
    if (summary_.metadata.size() < kMaxMetadata || summary_.metadata.count(key))
      summary_.metadata[key].assign(text);
  }

  bool open(bool object) {
    if (!inEvent_) in_.markSpan();
    if (skip_ > 0) {
      ++skip_;
      return true;
    }
    switch (level_) {
      case Level::Root:
        level_ = object ? Level::RootObject : Level::Events;
        summary_.bareArray = !object;
        sawEvents_ = !object;
        break;
      case Level::RootObject:
        if (eventsNext_ && !object) {
          level_ = Level::Events;
          sawEvents_ = true;
        } else if (object) {
          level_ = Level::RootMember;
        } else {
          skip_ = 1;
        }
        break;
      case Level::Events:
        if (!object) notAnEvent();
        clearEvent();
        level_ = Level::Event;
        inEvent_ = true;  // from here to its end the event counts as one value
        break;
      case Level::Event:
        if (field_ == Field::Args && object) {
          level_ = Level::Args;
          break;
        }
        // Nested values read as "{...}" or "[...]" in text fields and as 0 in numbers.
        eventField(object ? "{...}" : "[...]", false);
        skip_ = 1;
        break;
      case Level::Args:
        event_.args[argKey_] = object ? "{...}" : "[...]";
        skip_ = 1;
        break;
      case Level::RootMember:
        skip_ = 1;  // deeper than one level: not kept
        break;
      case Level::Done:
        break;
    }
    return true;
  }

  bool close() {
    if (skip_ > 0) {
      --skip_;
      return true;
    }
    switch (level_) {
      case Level::Events:
        level_ = summary_.bareArray ? Level::Done : Level::RootObject;
        break;
      case Level::Event:
        level_ = Level::Events;
        inEvent_ = false;
        in_.markSpan();
        ++summary_.events;
        visit_(event_);
        break;
      case Level::Args:
        level_ = Level::Event;
        break;
      case Level::RootMember:
        level_ = Level::RootObject;
        break;
      default:
        level_ = Level::Done;
        break;
    }
    return true;
  }

  void clearEvent() {
    // Field by field, so that the strings keep their capacity from one event to the next.
    event_.phase = 0;
    event_.name.clear();
    event_.category.clear();
    event_.tsUs = event_.durUs = 0;
    event_.hasDur = event_.hasTid = false;
    event_.pid.clear();
    event_.tid.clear();
    event_.scope.clear();
    event_.args.clear();
  }

  JsonInputStream& in_;
  TraceReadSummary& summary_;
  const std::function<void(const TraceEvent&)>& visit_;
  Level level_ = Level::Root;
  Field field_ = Field::Other;
  bool eventsNext_ = false;
  bool sawEvents_ = false;
  bool inEvent_ = false;
  unsigned skip_ = 0;  // depth inside a value that is passed over
  std::string argKey_;
  std::string rootKey_, memberKey_;
  TraceEvent event_;
};

// A descriptor of the regular file at `path`, opened without waiting (a FIFO with no writer would block the
// open) and refused unless it is one. Throws InputError saying why.
int openRegularFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) throw InputError(std::string("cannot read the file (") + std::strerror(errno) + ")");
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    throw InputError(std::string(fileKind(info.st_mode)) +
                     ", not a regular file: name the trace file itself (a .json or .json.gz file)");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

}  // namespace

// Reads through zlib's gz* interface, which passes plain files through as they are.
class TraceFile::Buffer : public std::streambuf {
 public:
  // The file is closed also when the first read below throws (damaged compressed data).
  explicit Buffer(const std::string& path) : data_(kChunk) {
    const int fd = openRegularFile(path);
    file_.reset(gzdopen(fd, "rb"));
    if (!file_) {  // zlib fails on a valid descriptor only when it cannot allocate
      ::close(fd);
      throw std::bad_alloc();
    }
    gzbuffer(file_.get(), kChunk);
    setg(data_.data(), data_.data(), data_.data());
    // A UTF-8 byte order mark (some Windows tools write one) is no part of the JSON.
    if (underflow() != traits_type::eof() && egptr() - gptr() >= 3 &&
        std::memcmp(gptr(), "\xEF\xBB\xBF", 3) == 0) {
      gbump(3);
    }
  }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    int n = gzread(file_.get(), data_.data(), unsigned(data_.size()));
    if (n < 0) {
      int code = 0;
      const char* message = gzerror(file_.get(), &code);
      // A compressed file cut short reads as a trace cut short; damaged data is refused.
      if (code != Z_BUF_ERROR)
        throw InputError(std::string("the compressed data is damaged (") + message + ")");
      n = 0;
    }
    setg(data_.data(), data_.data(), data_.data() + n);
    return n == 0 ? traits_type::eof() : traits_type::to_int_type(*gptr());
  }

 private:
  static constexpr unsigned kChunk = 1u << 18;
  struct Close {
    void operator()(gzFile file) const { gzclose(file); }
  };
  std::unique_ptr<gzFile_s, Close> file_;
  std::vector<char> data_;
};

TraceFile::TraceFile(const std::string& path)
    : buffer_(std::make_unique<Buffer>(path)), stream_(buffer_.get()) {
  stream_.exceptions(std::ios::badbit);  // the buffer's InputError reaches the caller
}
TraceFile::~TraceFile() = default;

const char* fileKind(unsigned mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

TraceReadSummary readChromeTrace(std::istream& in, const std::function<void(const TraceEvent&)>& visit) {
  JsonInputStream stream(in);
  stream.limitSpan(kMaxEventBytes);
  TraceReadSummary summary;
  TraceHandler handler(stream, summary, visit);
  try {
    summary.complete = readJson<rapidjson::kParseNumbersAsStringsFlag>(stream, handler);
  } catch (const JsonSpanError& e) {
    throw InputError("the trace holds an event or value larger than " + std::to_string(e.limit() >> 20) +
                     " MiB (from byte " + std::to_string(e.start()) +
                     " on), more than any trace event needs; nothing was imported");
  }
  summary.bytesRead = stream.Tell();
  if (!handler.sawEvents() && summary.complete) {
    throw InputError("not a trace: the JSON object has no \"traceEvents\" array");
  }
  return summary;
}

}  // namespace ringmaster
