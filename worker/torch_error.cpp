// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/torch_error.h"

#include <c10/util/Exception.h>

#include <sstream>

#include "common/printable.h"

namespace ringmaster::worker {

std::string torchErrorReason(const std::exception& e) {
  const auto* c10Error = dynamic_cast<const c10::Error*>(&e);
  std::istringstream lines(c10Error ? c10Error->what_without_backtrace() : e.what());
  std::string line, first, reason;
  while (std::getline(lines, line)) {
    if (line.rfind("Exception raised from", 0) == 0) break;
    if (first.empty() && !line.empty()) first = line;
    if (const size_t at = line.find("Error: "); at != std::string::npos && line.find(' ') > at) {
      reason = line.substr(at + 7);
    }
  }
  std::string text = reason.empty() ? first : reason;
  if (text.size() > 400) text = text.substr(0, utf8Cut(text, 400)) + "...";
  // LibTorch quotes what it could not parse, bytes of a damaged model file among them.
  return validUtf8(text);
}

}  // namespace ringmaster::worker
