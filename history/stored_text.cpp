// SPDX-License-Identifier: GPL-3.0-or-later
#include "history/stored_text.h"

#include <algorithm>
#include <charconv>
#include <map>

#include "common/json.h"
#include "history/run_store.h"

namespace ringmaster {

namespace {

// The members of a flat JSON object whose values are strings or numbers (as written); others are passed over.
class StringMapReader : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, StringMapReader> {
 public:
  explicit StringMapReader(std::map<std::string, std::string>& out) : out_(out) {}
  bool Default() { return true; }
  bool Key(const char* text, rapidjson::SizeType length, bool) {
    if (depth_ == 1) key_.assign(text, length);
    return true;
  }
  bool String(const char* text, rapidjson::SizeType length, bool) {
    if (depth_ == 1 && inObject_) out_[key_].assign(text, length);
    return true;
  }
  bool RawNumber(const char* text, rapidjson::SizeType length, bool copy) {
    return String(text, length, copy);
  }
  bool StartObject() {
    inObject_ = inObject_ || depth_ == 0;
    ++depth_;
    return true;
  }
  bool StartArray() {
    ++depth_;
    return true;
  }
  bool EndObject(rapidjson::SizeType) { return EndArray(0); }
  bool EndArray(rapidjson::SizeType) {
    --depth_;
    return true;
  }

 private:
  std::map<std::string, std::string>& out_;
  std::string key_;
  int depth_ = 0;
  bool inObject_ = false;  // the document is an object
};

}  // namespace

std::string encodeEvidence(const google::protobuf::Map<std::string, double>& evidence) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> json(buffer);
  json.StartObject();
  std::map<std::string, double> sorted(evidence.begin(), evidence.end());
  for (const auto& [key, value] : sorted) {
    json.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    writeNumber(json, value);
  }
  json.EndObject();
  return std::string(jsonText(buffer));
}

void decodeEvidence(std::string_view json, google::protobuf::Map<std::string, double>& out) {
  rapidjson::Document document = parseJson(json);
  if (!document.IsObject()) return;
  for (const auto& member : document.GetObject()) {
    if (member.value.IsNumber()) out[member.name.GetString()] = member.value.GetDouble();
  }
}

std::string joinRanks(const google::protobuf::RepeatedField<int32_t>& ranks) {
  std::string out;
  for (int r : ranks) {
    if (!out.empty()) out.push_back(',');
    out += std::to_string(r);
  }
  return out;
}

void splitRanks(std::string_view text, google::protobuf::RepeatedField<int32_t>& out) {
  while (!text.empty()) {
    size_t cut = text.find(',');
    int r = 0;
    std::from_chars(text.data(), text.data() + std::min(cut, text.size()), r);
    out.Add(r);
    if (cut == std::string_view::npos) break;
    text.remove_prefix(cut + 1);
  }
}

std::string encodeStrings(const google::protobuf::RepeatedPtrField<std::string>& strings) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> json(buffer);
  json.StartArray();
  for (const auto& s : strings) json.String(s);
  json.EndArray();
  return std::string(jsonText(buffer));
}

void decodeStrings(std::string_view json, google::protobuf::RepeatedPtrField<std::string>& out) {
  rapidjson::Document strings = parseJson(json);
  if (!strings.IsArray()) return;
  for (const auto& s : strings.GetArray()) {
    if (s.IsString()) *out.Add() = s.GetString();
  }
}

std::string encodeStringMap(const std::map<std::string, std::string>& map) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> json(buffer);
  json.StartObject();
  for (const auto& [key, value] : map) {
    json.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    json.String(value);
  }
  json.EndObject();
  return std::string(jsonText(buffer));
}

std::map<std::string, std::string> decodeStringMap(std::string_view json) {
  std::map<std::string, std::string> out;
  if (json.empty()) return out;
  StringMapReader reader(out);
  readJson<rapidjson::kParseNumbersAsStringsFlag>(json, reader);
  return out;
}

}  // namespace ringmaster
