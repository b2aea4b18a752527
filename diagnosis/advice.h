// SPDX-License-Identifier: GPL-3.0-or-later
// What to do about a finding: a short, specific recommendation made from the finding's own kind, cause, rank,
// host and evidence, one function per kind. The text is a Phrase (a pattern and its figures): detectors store
// it in English in Finding.advice; the GUI makes it again from the same finding and shows the pattern's
// translation (context kAdviceContext) filled with the same figures. Advice is not stored with a run: it is
// made again from the stored figures when the run's findings are read, so older runs get it too.
#pragma once

#include "common/phrase.h"
#include "ringmaster/v1/records.pb.h"

namespace ringmaster::diagnosis {

namespace v1 = ::ringmaster::v1;

inline constexpr char kAdviceContext[] = "ringmaster::Advice";

// A straggler or communication finding must cost at least this much of the job's throughput, over at least a
// window of steps, to be more than information (%).
inline constexpr double kMaterialLossPct = 2.0;

// The recommendation for `finding`; an empty pattern for a finding it has nothing to say about.
Phrase adviceFor(const v1::Finding& finding);
// Sets finding.advice to adviceFor's English text, unless the finding came with advice of its own.
void addAdvice(v1::Finding& finding);

}  // namespace ringmaster::diagnosis
