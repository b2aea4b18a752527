// SPDX-License-Identifier: GPL-3.0-or-later
// A small incremental JSON tokenizer: it reads its input in chunks and hands out one token at a time, so a
// multi-gigabyte trace is read in constant memory (no document tree). It checks the grammar as it goes and
// reports malformed input with its byte position; input that simply ends early is not an error — the caller
// learns it from `complete()` and keeps what it has.
#pragma once

#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ringmaster {

// Malformed JSON: `position()` is the byte offset (0-based) of the offending character.
class JsonError : public std::runtime_error {
 public:
  JsonError(uint64_t position, const std::string& message);
  uint64_t position() const { return position_; }

 private:
  uint64_t position_;
};

class JsonTokenizer {
 public:
  enum class Token { BeginObject, EndObject, BeginArray, EndArray, Key, String, Number, True, False, Null, End };

  // Reads from `in` (which must outlive the tokenizer) in chunks of `chunkBytes`.
  explicit JsonTokenizer(std::istream& in, size_t chunkBytes = 1 << 20);
  // Reads a string held in memory (which must outlive the tokenizer).
  explicit JsonTokenizer(std::string_view text);

  // The next token; End at the end of the input. Throws JsonError on malformed input.
  Token next();
  // Skips the value whose first token was just returned (a no-op for scalars).
  void skipValue(Token first);

  // Key and String: the unescaped text; Number: the literal as written. Valid until the next call.
  std::string_view text() const { return text_; }
  double number() const;
  // Byte offset of the last token's first character.
  uint64_t tokenPosition() const { return tokenPosition_; }
  // Bytes consumed so far.
  uint64_t bytesRead() const { return consumed_ + pos_; }
  // Nesting depth after the last token (0 at top level).
  size_t depth() const { return stack_.size(); }
  // After End: true when the document was whole, false when the input stopped inside it.
  bool complete() const { return complete_; }

 private:
  enum class Expect : uint8_t { Value, ValueOrEnd, CommaOrEnd, Key, KeyOrEnd, Colon, Nothing };
  struct Frame {
    bool object;
    Expect expect;
  };

  bool refill();
  bool ensure(size_t bytes);
  void skipWhitespace();
  Token scalarDone(Token token);
  Token readString(bool key);
  Token readNumber();
  Token readLiteral(std::string_view word, Token token);
  [[noreturn]] void fail(uint64_t position, const std::string& message) const;
  [[noreturn]] void failUnexpected(char c, bool inObject, int expect) const;
  [[noreturn]] void failHere(const std::string& message) const { fail(consumed_ + pos_, message); }

  std::istream* in_ = nullptr;
  size_t chunkBytes_ = 0;
  std::string buffer_;
  std::string_view data_;  // what is readable: the memory text, or buffer_
  size_t pos_ = 0;
  uint64_t consumed_ = 0;  // bytes dropped from the front of the buffer
  bool eof_ = false;

  std::vector<Frame> stack_;
  Expect topLevel_ = Expect::Value;
  bool complete_ = false;
  std::string_view text_;
  std::string scratch_;
  uint64_t tokenPosition_ = 0;
};

// Appends `text` to `out` as a JSON string literal, quotes included.
void appendJsonString(std::string& out, std::string_view text);

}  // namespace ringmaster
