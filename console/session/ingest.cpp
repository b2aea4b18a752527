// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/session/ingest.h"

#include <algorithm>
#include <cassert>

#include "common/clock.h"
#include "diagnosis/advice.h"
#include "diagnosis/evidence_keys.h"
#include "diagnosis/finding.h"
#include "diagnosis/summary_text.h"

namespace ringmaster::console {

namespace {
constexpr int64_t kFindingsEveryNs = 1'000'000'000;
// News (a stall report, a finding from elsewhere, a rank that ends) is stored within this: a thousand ranks
// that end within a second are one store of the findings, not a diagnosis each.
constexpr int64_t kNewsEveryNs = 100'000'000;

// What the history lacks of a run whose records the store refused (a full disk, a store locked too long).
v1::Finding recordsNotStored(uint64_t lost, uint64_t fromStep) {
  v1::Finding f = diagnosis::makeFinding(v1::Finding::KIND_UNSPECIFIED, v1::Finding::SEVERITY_WARNING, -1, "",
                                         fromStep == UINT64_MAX ? 0 : fromStep, "records not stored");
  diagnosis::setSummary(f, diagnosis::say(diagnosis::text::kRecordsNotStored, {lost}));
  (*f.mutable_evidence())[diagnosis::evidence::kRecordsNotStored] = static_cast<double>(lost);
  if (fromStep != UINT64_MAX)
    (*f.mutable_evidence())[diagnosis::evidence::kNotStoredFromStep] = static_cast<double>(fromStep);
  diagnosis::addAdvice(f);
  return f;
}

int worldSizeOf(const NewRun& run) {
  return run.worldSize > 0 ? run.worldSize : int(run.spec.world_size());
}
}  // namespace

RunIngest::RunIngest(const std::string& storePath, const NewRun& run, diagnosis::DiagnosisConfig config)
    : diagnosis_(std::max(worldSizeOf(run), 1), config) {
  if (storePath.empty()) return;
  store_.emplace(storePath);
  runId_ = store_->createRun(run);
}

void RunIngest::onRecords(const std::string& jobId, const std::string& host,
                          const std::vector<v1::Record>& records) {
  (void)jobId;
  // A rank runs on the host the console reached its agent as (the -H name, the Slurm node), not on the
  // agent's own hostname, which the nodes of one machine or of a container share.
  const auto misnamed = [&host](const v1::Record& r) {
    return r.has_rank_state() && !host.empty() && r.rank_state().host() != host;
  };
  if (std::none_of(records.begin(), records.end(), misnamed)) {
    add(records, host);
    return;
  }
  std::vector<v1::Record> renamed = records;
  for (auto& r : renamed) {
    if (misnamed(r)) r.mutable_rank_state()->set_host(host);
  }
  add(renamed, host);
}

void RunIngest::add(const std::vector<v1::Record>& records, const std::string& host) {
  std::lock_guard lock(mutex_);
  if (records.empty()) return;
  bool needsHost = false;
  for (const auto& r : records)
    needsHost |= r.has_rank_state() && r.rank_state().host().empty() && !host.empty();
  if (!needsHost) {
    store(records, host);
    return;
  }
  std::vector<v1::Record> copy = records;
  for (auto& r : copy) {
    if (r.has_rank_state() && r.rank_state().host().empty()) r.mutable_rank_state()->set_host(host);
  }
  store(copy, host);
}

void RunIngest::replay(const std::vector<v1::Record>& records, const std::vector<int64_t>& arrivalNs) {
  assert(records.size() == arrivalNs.size());
  std::lock_guard lock(mutex_);
  replaying_ = true;
  if (!records.empty()) store(records, "", &arrivalNs);
}

void RunIngest::restarted(const v1::Finding& finding, int worldSize,
                          std::function<Sentence(uint64_t step)> resumedSummary) {
  std::lock_guard lock(mutex_);
  diagnosis_.restarted(worldSize);
  restart_ = finding;
  restartSummary_ = std::move(resumedSummary);
  v1::Record record;
  *record.mutable_finding() = finding;
  store({record}, "");
}

void RunIngest::store(const std::vector<v1::Record>& given, const std::string& host,
                      const std::vector<int64_t>* arrivalNs) {
  const std::vector<v1::Record>* batch = &given;
  std::vector<v1::Record> withRestart;
  if (restart_) {
    assert(!arrivalNs && "a replayed run has no restarts");
    uint64_t resumedAt = UINT64_MAX;
    for (const auto& r : given)
      if (r.has_step()) resumedAt = std::min<uint64_t>(resumedAt, r.step().step());
    if (resumedAt != UINT64_MAX) {
      v1::Finding& f = *restart_;
      f.set_since_step(resumedAt);
      (*f.mutable_evidence())[diagnosis::evidence::kResumedFromStep] = static_cast<double>(resumedAt);
      if (restartSummary_) diagnosis::setSummary(f, restartSummary_(resumedAt));
      withRestart = given;
      *withRestart.emplace_back().mutable_finding() = f;
      batch = &withRestart;
      restart_.reset();
      if (store_) {
        try {
          store_->forgetStepsFrom(runId_, resumedAt);
        } catch (const std::exception& e) {
          if (storeProblem_.empty()) storeProblem_ = e.what();
        }
      }
    }
  }
  const std::vector<v1::Record>& records = *batch;
  if (store_) {
    // A store that cannot take a batch (a full disk, another writer's lock) must not stop the diagnosis or
    // the views: the batch is counted as lost and finish() says so.
    try {
      store_->append(runId_, records);
      recordsStored_ += records.size();
    } catch (const std::exception& e) {
      if (storeProblem_.empty()) storeProblem_ = e.what();
      recordsLost_ += records.size();
      for (const auto& r : records) {
        const uint64_t step = r.has_step()        ? r.step().step()
                              : r.has_allreduce() ? r.allreduce().step()
                              : r.has_memory()    ? r.memory().step()
                                                  : UINT64_MAX;
        lostFromStep_ = std::min(lostFromStep_, step);
      }
    }
  }
  std::set<std::string> changedHosts;
  bool environmentChanged = false;
  for (const auto& r : records) {
    if (r.has_runtime()) keepRuntime(r.runtime(), host, changedHosts, environmentChanged);
  }
  if (!changedHosts.empty() || environmentChanged) storeEnvironment(changedHosts, environmentChanged);
  if (arrivalNs) {
    for (size_t i = 0; i < records.size(); ++i) diagnosis_.observe(records[i], (*arrivalNs)[i]);
    return;
  }
  int64_t now = monotonicNs();
  bool news = false;
  const int worldBefore = diagnosis_.worldSize();
  for (const auto& r : records) {
    diagnosis_.observe(r, now);
    // Stall reports, findings from elsewhere and ranks that end are news, stored within kNewsEveryNs.
    news |= r.has_stall() || r.has_finding() || r.has_rank_state();
  }
  if (diagnosis_.worldSize() > worldBefore && store_) {
    try {
      store_->setWorldSize(runId_, diagnosis_.worldSize());
    } catch (const std::exception& e) {
      if (storeProblem_.empty()) storeProblem_ = e.what();
    }
  }
  storeFindingsIfDue(news);
}

void RunIngest::keepRuntime(const v1::RankRuntime& runtime, const std::string& host,
                            std::set<std::string>& changedHosts, bool& environmentChanged) {
  // The rank runs on the host the console knows it by; a rank read back from its file names its own.
  const std::string& where = host.empty() ? runtime.host() : host;
  const std::pair<const char*, const std::string&> said[] = {{"python", runtime.python()},
                                                             {"torch", runtime.torch()},
                                                             {"cuda", runtime.cuda()},
                                                             {"backend", runtime.backend()}};
  for (const auto& [key, value] : said) {
    if (value.empty()) continue;
    environmentChanged |= runtime_[key].insert(value).second;
    if (!where.empty() && hostRuntime_[where][key].insert(value).second) changedHosts.insert(where);
  }
}

void RunIngest::storeEnvironment(const std::set<std::string>& hosts, bool environment) {
  if (!store_) return;
  const auto joined = [](const std::set<std::string>& values) {
    std::string text;
    for (const auto& v : values) text += (text.empty() ? "" : ", ") + v;
    return text;
  };
  const auto withRuntime = [&](Facts facts, const std::map<std::string, std::set<std::string>>& runtime) {
    for (const auto& [key, values] : runtime) facts[key] = joined(values);
    return facts;
  };
  try {
    if (environment) store_->setEnvironment(runId_, withRuntime(environment_, runtime_));
    static const std::map<std::string, std::set<std::string>> kNothingSaid;
    for (const auto& host : hosts) {
      const auto it = hostRuntime_.find(host);
      store_->setHostInfo(
          runId_, host, withRuntime(hostFacts_[host], it == hostRuntime_.end() ? kNothingSaid : it->second));
    }
  } catch (const std::exception& e) {
    if (storeProblem_.empty()) storeProblem_ = e.what();
  }
}

std::string RunIngest::storeProblem() const {
  std::lock_guard lock(mutex_);
  std::string problem = storeProblem_.empty() || recordsLost_ == 0
                            ? storeProblem_
                            : std::to_string(recordsLost_) + " records could not be stored: " + storeProblem_;
  if (!endProblem_.empty()) problem += (problem.empty() ? "" : "; ") + endProblem_;
  return problem;
}

uint64_t RunIngest::recordsLost() const {
  std::lock_guard lock(mutex_);
  return recordsLost_;
}

void RunIngest::tick() {
  std::lock_guard lock(mutex_);
  storeFindingsIfDue(false);
}

void RunIngest::add(const v1::RecordBatch& batch, const std::string& host) {
  add(std::vector<v1::Record>(batch.records().begin(), batch.records().end()), host);
}

std::vector<v1::Finding> RunIngest::findings() const {
  return findingsAsOf(monotonicNs());
}

std::vector<v1::Finding> RunIngest::findingsAsOf(int64_t nowNs) const {
  std::lock_guard lock(mutex_);
  return final_ ? *final_ : diagnosis_.findings(nowNs);
}

void RunIngest::storeFindingsIfDue(bool news) {
  if (final_ || replaying_) return;
  newsWaiting_ |= news;
  int64_t t = monotonicNs();
  if (lastFindingsNs_ && t - *lastFindingsNs_ < (newsWaiting_ ? kNewsEveryNs : kFindingsEveryNs)) return;
  lastFindingsNs_ = t;
  newsWaiting_ = false;
  storeFindings(diagnosis_.findings(t));
}

void RunIngest::storeFindings(const std::vector<v1::Finding>& findings) {
  // Nothing found before and nothing now: no need to touch the table.
  if (findings.empty() && lastFindingsCount_ == 0) return;
  if (store_) {
    try {
      store_->replaceFindings(runId_, findings);
    } catch (const std::exception& e) {
      if (storeProblem_.empty()) storeProblem_ = e.what();
      return;
    }
  }
  lastFindingsCount_ = findings.size();
}

void RunIngest::finish(const std::string& status) {
  finishAt(status, unixNs(), monotonicNs());
}

void RunIngest::finishAt(const std::string& status, int64_t endedUnixNs, int64_t asOfNs) {
  std::lock_guard lock(mutex_);
  if (!final_) {
    final_ = diagnosis_.findings(asOfNs);
    if (recordsLost_ > 0) final_->push_back(recordsNotStored(recordsLost_, lostFromStep_));
  }
  if (!store_) return;
  try {
    store_->endRun(runId_, status, endedUnixNs, *final_);
    lastFindingsCount_ = final_->size();
  } catch (const std::exception& e) {
    // Not even the room kept for it was enough: the run stays "running" in the file, and once this console
    // has gone, the next one to open the history calls it interrupted.
    endProblem_ = std::string("the run's end could not be stored: ") + e.what();
  }
}

void RunIngest::recordEnvironment(const std::map<std::string, std::string>& environment,
                                  const std::map<std::string, std::map<std::string, std::string>>& hosts) {
  std::lock_guard lock(mutex_);
  environment_ = environment;
  std::set<std::string> named;
  for (const auto& [host, facts] : hosts) {
    hostFacts_[host] = facts;
    named.insert(host);
  }
  storeEnvironment(named, true);
}

}  // namespace ringmaster::console
