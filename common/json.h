// SPDX-License-Identifier: GPL-3.0-or-later
// JSON in Ringmaster is RapidJSON, included only through this header.
// Reading: RapidJSON's reader hands out SAX events (readJson), streamed from a file in chunks, so a trace of
// gigabytes takes constant memory; small texts (stored columns, settings, tests) become a rapidjson::Document
// (parseJson), built by the same reader.
// Writing: rapidjson::Writer or PrettyWriter into a rapidjson::StringBuffer; the writer escapes strings, and
// nothing else in Ringmaster escapes JSON.
// Job specs in settings: protobuf's JSON mapping, read and written through RapidJSON (messageToJson and
// messageFromJson).
#pragma once

#include <cmath>
#include <cstdint>
#include <istream>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

// A misuse of RapidJSON's API (a member looked up that is not there, a value read as the wrong type) throws
// instead of being undefined behaviour in release builds.
#define RAPIDJSON_ASSERT(condition) \
  ((condition) ? static_cast<void>(0) : throw std::logic_error("RapidJSON: " #condition " does not hold"))
#define RAPIDJSON_HAS_STDSTRING 1
#include <rapidjson/document.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace google::protobuf {
class Message;
}

namespace ringmaster {

// Malformed JSON: `position()` is the byte offset (0-based) where the reader found the fault.
class JsonError : public std::runtime_error {
 public:
  JsonError(uint64_t position, const std::string& message);
  uint64_t position() const { return position_; }

 private:
  uint64_t position_;
};

// Input in which more bytes passed between two marks than JsonInputStream::limitSpan allows.
class JsonSpanError : public std::runtime_error {
 public:
  JsonSpanError(uint64_t start, size_t limit);
  uint64_t start() const { return start_; }  // the byte offset of the last mark
  size_t limit() const { return limit_; }

 private:
  uint64_t start_;
  size_t limit_;
};

// A std::istream read in chunks, as a RapidJSON input stream.
class JsonInputStream {
 public:
  using Ch = char;
  // `in` must outlive the stream.
  explicit JsonInputStream(std::istream& in, size_t chunkBytes = size_t{1} << 20);

  Ch Peek() const { return *current_; }
  Ch Take() {
    Ch c = *current_;
    if (current_ < last_) {
      ++current_;
    } else {
      refill();
    }
    return c;
  }
  // Bytes consumed so far.
  size_t Tell() const { return consumed_ + static_cast<size_t>(current_ - buffer_.get()); }
  // True when every byte of the input has been consumed.
  bool atEnd() const { return eof_ && current_ == last_; }
  // Refuses input in which more than `bytes` pass between two calls of markSpan(): a reader marks the values
  // it is handed, so that one value of gigabytes (a string, a number) is refused before RapidJSON holds it
  // whole. Checked as each chunk is read, so the limit holds to within a chunk. Throws JsonSpanError.
  void limitSpan(size_t bytes) { spanLimit_ = bytes; }
  void markSpan() { spanStart_ = Tell(); }

  // Input only.
  Ch* PutBegin() { return nullptr; }
  void Put(Ch) {}
  void Flush() {}
  size_t PutEnd(Ch*) { return 0; }

 private:
  void refill();

  std::istream& in_;
  // One byte more than a chunk: the '\0' RapidJSON takes for the end. Left uninitialised, so that reading a
  // small input touches only the pages it fills.
  std::unique_ptr<char[]> buffer_;
  size_t capacity_ = 0;  // bytes of a chunk
  char* current_ = nullptr;
  char* last_ = nullptr;  // the last byte read, or the '\0' after the input once it ended
  size_t consumed_ = 0;   // bytes of the chunks before this one
  size_t chunkSize_ = 0;  // bytes of this one
  bool eof_ = false;
  size_t spanLimit_ = SIZE_MAX;
  size_t spanStart_ = 0;
};

namespace detail {

// Passes SAX events on to `Handler`, and stops input nested deeper than `kMaxJsonDepth` (RapidJSON's reader
// recurses once per level).
constexpr unsigned kMaxJsonDepth = 1000;

template <class Handler>
class DepthLimit {
 public:
  explicit DepthLimit(Handler& handler) : handler_(handler) {}
  bool Null() { return handler_.Null(); }
  bool Bool(bool b) { return handler_.Bool(b); }
  bool Int(int i) { return handler_.Int(i); }
  bool Uint(unsigned i) { return handler_.Uint(i); }
  bool Int64(int64_t i) { return handler_.Int64(i); }
  bool Uint64(uint64_t i) { return handler_.Uint64(i); }
  bool Double(double d) { return handler_.Double(d); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool copy) { return handler_.RawNumber(s, n, copy); }
  bool String(const char* s, rapidjson::SizeType n, bool copy) { return handler_.String(s, n, copy); }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) { return handler_.Key(s, n, copy); }
  bool StartObject() { return ++depth_ <= kMaxJsonDepth && handler_.StartObject(); }
  bool EndObject(rapidjson::SizeType members) {
    --depth_;
    return handler_.EndObject(members);
  }
  bool StartArray() { return ++depth_ <= kMaxJsonDepth && handler_.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) {
    --depth_;
    return handler_.EndArray(elements);
  }
  bool tooDeep() const { return depth_ > kMaxJsonDepth; }

 private:
  Handler& handler_;
  unsigned depth_ = 0;
};

// What a reader's error means: true when the input ended inside the document (`atEnd`: the reader had read
// all of it when it stopped); otherwise throws JsonError.
bool endedEarly(const rapidjson::ParseResult& result, bool atEnd, bool tooDeep);

// `atEnd()`: whether the reader has read every byte of `in`.
template <unsigned Flags, class Stream, class Handler, class AtEnd>
bool read(Stream& in, Handler& handler, const AtEnd& atEnd) {
  DepthLimit<Handler> limited(handler);
  rapidjson::Reader reader;
  rapidjson::ParseResult result = reader.Parse<Flags>(in, limited);
  if (result.IsError()) return !endedEarly(result, atEnd(), limited.tooDeep());
  // The reader takes a NUL byte for the end of the input.
  if (!atEnd()) throw JsonError(in.Tell(), "a NUL byte after the document");
  return true;
}

}  // namespace detail

// Reads the JSON document in `in`, handing its parts to `handler` (a RapidJSON SAX handler) as they come.
// Returns true when the document was whole, false when the input ended inside it (what the handler was given
// stands). Throws JsonError (with the byte position) on malformed input, input nested more than 1000 deep, or
// input that holds no value. A handler that returns false is a programmer error; to refuse its input it
// throws.
template <unsigned Flags = rapidjson::kParseDefaultFlags, class Handler>
bool readJson(JsonInputStream& in, Handler& handler) {
  return detail::read<Flags>(in, handler, [&] { return in.atEnd(); });
}
// The same for a text in memory.
template <unsigned Flags = rapidjson::kParseDefaultFlags, class Handler>
bool readJson(std::string_view text, Handler& handler) {
  rapidjson::MemoryStream in(text.data(), text.size());
  return detail::read<Flags>(in, handler, [&] { return in.Tell() == text.size(); });
}

// `text` as a document, read as readJson reads; numbers stay text with `numbersAsText`
// (rapidjson::kParseNumbersAsStringsFlag). Throws JsonError unless `text` is one whole JSON value.
rapidjson::Document parseJson(std::string_view text, bool numbersAsText = false);

// The text a writer wrote into `buffer`.
inline std::string_view jsonText(const rapidjson::StringBuffer& buffer) {
  return {buffer.GetString(), buffer.GetSize()};
}

// Writes `value`, or null when it is not finite (JSON has no NaN or infinity).
template <class Writer>
void writeNumber(Writer& writer, double value) {
  if (std::isfinite(value)) {
    writer.Double(value);
  } else {
    writer.Null();
  }
}

// One member of the object a writer is writing: its key and a text, an integer, a real (see writeNumber) or a
// truth value.
template <class Writer>
void writeMember(Writer& writer, const char* key, std::string_view text) {
  writer.Key(key);
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}
template <class Writer, class Integer,
          std::enable_if_t<std::is_integral_v<Integer> && !std::is_same_v<Integer, bool>, int> = 0>
void writeMember(Writer& writer, const char* key, Integer value) {
  writer.Key(key);
  if constexpr (std::is_signed_v<Integer>) {
    writer.Int64(value);
  } else {
    writer.Uint64(value);
  }
}
template <class Writer>
void writeMember(Writer& writer, const char* key, double value) {
  writer.Key(key);
  writeNumber(writer, value);
}
template <class Writer>
void writeMember(Writer& writer, const char* key, const char* text) {
  writeMember(writer, key, std::string_view(text));
}
template <class Writer>
void writeMember(Writer& writer, const char* key, bool value) {
  writer.Key(key);
  writer.Bool(value);
}

// Protocol messages in protobuf's JSON mapping (lowerCamelCase names, enums by name, 64-bit integers as
// strings, default values left out), for messages of scalars, enums and (repeated) messages; map and bytes
// fields are not supported. messageFromJson also takes the proto field names and enum numbers; it returns
// false (and leaves `message` cleared) when `json` is malformed or does not fit the message.
std::string messageToJson(const google::protobuf::Message& message);
bool messageFromJson(std::string_view json, google::protobuf::Message& message);

}  // namespace ringmaster
