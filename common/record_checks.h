// SPDX-License-Identifier: GPL-3.0-or-later
// What a rank may report about itself, checked where its records enter Ringmaster (the agent's
// Telemetry.Report): only the kinds of record a rank makes (never a rank's exit, a log line or a finding,
// which the agent and the console make), under its own rank number, with timings, sizes and rates that can be
// true. A record that fails is dropped and counted, never journalled, stored or plotted. A loss or a learning
// rate that is not a number is data (a diverged run), not a fault.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "ringmaster/v1/records.pb.h"

namespace ringmaster {

// Records one Report request may carry; a rank's sender batches far fewer.
constexpr size_t kMaxRecordsPerReport = 16384;

// The highest step number a record (or an imported trace) may carry: no job takes a billion optimizer steps,
// and the views keep a series by step number, so a step beyond it is damage, never data.
constexpr uint64_t kMaxStep = 1'000'000'000;

// Empty when `record` may be kept as rank `rank`'s of a job of `worldSize` ranks; otherwise why not, for a
// person
// ("step 7: forward_ns is -2493765578").
std::string rankRecordProblem(const v1::Record& record, int rank, int worldSize);

}  // namespace ringmaster
