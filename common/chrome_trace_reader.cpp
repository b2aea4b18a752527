// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/chrome_trace_reader.h"

#include <charconv>

#include "common/error.h"
#include "common/json_tokenizer.h"

namespace ringmaster {

namespace {

using Token = JsonTokenizer::Token;

// A number or a string holding one (some writers quote their timestamps).
double asNumber(const JsonTokenizer& tokens, Token token) {
  if (token == Token::Number) return tokens.number();
  if (token == Token::String) {
    double value = 0;
    std::string_view text = tokens.text();
    std::from_chars(text.data(), text.data() + text.size(), value);
    return value;
  }
  return 0;
}

std::string scalarText(JsonTokenizer& tokens, Token token) {
  switch (token) {
    case Token::String:
    case Token::Number: return std::string(tokens.text());
    case Token::True: return "true";
    case Token::False: return "false";
    case Token::Null: return "null";
    case Token::BeginObject: tokens.skipValue(token); return "{...}";
    case Token::BeginArray: tokens.skipValue(token); return "[...]";
    default: return "";
  }
}

// Reads one event object (its '{' already read). Returns false when the input ended inside it.
bool readEvent(JsonTokenizer& tokens, TraceEvent& event) {
  event = TraceEvent();
  for (;;) {
    Token t = tokens.next();
    if (t == Token::EndObject) return true;
    if (t == Token::End) return false;
    // t is a Key (the tokenizer enforces it).
    std::string_view key = tokens.text();
    char k0 = key.empty() ? 0 : key[0];
    // Compare by first letter first: this loop runs tens of millions of times on a large timeline.
    if (k0 == 'p' && key == "ph") {
      Token v = tokens.next();
      if (v == Token::End) return false;
      if (v == Token::String && !tokens.text().empty()) event.phase = tokens.text()[0];
      else tokens.skipValue(v);
    } else if (k0 == 'n' && key == "name") {
      Token v = tokens.next();
      if (v == Token::End) return false;
      event.name = scalarText(tokens, v);
    } else if (k0 == 'c' && key == "cat") {
      Token v = tokens.next();
      if (v == Token::End) return false;
      event.category = scalarText(tokens, v);
    } else if (k0 == 't' && key == "ts") {
      Token v = tokens.next();
      if (v == Token::End) return false;
      event.tsUs = asNumber(tokens, v);
      tokens.skipValue(v);
    } else if (k0 == 'd' && key == "dur") {
      Token v = tokens.next();
      if (v == Token::End) return false;
      event.durUs = asNumber(tokens, v);
      event.hasDur = true;
      tokens.skipValue(v);
    } else if (k0 == 'p' && key == "pid") {
      Token v = tokens.next();
      if (v == Token::End) return false;
      event.pid = scalarText(tokens, v);
    } else if (k0 == 't' && key == "tid") {
      Token v = tokens.next();
      if (v == Token::End) return false;
      event.tid = scalarText(tokens, v);
      event.hasTid = true;
    } else if (k0 == 's' && key == "s") {
      Token v = tokens.next();
      if (v == Token::End) return false;
      event.scope = scalarText(tokens, v);
    } else if (k0 == 'a' && key == "args") {
      Token v = tokens.next();
      if (v == Token::End) return false;
      if (v != Token::BeginObject) {
        tokens.skipValue(v);
        continue;
      }
      for (Token a = tokens.next(); a != Token::EndObject; a = tokens.next()) {
        if (a == Token::End) return false;
        std::string argKey(tokens.text());
        Token value = tokens.next();
        if (value == Token::End) return false;
        event.args[std::move(argKey)] = scalarText(tokens, value);
      }
    } else {
      Token v = tokens.next();
      if (v == Token::End) return false;
      tokens.skipValue(v);
    }
  }
}

// Reads the events of the array whose '[' was just read.
void readEvents(JsonTokenizer& tokens, TraceReadSummary& summary,
                const std::function<void(const TraceEvent&)>& visit) {
  TraceEvent event;
  for (;;) {
    Token t = tokens.next();
    if (t == Token::EndArray || t == Token::End) return;
    if (t != Token::BeginObject) {
      throw JsonError(tokens.tokenPosition(), "expected a trace event (an object) in the event array");
    }
    if (!readEvent(tokens, event)) return;
    ++summary.events;
    visit(event);
  }
}

}  // namespace

TraceReadSummary readChromeTrace(std::istream& in, const std::function<void(const TraceEvent&)>& visit) {
  JsonTokenizer tokens(in);
  TraceReadSummary summary;
  Token first = tokens.next();
  bool sawEvents = false;
  if (first == Token::BeginArray) {
    summary.bareArray = true;
    sawEvents = true;
    readEvents(tokens, summary, visit);
  } else if (first == Token::BeginObject) {
    for (Token t = tokens.next(); t == Token::Key; t = tokens.next()) {
      bool isEvents = tokens.text() == "traceEvents";
      Token value = tokens.next();
      if (isEvents && value == Token::BeginArray) {
        sawEvents = true;
        readEvents(tokens, summary, visit);
      } else {
        tokens.skipValue(value);
      }
    }
  } else if (first != Token::End) {
    throw InputError("not a trace: the JSON is a single value, not an array of events or an object with "
                     "\"traceEvents\"");
  }
  // Drain to the end so that anything malformed after the events is still reported, and completeness known.
  while (tokens.next() != Token::End) {
  }
  summary.bytesRead = tokens.bytesRead();
  summary.complete = tokens.complete();
  if (!sawEvents && summary.complete) {
    throw InputError("not a trace: the JSON object has no \"traceEvents\" array");
  }
  return summary;
}

}  // namespace ringmaster
