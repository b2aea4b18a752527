// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/record_checks.h"

#include <cmath>
#include <cstdint>

namespace ringmaster {
namespace {

constexpr int64_t kDayNs = int64_t{86400} * 1'000'000'000;  // no step, phase or all-reduce takes longer
constexpr uint64_t kPetabyte = uint64_t{1} << 50;           // more memory or payload than any host has
constexpr uint32_t kMaxSamples = 10'000'000;                // samples of one rank in one step
constexpr double kMaxBandwidthGBps = 1e5;                   // far above any link
constexpr size_t kMaxText = 4096;                           // lane, name, tensor and argument strings

// Collects the first problem of one record.
class Check {
 public:
  explicit Check(std::string what) : what_(std::move(what)) {}

  Check& duration(const char* field, int64_t ns) {
    if (problem_.empty() && (ns < 0 || ns > kDayNs))
      problem_ = field + std::string(" is ") + std::to_string(ns);
    return *this;
  }
  Check& finite(const char* field, double value, double min, double max) {
    if (problem_.empty() && !(std::isfinite(value) && value >= min && value <= max)) {
      problem_ = field + std::string(" is ") + std::to_string(value);
    }
    return *this;
  }
  Check& atMost(const char* field, uint64_t value, uint64_t max) {
    if (problem_.empty() && value > max) problem_ = field + std::string(" is ") + std::to_string(value);
    return *this;
  }
  Check& text(const char* field, const std::string& value) {
    if (problem_.empty() && value.size() > kMaxText) {
      problem_ = field + std::string(" has ") + std::to_string(value.size()) + " characters";
    }
    return *this;
  }
  Check& that(bool ok, const std::string& problem) {
    if (problem_.empty() && !ok) problem_ = problem;
    return *this;
  }
  std::string result() const { return problem_.empty() ? "" : what_ + ": " + problem_; }

 private:
  std::string what_;
  std::string problem_;
};

constexpr int kMaxCollectives = 256;           // calls of one step a record may carry
constexpr int kMaxReplicaTensors = 1'000'000;  // tensors of one model

void checkCollective(Check& check, const v1::Collective& c) {
  check.text("a collective's op", c.op())
      .text("a collective's reduction", c.reduction())
      .text("a collective's dtype", c.dtype())
      .text("a collective's group", c.group())
      .text("a collective's site", c.site())
      .atMost("a collective's elements", c.elements(), kPetabyte);
}

std::string stepName(uint64_t step) {
  return "step " + std::to_string(step);
}

}  // namespace

std::string rankRecordProblem(const v1::Record& record, int rank, int worldSize) {
  auto own = [&](int32_t r) { return r == rank; };
  const std::string notOwn = "it names rank ";
  switch (record.body_case()) {
    case v1::Record::kStep: {
      const auto& s = record.step();
      return Check(stepName(s.step()))
          .that(own(s.rank()), notOwn + std::to_string(s.rank()))
          .atMost("step", s.step(), kMaxStep)
          .duration("data_ns", s.data_ns())
          .duration("forward_ns", s.forward_ns())
          .duration("backward_ns", s.backward_ns())
          .duration("comm_wait_ns", s.comm_wait_ns())
          .duration("optimizer_ns", s.optimizer_ns())
          .duration("total_ns", s.total_ns())
          .atMost("samples", s.samples(), kMaxSamples)
          .result();
    }
    case v1::Record::kAllreduce: {
      const auto& o = record.allreduce();
      return Check("all-reduce of " + stepName(o.step()))
          .that(own(o.rank()), notOwn + std::to_string(o.rank()))
          .atMost("step", o.step(), kMaxStep)
          .atMost("bytes", o.bytes(), kPetabyte)
          .duration("end_ns - start_ns", o.end_ns() - o.start_ns())
          .finite("latency_us", o.latency_us(), 0, double(kDayNs) / 1e3)
          .finite("algbw_gbps", o.algbw_gbps(), 0, kMaxBandwidthGBps)
          .finite("busbw_gbps", o.busbw_gbps(), 0, kMaxBandwidthGBps)
          .result();
    }
    case v1::Record::kMemory: {
      const auto& m = record.memory();
      return Check("memory of " + stepName(m.step()))
          .that(own(m.rank()), notOwn + std::to_string(m.rank()))
          .atMost("step", m.step(), kMaxStep)
          .atMost("rss_bytes", m.rss_bytes(), kPetabyte)
          .atMost("heap_bytes", m.heap_bytes(), kPetabyte)
          .atMost("device_used_bytes", m.device_used_bytes(), kPetabyte)
          .atMost("device_total_bytes", m.device_total_bytes(), kPetabyte)
          .atMost("host_total_bytes", m.host_total_bytes(), kPetabyte)
          .result();
    }
    case v1::Record::kTimeline: {
      const auto& e = record.timeline();
      Check check("timeline event");
      check.that(own(e.rank()), notOwn + std::to_string(e.rank()))
          .duration("end_ns - start_ns", e.end_ns() - e.start_ns())
          .text("lane", e.lane())
          .text("name", e.name())
          .atMost("args", e.args_size(), 64);
      for (const auto& [key, value] : e.args())
        check.text("an argument's name", key).text("an argument", value);
      return check.result();
    }
    case v1::Record::kStall: {
      const auto& s = record.stall();
      Check check("stall report");
      check.that(own(s.reporting_rank()), notOwn + std::to_string(s.reporting_rank()))
          .finite("waited_s", s.waited_s(), 0, 7 * 86400.0)
          .atMost("tensors", s.tensors_size(), 100000);
      for (int missing : s.missing_ranks()) {
        check.that(missing >= 0 && missing < worldSize, "missing rank " + std::to_string(missing));
      }
      for (const auto& t : s.tensors()) check.text("a tensor name", t);
      return check.result();
    }
    case v1::Record::kSummary: {
      const auto& s = record.summary();
      return Check("summary")
          .that(own(s.rank()), notOwn + std::to_string(s.rank()))
          .that(std::isnan(s.test_accuracy()) || s.test_accuracy() <= 1,
                "test_accuracy is " + std::to_string(s.test_accuracy()))
          .finite("samples_per_s", s.samples_per_s(), 0, 1e12)
          .text("param_checksum", s.param_checksum())
          .result();
    }
    case v1::Record::kScalar: {
      const auto& s = record.scalar();
      return Check("scalar")
          .that(own(s.rank()), notOwn + std::to_string(s.rank()))
          .that(!s.name().empty(), "it has no name")
          .text("name", s.name())
          .result();
    }
    case v1::Record::kHealth:
      return Check("telemetry health").that(own(record.health().rank()), notOwn).result();
    case v1::Record::kHeartbeat: {
      const auto& h = record.heartbeat();
      Check check("heartbeat");
      check.that(own(h.rank()), notOwn + std::to_string(h.rank()))
          .text("phase", h.phase())
          .atMost("collectives", h.collectives_size(), kMaxCollectives);
      for (const auto& c : h.collectives()) checkCollective(check, c);
      return check.result();
    }
    case v1::Record::kCollectiveCalls: {
      const auto& c = record.collective_calls();
      Check check("collectives of " + stepName(c.step()));
      check.that(own(c.rank()), notOwn + std::to_string(c.rank()))
          .atMost("step", c.step(), kMaxStep)
          .atMost("calls", c.calls_size(), kMaxCollectives)
          .that(
              c.count() >= static_cast<uint32_t>(c.calls_size()),
              "count is " + std::to_string(c.count()) + " with " + std::to_string(c.calls_size()) + " calls");
      for (const auto& call : c.calls()) checkCollective(check, call);
      return check.result();
    }
    case v1::Record::kReplicas: {
      const auto& r = record.replicas();
      Check check("replica hashes of " + stepName(r.step()));
      check.that(own(r.rank()), notOwn + std::to_string(r.rank()))
          .atMost("step", r.step(), kMaxStep)
          .atMost("names", r.names_size(), kMaxReplicaTensors)
          .that(r.names_size() == r.hashes_size(), std::to_string(r.names_size()) + " names with " +
                                                       std::to_string(r.hashes_size()) + " hashes");
      for (const auto& name : r.names()) check.text("a tensor name", name);
      return check.result();
    }
    case v1::Record::kRuntime: {
      const auto& r = record.runtime();
      return Check("runtime")
          .that(own(r.rank()), notOwn + std::to_string(r.rank()))
          .text("host", r.host())
          .text("python", r.python())
          .text("torch", r.torch())
          .text("cuda", r.cuda())
          .text("backend", r.backend())
          .result();
    }
    case v1::Record::kLog:
      return "a log line: the agent reads what ranks print itself";
    case v1::Record::kRankState:
      return "a rank's state: only the agent that runs the rank says how it ended";
    case v1::Record::kFinding:
      return "a finding: the console makes findings from what ranks measure";
    default:
      return "a record of no known kind";
  }
}

}  // namespace ringmaster
