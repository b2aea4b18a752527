// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/json_tokenizer.h"

#include <charconv>
#include <cstring>

namespace ringmaster {

JsonError::JsonError(uint64_t position, const std::string& message)
    : std::runtime_error("malformed JSON at byte " + std::to_string(position) + ": " + message),
      position_(position) {}

JsonTokenizer::JsonTokenizer(std::istream& in, size_t chunkBytes) : in_(&in), chunkBytes_(chunkBytes) {
  data_ = buffer_;
}

JsonTokenizer::JsonTokenizer(std::string_view text) : data_(text), eof_(true) {}

bool JsonTokenizer::refill() {
  if (eof_) return false;
  // Keep the unread tail (a token cut by the chunk boundary) and append the next chunk after it.
  buffer_.erase(0, pos_);
  consumed_ += pos_;
  pos_ = 0;
  size_t kept = buffer_.size();
  buffer_.resize(kept + chunkBytes_);
  in_->read(buffer_.data() + kept, static_cast<std::streamsize>(chunkBytes_));
  size_t got = static_cast<size_t>(in_->gcount());
  buffer_.resize(kept + got);
  if (got == 0) eof_ = true;
  data_ = buffer_;
  return got > 0;
}

bool JsonTokenizer::ensure(size_t bytes) {
  while (data_.size() - pos_ < bytes) {
    if (!refill()) return false;
  }
  return true;
}

void JsonTokenizer::skipWhitespace() {
  for (;;) {
    while (pos_ < data_.size()) {
      char c = data_[pos_];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
      ++pos_;
    }
    if (!refill()) return;
  }
}

void JsonTokenizer::fail(uint64_t position, const std::string& message) const { throw JsonError(position, message); }

namespace {

const char* describeExpectation(bool object, int expect) {
  (void)object;
  switch (expect) {
    case 0: return "a value";
    case 1: return object ? "a key or '}'" : "a value or ']'";
    case 2: return object ? "',' or '}'" : "',' or ']'";
    case 3: return "a key (a string)";
    case 4: return "a key or '}'";
    case 5: return "':'";
    default: return "the end of the input";
  }
}

}  // namespace

void JsonTokenizer::failUnexpected(char c, bool inObject, int expect) const {
  std::string shown = c >= 32 && c < 127 ? std::string("'") + c + "'" : "byte " + std::to_string(int(uint8_t(c)));
  fail(tokenPosition_, "expected " + std::string(describeExpectation(inObject, expect)) + ", found " + shown);
}

JsonTokenizer::Token JsonTokenizer::next() {
  text_ = {};
  for (;;) {
    skipWhitespace();
    tokenPosition_ = consumed_ + pos_;
    Expect& expect = stack_.empty() ? topLevel_ : stack_.back().expect;
    bool inObject = !stack_.empty() && stack_.back().object;
    if (pos_ >= data_.size()) {
      complete_ = stack_.empty() && topLevel_ == Expect::Nothing;
      if (stack_.empty() && topLevel_ == Expect::Value) fail(tokenPosition_, "the input holds no JSON value");
      return Token::End;
    }
    char c = data_[pos_];

    switch (expect) {
      case Expect::Nothing:
        failUnexpected(c, inObject, int(expect));
      case Expect::Colon:
        if (c != ':') failUnexpected(c, inObject, int(expect));
        ++pos_;
        expect = Expect::Value;
        continue;
      case Expect::CommaOrEnd:
        if (c == ',') {
          ++pos_;
          expect = inObject ? Expect::Key : Expect::Value;
          continue;
        }
        if (c == (inObject ? '}' : ']')) {
          ++pos_;
          stack_.pop_back();
          return scalarDone(inObject ? Token::EndObject : Token::EndArray);
        }
        failUnexpected(c, inObject, int(expect));
      case Expect::Key:
      case Expect::KeyOrEnd:
        if (c == '"') return readString(true);
        if (c == '}' && expect == Expect::KeyOrEnd) {
          ++pos_;
          stack_.pop_back();
          return scalarDone(Token::EndObject);
        }
        failUnexpected(c, inObject, int(expect));
      case Expect::Value:
      case Expect::ValueOrEnd:
        if (c == ']' && expect == Expect::ValueOrEnd && !inObject) {
          ++pos_;
          stack_.pop_back();
          return scalarDone(Token::EndArray);
        }
        switch (c) {
          case '{':
            ++pos_;
            expect = Expect::CommaOrEnd;  // what follows the object once it closes
            stack_.push_back({true, Expect::KeyOrEnd});
            return Token::BeginObject;
          case '[':
            ++pos_;
            expect = Expect::CommaOrEnd;
            stack_.push_back({false, Expect::ValueOrEnd});
            return Token::BeginArray;
          case '"': return readString(false);
          case 't': return readLiteral("true", Token::True);
          case 'f': return readLiteral("false", Token::False);
          case 'n': return readLiteral("null", Token::Null);
          default:
            if (c == '-' || (c >= '0' && c <= '9')) return readNumber();
            failUnexpected(c, inObject, int(expect));
        }
    }
  }
}

JsonTokenizer::Token JsonTokenizer::scalarDone(Token token) {
  if (stack_.empty()) {
    topLevel_ = Expect::Nothing;
  } else if (token != Token::EndObject && token != Token::EndArray) {
    stack_.back().expect = Expect::CommaOrEnd;
  }
  return token;
}

JsonTokenizer::Token JsonTokenizer::readLiteral(std::string_view word, Token token) {
  if (!ensure(word.size())) {
    // Cut short inside the literal: report it as the end of the input.
    pos_ = data_.size();
    complete_ = false;
    return Token::End;
  }
  if (data_.compare(pos_, word.size(), word) != 0) failHere("expected '" + std::string(word) + "'");
  pos_ += word.size();
  text_ = word;
  return scalarDone(token);
}

JsonTokenizer::Token JsonTokenizer::readNumber() {
  size_t length = 0;
  for (;;) {
    while (pos_ + length < data_.size()) {
      char c = data_[pos_ + length];
      if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')) goto done;
      ++length;
    }
    if (!refill()) {
      if (stack_.empty()) goto done;  // a lone top-level number ends with the input
      // A number that runs into the end of the input may have lost digits: treat it as cut short.
      pos_ = data_.size();
      complete_ = false;
      return Token::End;
    }
  }
done:
  text_ = data_.substr(pos_, length);
  double value;
  auto [end, ec] = std::from_chars(text_.data(), text_.data() + text_.size(), value);
  if (ec != std::errc() || end != text_.data() + text_.size()) {
    if (ec != std::errc::result_out_of_range) failHere("'" + std::string(text_) + "' is not a number");
  }
  pos_ += length;
  return scalarDone(Token::Number);
}

double JsonTokenizer::number() const {
  double value = 0;
  std::from_chars(text_.data(), text_.data() + text_.size(), value);
  return value;
}

namespace {

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void appendUtf8(std::string& out, uint32_t code) {
  if (code < 0x80) {
    out.push_back(char(code));
  } else if (code < 0x800) {
    out.push_back(char(0xC0 | (code >> 6)));
    out.push_back(char(0x80 | (code & 0x3F)));
  } else if (code < 0x10000) {
    out.push_back(char(0xE0 | (code >> 12)));
    out.push_back(char(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(char(0x80 | (code & 0x3F)));
  } else {
    out.push_back(char(0xF0 | (code >> 18)));
    out.push_back(char(0x80 | ((code >> 12) & 0x3F)));
    out.push_back(char(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(char(0x80 | (code & 0x3F)));
  }
}

}  // namespace

JsonTokenizer::Token JsonTokenizer::readString(bool key) {
  // Find the closing quote first (refilling as needed), then decode only if there were escapes.
  size_t end = pos_ + 1;
  bool escaped = false;
  for (;;) {
    while (end < data_.size()) {
      char c = data_[end];
      if (c == '"') goto found;
      if (c == '\\') {
        escaped = true;
        end += 2;
        continue;
      }
      if (static_cast<unsigned char>(c) < 0x20) fail(consumed_ + end, "control character inside a string");
      ++end;
    }
    size_t offset = end - pos_;
    if (!refill()) {
      pos_ = data_.size();
      complete_ = false;
      return Token::End;
    }
    end = pos_ + offset;
  }
found:
  std::string_view raw = data_.substr(pos_ + 1, end - pos_ - 1);
  if (!escaped) {
    text_ = raw;
  } else {
    scratch_.clear();
    for (size_t i = 0; i < raw.size(); ++i) {
      char c = raw[i];
      if (c != '\\') {
        scratch_.push_back(c);
        continue;
      }
      uint64_t at = consumed_ + pos_ + 1 + i;
      char e = raw[++i];
      switch (e) {
        case '"': scratch_.push_back('"'); break;
        case '\\': scratch_.push_back('\\'); break;
        case '/': scratch_.push_back('/'); break;
        case 'b': scratch_.push_back('\b'); break;
        case 'f': scratch_.push_back('\f'); break;
        case 'n': scratch_.push_back('\n'); break;
        case 'r': scratch_.push_back('\r'); break;
        case 't': scratch_.push_back('\t'); break;
        case 'u': {
          auto readHex = [&](size_t from) -> int32_t {
            if (from + 4 > raw.size()) return -1;
            int32_t value = 0;
            for (size_t k = from; k < from + 4; ++k) {
              int h = hexValue(raw[k]);
              if (h < 0) return -1;
              value = value * 16 + h;
            }
            return value;
          };
          int32_t code = readHex(i + 1);
          if (code < 0) fail(at, "bad \\u escape");
          i += 4;
          if (code >= 0xD800 && code < 0xDC00 && i + 2 < raw.size() && raw[i + 1] == '\\' && raw[i + 2] == 'u') {
            int32_t low = readHex(i + 3);
            if (low >= 0xDC00 && low < 0xE000) {
              code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
              i += 6;
            }
          }
          appendUtf8(scratch_, static_cast<uint32_t>(code));
          break;
        }
        default: fail(at, std::string("unknown escape '\\") + e + "'");
      }
    }
    text_ = scratch_;
  }
  pos_ = end + 1;
  if (key) {
    stack_.back().expect = Expect::Colon;
    return Token::Key;
  }
  return scalarDone(Token::String);
}

void JsonTokenizer::skipValue(Token first) {
  if (first != Token::BeginObject && first != Token::BeginArray) return;
  size_t depth = stack_.size() - 1;
  while (stack_.size() > depth) {
    if (next() == Token::End) return;
  }
}

void appendJsonString(std::string& out, std::string_view text) {
  static const char* kHex = "0123456789abcdef";
  out.push_back('"');
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += "\\u00";
          out.push_back(kHex[(c >> 4) & 0xF]);
          out.push_back(kHex[c & 0xF]);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

}  // namespace ringmaster
