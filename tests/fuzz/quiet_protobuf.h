// SPDX-License-Identifier: GPL-3.0-or-later
// Protobuf logs every message it refuses (e.g. a string that is not UTF-8); a fuzz target makes millions.
#pragma once

#include <google/protobuf/stubs/logging.h>

namespace ringmaster::fuzz {

inline void quietProtobuf() {
  static const bool quiet = (google::protobuf::SetLogHandler(nullptr), true);
  (void)quiet;
}

}  // namespace ringmaster::fuzz
