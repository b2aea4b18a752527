// SPDX-License-Identifier: GPL-3.0-or-later
// What to do about a finding: a short, specific recommendation made from the finding's own kind, cause, rank,
// host and evidence, one function per kind. The text is a sentence (common/sentence.h): detectors store it
// in English in Finding.advice; the GUI makes it again from the same finding and renders it in its language
// (context kAdviceContext). Advice is not stored with a run: it is
// made again from the stored figures when the run's findings are read, so older runs get it too.
#pragma once

#include <cstdint>
#include <string>

#include "common/sentence.h"
#include "ringmaster/v1/records.pb.h"

namespace ringmaster::diagnosis {

namespace v1 = ::ringmaster::v1;

inline constexpr char kAdviceContext[] = "ringmaster::Advice";

// A straggler or communication finding must cost at least this much of the job's throughput, over at least a
// window of steps, to be more than information (%).
inline constexpr double kMaterialLossPct = 2.0;

// Who reads the advice, and about what run: advice names only what its reader can do there.
struct AdviceReader {
  // The run trained on Ringmaster's own engines, whose flags (--bucket-cap-mb) the advice may name; false for
  // a user's program and for imported traces and record files, whose programs set their own.
  bool ringmasterEngine = true;
  // Printed by the command line, which has no pages to send anyone to: a rank's log is
  // `ringmaster show RUN --log RANK` there, the Logs page in the window.
  bool terminal = false;
  int64_t runId = 0;  // the run, for the commands the advice names; 0: not known yet
};

// The reader of a stored or running run: `source` and `userProgram` as the run store keeps them (RunInfo).
AdviceReader adviceReaderOf(const std::string& source, bool userProgram, int64_t runId, bool terminal);

// The recommendation for `finding`; an empty sentence for a finding it has nothing to say about.
Sentence adviceFor(const v1::Finding& finding, const AdviceReader& reader = {});
// Sets finding.advice to adviceFor's English text (for the default reader), unless the finding came with
// advice of its own.
void addAdvice(v1::Finding& finding);
// Whether the finding's advice is what addAdvice makes of it (or it has none), so that a reader may have it
// made again for itself; advice a finding came with from elsewhere is shown as it came.
bool adviceIsOurs(const v1::Finding& finding);
// The English advice to print for `reader`: made for them, or the finding's own where it came with one.
std::string adviceTextFor(const v1::Finding& finding, const AdviceReader& reader);

}  // namespace ringmaster::diagnosis
