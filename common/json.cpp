// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/json.h"

#include <google/protobuf/message.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <type_traits>

namespace ringmaster {

namespace pb = google::protobuf;

JsonError::JsonError(uint64_t position, const std::string& message)
    : std::runtime_error("malformed JSON at byte " + std::to_string(position) + ": " + message),
      position_(position) {}

JsonSpanError::JsonSpanError(uint64_t start, size_t limit)
    : std::runtime_error("more than " + std::to_string(limit) + " bytes of JSON from byte " +
                         std::to_string(start) + " on without a value"),
      start_(start),
      limit_(limit) {}

JsonInputStream::JsonInputStream(std::istream& in, size_t chunkBytes)
    : in_(in),
      buffer_(new char[std::max<size_t>(chunkBytes, 1) + 1]),
      capacity_(std::max<size_t>(chunkBytes, 1)) {
  current_ = last_ = buffer_.get();
  refill();
}

void JsonInputStream::refill() {
  if (eof_) return;  // stay on the '\0' after the input
  consumed_ += chunkSize_;
  if (consumed_ - spanStart_ > spanLimit_) throw JsonSpanError(spanStart_, spanLimit_);
  const size_t capacity = capacity_;
  in_.read(buffer_.get(), static_cast<std::streamsize>(capacity));
  size_t got = static_cast<size_t>(in_.gcount());
  chunkSize_ = got;
  current_ = buffer_.get();
  if (got < capacity) {
    buffer_[got] = '\0';
    last_ = current_ + got;
    eof_ = true;
  } else {
    last_ = current_ + got - 1;
  }
}

namespace detail {

bool endedEarly(const rapidjson::ParseResult& result, bool atEnd, bool tooDeep) {
  if (tooDeep) {
    throw JsonError(result.Offset(), "nested more than " + std::to_string(kMaxJsonDepth) + " levels deep");
  }
  if (result.Code() == rapidjson::kParseErrorTermination) {
    throw std::logic_error("a JSON handler stopped the reader: handlers throw to refuse their input");
  }
  if (result.Code() != rapidjson::kParseErrorDocumentEmpty && atEnd) return true;
  throw JsonError(result.Offset(), rapidjson::GetParseError_En(result.Code()));
}

}  // namespace detail

rapidjson::Document parseJson(std::string_view text, bool numbersAsText) {
  // The document is built by the same reader, with the same limits, as every other read.
  rapidjson::Document document;
  bool whole = false;
  auto read = [&](rapidjson::Document& handler) {
    whole = numbersAsText ? readJson<rapidjson::kParseNumbersAsStringsFlag>(text, handler)
                          : readJson(text, handler);
    return whole;
  };
  document.Populate(read);
  if (!whole) throw JsonError(text.size(), "the text ends inside the document");
  return document;
}

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

template <class Real>
void writeReal(Writer& writer, Real value) {
  // protobuf's JSON mapping writes the values JSON has no number for as strings.
  if (std::isnan(value)) {
    writer.String("NaN");
  } else if (std::isinf(value)) {
    writer.String(value > 0 ? "Infinity" : "-Infinity");
  } else {
    writer.Double(static_cast<double>(value));
  }
}

void writeMessage(Writer& writer, const pb::Message& message);

void writeValue(Writer& writer, const pb::Message& message, const pb::FieldDescriptor* field, int index) {
  const pb::Reflection* r = message.GetReflection();
  bool repeated = field->is_repeated();
  switch (field->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_INT32:
      writer.Int(repeated ? r->GetRepeatedInt32(message, field, index) : r->GetInt32(message, field));
      break;
    case pb::FieldDescriptor::CPPTYPE_UINT32:
      writer.Uint(repeated ? r->GetRepeatedUInt32(message, field, index) : r->GetUInt32(message, field));
      break;
    case pb::FieldDescriptor::CPPTYPE_INT64:
      writer.String(std::to_string(repeated ? r->GetRepeatedInt64(message, field, index)
                                            : r->GetInt64(message, field)));
      break;
    case pb::FieldDescriptor::CPPTYPE_UINT64:
      writer.String(std::to_string(repeated ? r->GetRepeatedUInt64(message, field, index)
                                            : r->GetUInt64(message, field)));
      break;
    case pb::FieldDescriptor::CPPTYPE_DOUBLE:
      writeReal(writer,
                repeated ? r->GetRepeatedDouble(message, field, index) : r->GetDouble(message, field));
      break;
    case pb::FieldDescriptor::CPPTYPE_FLOAT:
      writeReal(writer, repeated ? r->GetRepeatedFloat(message, field, index) : r->GetFloat(message, field));
      break;
    case pb::FieldDescriptor::CPPTYPE_BOOL:
      writer.Bool(repeated ? r->GetRepeatedBool(message, field, index) : r->GetBool(message, field));
      break;
    case pb::FieldDescriptor::CPPTYPE_STRING:
      writer.String(repeated ? r->GetRepeatedString(message, field, index) : r->GetString(message, field));
      break;
    case pb::FieldDescriptor::CPPTYPE_ENUM: {
      int number =
          repeated ? r->GetRepeatedEnumValue(message, field, index) : r->GetEnumValue(message, field);
      const pb::EnumValueDescriptor* value = field->enum_type()->FindValueByNumber(number);
      if (value) {
        writer.String(value->name());
      } else {
        writer.Int(number);
      }
      break;
    }
    case pb::FieldDescriptor::CPPTYPE_MESSAGE:
      writeMessage(writer,
                   repeated ? r->GetRepeatedMessage(message, field, index) : r->GetMessage(message, field));
      break;
  }
}

void writeMessage(Writer& writer, const pb::Message& message) {
  std::vector<const pb::FieldDescriptor*> fields;
  message.GetReflection()->ListFields(message, &fields);  // the fields that hold a value, by number
  writer.StartObject();
  for (const pb::FieldDescriptor* field : fields) {
    writer.Key(field->json_name().c_str());
    if (!field->is_repeated()) {
      writeValue(writer, message, field, -1);
      continue;
    }
    writer.StartArray();
    int size = message.GetReflection()->FieldSize(message, field);
    for (int i = 0; i < size; ++i) writeValue(writer, message, field, i);
    writer.EndArray();
  }
  writer.EndObject();
}

// A JSON number, or a string holding one, as an integer of type T that holds it exactly.
template <class T>
bool readInteger(const rapidjson::Value& value, T& out) {
  if (value.IsString()) {
    const char* text = value.GetString();
    const char* end = text + value.GetStringLength();
    auto [stop, ec] = std::from_chars(text, end, out);
    return ec == std::errc() && stop == end;
  }
  if (value.IsInt64() && value.GetInt64() < 0) {
    int64_t v = value.GetInt64();
    if (!std::is_signed_v<T> || v < int64_t(std::numeric_limits<T>::min())) return false;
    out = T(v);
    return true;
  }
  if (value.IsUint64()) {
    uint64_t v = value.GetUint64();
    if (v > uint64_t(std::numeric_limits<T>::max())) return false;
    out = T(v);
    return true;
  }
  return false;
}

bool readReal(const rapidjson::Value& value, double& out) {
  if (value.IsNumber()) {
    out = value.GetDouble();
    return true;
  }
  if (!value.IsString()) return false;
  std::string_view text(value.GetString(), value.GetStringLength());
  if (text == "NaN") {
    out = std::numeric_limits<double>::quiet_NaN();
  } else if (text == "Infinity") {
    out = std::numeric_limits<double>::infinity();
  } else if (text == "-Infinity") {
    out = -std::numeric_limits<double>::infinity();
  } else {
    return false;
  }
  return true;
}

bool readMessage(const rapidjson::Value& object, pb::Message& message);

bool readValue(const rapidjson::Value& value, pb::Message& message, const pb::FieldDescriptor* field) {
  const pb::Reflection* r = message.GetReflection();
  bool add = field->is_repeated();
  switch (field->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_INT32: {
      int32_t v;
      if (!readInteger(value, v)) return false;
      add ? r->AddInt32(&message, field, v) : r->SetInt32(&message, field, v);
      return true;
    }
    case pb::FieldDescriptor::CPPTYPE_UINT32: {
      uint32_t v;
      if (!readInteger(value, v)) return false;
      add ? r->AddUInt32(&message, field, v) : r->SetUInt32(&message, field, v);
      return true;
    }
    case pb::FieldDescriptor::CPPTYPE_INT64: {
      int64_t v;
      if (!readInteger(value, v)) return false;
      add ? r->AddInt64(&message, field, v) : r->SetInt64(&message, field, v);
      return true;
    }
    case pb::FieldDescriptor::CPPTYPE_UINT64: {
      uint64_t v;
      if (!readInteger(value, v)) return false;
      add ? r->AddUInt64(&message, field, v) : r->SetUInt64(&message, field, v);
      return true;
    }
    case pb::FieldDescriptor::CPPTYPE_DOUBLE:
    case pb::FieldDescriptor::CPPTYPE_FLOAT: {
      double v;
      if (!readReal(value, v)) return false;
      if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_FLOAT) {
        add ? r->AddFloat(&message, field, float(v)) : r->SetFloat(&message, field, float(v));
      } else {
        add ? r->AddDouble(&message, field, v) : r->SetDouble(&message, field, v);
      }
      return true;
    }
    case pb::FieldDescriptor::CPPTYPE_BOOL:
      if (!value.IsBool()) return false;
      add ? r->AddBool(&message, field, value.GetBool()) : r->SetBool(&message, field, value.GetBool());
      return true;
    case pb::FieldDescriptor::CPPTYPE_STRING: {
      if (!value.IsString()) return false;
      std::string text(value.GetString(), value.GetStringLength());
      add ? r->AddString(&message, field, std::move(text)) : r->SetString(&message, field, std::move(text));
      return true;
    }
    case pb::FieldDescriptor::CPPTYPE_ENUM: {
      int number;
      if (value.IsString()) {
        const pb::EnumValueDescriptor* named = field->enum_type()->FindValueByName(value.GetString());
        if (!named) return false;
        number = named->number();
      } else if (!readInteger(value, number)) {
        return false;
      }
      add ? r->AddEnumValue(&message, field, number) : r->SetEnumValue(&message, field, number);
      return true;
    }
    case pb::FieldDescriptor::CPPTYPE_MESSAGE:
      return readMessage(value, add ? *r->AddMessage(&message, field) : *r->MutableMessage(&message, field));
  }
  return false;
}

// The field whose JSON name (or proto name) is `name`.
const pb::FieldDescriptor* fieldNamed(const pb::Descriptor* descriptor, std::string_view name) {
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const pb::FieldDescriptor* field = descriptor->field(i);
    if (field->json_name() == name || field->name() == name) return field;
  }
  return nullptr;
}

bool readMessage(const rapidjson::Value& object, pb::Message& message) {
  if (!object.IsObject()) return false;
  for (const auto& member : object.GetObject()) {
    const pb::FieldDescriptor* field =
        fieldNamed(message.GetDescriptor(), {member.name.GetString(), member.name.GetStringLength()});
    if (!field || field->is_map() || field->type() == pb::FieldDescriptor::TYPE_BYTES) return false;
    if (member.value.IsNull()) continue;  // null is the default value
    if (!field->is_repeated()) {
      if (!readValue(member.value, message, field)) return false;
      continue;
    }
    if (!member.value.IsArray()) return false;
    for (const auto& element : member.value.GetArray()) {
      if (!readValue(element, message, field)) return false;
    }
  }
  return true;
}

}  // namespace

std::string messageToJson(const pb::Message& message) {
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  writeMessage(writer, message);
  return std::string(jsonText(buffer));
}

bool messageFromJson(std::string_view json, pb::Message& message) {
  message.Clear();
  try {
    if (readMessage(parseJson(json), message)) return true;
  } catch (const JsonError&) {
  }
  message.Clear();
  return false;
}

}  // namespace ringmaster
