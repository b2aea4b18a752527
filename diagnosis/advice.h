// SPDX-License-Identifier: GPL-3.0-or-later
// What to do about a finding: a short, specific recommendation made from the finding's own kind, cause, rank,
// host and evidence, one function per kind. The text is a sentence (common/sentence.h): detectors store it
// in English in Finding.advice; the GUI makes it again from the same finding and renders it in its language
// (context kAdviceContext). Advice is not stored with a run: it is
// made again from the stored figures when the run's findings are read, so older runs get it too.
#pragma once

#include "common/sentence.h"
#include "ringmaster/v1/records.pb.h"

namespace ringmaster::diagnosis {

namespace v1 = ::ringmaster::v1;

inline constexpr char kAdviceContext[] = "ringmaster::Advice";

// A straggler or communication finding must cost at least this much of the job's throughput, over at least a
// window of steps, to be more than information (%).
inline constexpr double kMaterialLossPct = 2.0;

// The recommendation for `finding`; an empty sentence for a finding it has nothing to say about.
Sentence adviceFor(const v1::Finding& finding);
// Sets finding.advice to adviceFor's English text, unless the finding came with advice of its own.
void addAdvice(v1::Finding& finding);

}  // namespace ringmaster::diagnosis
