// SPDX-License-Identifier: GPL-3.0-or-later
// What a rank reports (common/record_checks.h): any bytes as a Telemetry.Report request, whose records are
// checked as the agent checks them before it journals them.
#include <cstdint>
#include <string>

#include "common/record_checks.h"
#include "quiet_protobuf.h"
#include "ringmaster/v1/telemetry.pb.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ringmaster::fuzz::quietProtobuf();
  ringmaster::v1::ReportRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;
  const int rank = request.rank();
  // The job's size comes from the agent, not the rank: one where the rank fits, when it can.
  const int worldSize = rank >= 0 && rank < (1 << 20) ? rank + 1 : 1;
  for (const auto& record : request.batch().records()) ringmaster::rankRecordProblem(record, rank, worldSize);
  return 0;
}
