// SPDX-License-Identifier: GPL-3.0-or-later
// A finding's evidence in words: each named figure ("limit_mib", "slowdown_pct", …) as a label and its value
// with a unit ("limit" 23.5 GiB, "time to full" 8.2 min). The one place that knows what each key means; the
// GUI, `ringmaster show`, the summary JSON's readers and the reports all go through it. Labels are English
// and marked for translation (context kEvidenceContext); values are numbers with SI units, the same in any
// language.
#pragma once

#include <string>
#include <vector>

#include "common/sentence.h"
#include "ringmaster/v1/records.pb.h"

namespace ringmaster {

inline constexpr char kEvidenceContext[] = "ringmaster::Evidence";

struct EvidenceText {
  std::string key;     // as stored, e.g. "limit_mib"
  std::string label;   // e.g. "limit"; for a key this table does not know, the key with spaces
  bool known = false;  // the label is one of the table's, so a translation exists for it
  std::string value;   // e.g. "23.5 GiB"
  // A value whose unit is a word ("16.6 min") as a sentence the window says in its language; empty for the
  // others, whose units are symbols every language shares. `value` is its English.
  Sentence said;
};

// One figure in words.
EvidenceText evidenceText(const std::string& key, double value);
// A finding's figures in words: the keys this table knows in its order (most telling first), then the others
// by name.
std::vector<EvidenceText> evidenceTexts(const v1::Finding& finding);
// The same on one line for a terminal or a report: "throughput lost 15.3 %, others' wait per step 8.1 ms".
std::string evidenceLine(const v1::Finding& finding);

// "23.5 GiB", "4.00 MiB", "512 B": bytes in the largest binary unit that keeps the figure at 1 or more.
std::string formatBytes(double bytes);
// "SIGABRT", or "signal 70" for a number the C library has no name for.
std::string signalName(int signal);

}  // namespace ringmaster
