// SPDX-License-Identifier: GPL-3.0-or-later
// The run store's schema, version by version. A file records its version in PRAGMA user_version; opening an
// older file applies the migrations after it in order, inside one transaction, so a store is never discarded.
#pragma once

#include <string_view>
#include <vector>

namespace ringmaster::store_schema {

// PRAGMA application_id of every run store ("RGMS"), so a foreign SQLite file is recognised as such.
inline constexpr int kApplicationId = 0x52474D53;

// The version this build writes.
inline constexpr int kCurrentVersion = 7;

// migrations()[i] takes a store from version i to version i + 1 (version 0 = an empty file).
const std::vector<std::string_view>& migrations();

}  // namespace ringmaster::store_schema
