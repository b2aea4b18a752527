// SPDX-License-Identifier: GPL-3.0-or-later
// The Chrome trace export: the run's stored timeline, or one drawn from its step phases and all-reduce ops.
#include <map>
#include <set>

#include "common/chrome_trace.h"
#include "console/reports/report.h"
#include "diagnosis/finding.h"

namespace ringmaster::console {

uint64_t writeTrace(const RunStore& store, int64_t runId, const std::string& path) {
  ChromeTraceWriter writer(path);
  std::map<int, std::string> hosts;
  for (const auto& r : store.ranks(runId)) hosts[r.rank] = r.host;
  std::set<int> named;
  auto nameRank = [&](int rank) {
    if (!named.insert(rank).second) return;
    auto host = hosts.count(rank) && !hosts[rank].empty() ? " (" + hosts[rank] + ")" : std::string();
    writer.nameRank(rank, "rank " + std::to_string(rank) + host);
  };
  uint64_t events = 0;
  auto add = [&](const v1::TimelineEvent& e) {
    nameRank(e.rank());
    writer.add(e);
    if (++events % 100000 == 0) writer.flush();
  };
  store.forEachTimelineEvent(runId, add);
  if (events == 0) {
    // No timeline was recorded: draw one from the step phases and the all-reduce ops.
    v1::TimelineEvent e;
    for (const auto& s : store.rankSeries(runId)) {
      for (const auto& step : s.steps) {
        int64_t t = step.start_ns();
        const std::pair<const char*, int64_t> phases[] = {{"DATA", step.data_ns()},
                                                          {"FORWARD", step.forward_ns()},
                                                          {"BACKWARD", step.backward_ns()},
                                                          {"COMM_WAIT", step.comm_wait_ns()},
                                                          {"OPTIMIZER", step.optimizer_ns()}};
        for (const auto& [name, duration] : phases) {
          e.Clear();
          e.set_rank(s.rank);
          e.set_lane("compute");
          e.set_name(name);
          e.set_start_ns(t);
          e.set_end_ns(t + duration);
          e.set_step(step.step());
          add(e);
          t += duration;
        }
      }
      for (const auto& op : s.allreduce) {
        e.Clear();
        e.set_rank(s.rank);
        e.set_lane("comm");
        e.set_name("ALLREDUCE");
        e.set_start_ns(op.start_ns());
        e.set_end_ns(op.end_ns());
        e.set_step(op.step());
        (*e.mutable_args())["bytes"] = std::to_string(op.bytes());
        (*e.mutable_args())["bucket"] = std::to_string(op.bucket());
        (*e.mutable_args())["busbw_gbps"] = diagnosis::format("%.3f", op.busbw_gbps());
        add(e);
      }
    }
  }
  writer.flush();
  return events;
}

}  // namespace ringmaster::console
