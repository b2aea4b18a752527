// SPDX-License-Identifier: GPL-3.0-or-later
// The texts the run store keeps in its columns, private to rm_history: a finding's evidence as a JSON object
// of numbers, a stall report's missing ranks as "0,3" and its tensors as a JSON array of strings. Host info
// and environments are string maps as JSON objects: encodeStringMap and decodeStringMap, declared in
// history/run_store.h since readers of the store's text columns outside it use them too.
#pragma once

#include <google/protobuf/map.h>
#include <google/protobuf/repeated_field.h>
#include <google/protobuf/repeated_ptr_field.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace ringmaster {

// Keys in order, so that equal evidence is stored as equal text.
std::string encodeEvidence(const google::protobuf::Map<std::string, double>& evidence);
// Adds the object's numeric members to `out`; a text that is not an object adds nothing.
void decodeEvidence(std::string_view json, google::protobuf::Map<std::string, double>& out);

std::string joinRanks(const google::protobuf::RepeatedField<int32_t>& ranks);
void splitRanks(std::string_view text, google::protobuf::RepeatedField<int32_t>& out);

std::string encodeStrings(const google::protobuf::RepeatedPtrField<std::string>& strings);
// Adds the array's strings to `out`; other values, and a text that is not an array, add nothing.
void decodeStrings(std::string_view json, google::protobuf::RepeatedPtrField<std::string>& out);

}  // namespace ringmaster
