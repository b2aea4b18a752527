// SPDX-License-Identifier: GPL-3.0-or-later
// Feeds a watched job's records into the run store as they arrive, and diagnoses them on the way: batches are
// written in one transaction each, findings are refreshed in the store about once a second (so the GUI and
// `ringmaster show` see them during the run), and finish() records the outcome.
//
// A RunIngest owns its own connection to the store, so it can live on the launcher's thread while other
// threads read the same file. Its calls are serialised, so a display loop may call tick() while the launcher
// feeds it. Without a store (an empty path) it only diagnoses.
//
// A run read back from the record files its ranks wrote (an import) goes through the same ingest: replay()
// gives each record the time it was written as its arrival, so that the diagnosis sees the run as it would
// have live, and finishAt() judges it as of the last record.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/sentence.h"
#include "console/session/record_sink.h"
#include "diagnosis/run_diagnosis.h"
#include "history/run_store.h"

namespace ringmaster::console {

class RunIngest : public RecordSink {
 public:
  // Opens the store at `storePath` (throws StoreError) and creates the run; an empty path stores nothing.
  RunIngest(const std::string& storePath, const NewRun& run, diagnosis::DiagnosisConfig config = {});

  int64_t runId() const { return runId_; }  // 0 without a store

  // Stores the records of the agent the console reached as `host`: their rank states name that host.
  void onRecords(const std::string& jobId, const std::string& host,
                 const std::vector<v1::Record>& records) override;
  void add(const std::vector<v1::Record>& records, const std::string& host = "");
  void add(const v1::RecordBatch& batch, const std::string& host = "");

  // The findings so far (also as of now for stalls); once finished, the findings that were stored, so that
  // what a live view shows at the end and what the history keeps are one result.
  std::vector<v1::Finding> findings() const;
  // The same as of `nowNs` on the monotonic clock (a stall's wait is counted to then); once finished, what
  // was stored, whenever it is asked.
  std::vector<v1::Finding> findingsAsOf(int64_t nowNs) const;
  // Call about once a second while a job runs: a job that stops sending anything is still diagnosed (stalls).
  void tick();
  // Records written while the job ran, read back afterwards, in the order they were written: `arrivalNs[i]`
  // (> 0, never decreasing) is when records[i] was written, on the job clock shifted to be positive, which
  // the diagnosis takes for its arrival. Findings are judged and stored by finishAt(), not on the way.
  void replay(const std::vector<v1::Record>& records, const std::vector<int64_t>& arrivalNs);
  // Writes the findings and the run's final status ("finished", "failed", "stopped"); the findings stay as
  // they were then.
  void finish(const std::string& status);
  // The same for a replayed run: its findings as of `asOfNs` on the replay's clock, its end at `endedUnixNs`.
  void finishAt(const std::string& status, int64_t endedUnixNs, int64_t asOfNs);
  // The job restarted every rank (--max-restarts; `worldSize` of them now) after the failure `finding`
  // (KIND_RESTART) tells of. The finding is kept at once; the new attempt's first steps say which step it
  // resumed from: the finding's summary is then `resumedSummary(step)`, and the stored steps from there on
  // are forgotten, so that the new attempt's replace them.
  void restarted(const v1::Finding& finding, int worldSize,
                 std::function<Sentence(uint64_t step)> resumedSummary);
  // Records the run's environment and what each host told about itself (facts by host). What the ranks of a
  // user's program say they run on (RankRuntime: python, torch, cuda, backend) is added to both as it
  // arrives.
  void recordEnvironment(const std::map<std::string, std::string>& environment,
                         const std::map<std::string, std::map<std::string, std::string>>& hosts);
  uint64_t recordsStored() const { return recordsStored_; }
  // Records the store refused (each batch it could not take). finish() stores a finding that says how many,
  // and the run's end even on a full disk (RunStore::endRun).
  uint64_t recordsLost() const;
  // What the store refused while the run went on, for a person; empty when everything was stored.
  std::string storeProblem() const;

 private:
  using Facts = std::map<std::string, std::string>;
  // Stores `records` (of `host`, when known) and shows them to the diagnosis: live at the console's clock,
  // or, with `arrivalNs`, at the times they were written.
  void store(const std::vector<v1::Record>& records, const std::string& host,
             const std::vector<int64_t>* arrivalNs = nullptr);
  void keepRuntime(const v1::RankRuntime& runtime, const std::string& host,
                   std::set<std::string>& changedHosts, bool& environmentChanged);
  void storeEnvironment(const std::set<std::string>& hosts, bool environment);
  // Stores the findings when a second has passed since they last were, or a tenth of one with `news` (now or
  // since then).
  void storeFindingsIfDue(bool news);
  void storeFindings(const std::vector<v1::Finding>& findings);

  mutable std::mutex mutex_;
  std::optional<RunStore> store_;
  int64_t runId_ = 0;
  diagnosis::RunDiagnosis diagnosis_;
  std::optional<int64_t> lastFindingsNs_;  // none before the first store: due at once
  bool newsWaiting_ = false;               // news arrived since the findings were last stored
  size_t lastFindingsCount_ = 0;
  std::optional<std::vector<v1::Finding>> final_;  // set by finish()
  uint64_t recordsStored_ = 0;
  uint64_t recordsLost_ = 0;
  uint64_t lostFromStep_ = UINT64_MAX;  // the lowest step of a record lost
  std::string storeProblem_;
  std::string endProblem_;
  std::optional<v1::Finding> restart_;  // the latest restart, until its attempt's first steps arrive
  std::function<Sentence(uint64_t)> restartSummary_;
  bool replaying_ = false;  // findings wait for finishAt()
  // The environment and host facts as recorded, and the programs' runtime (each value its ranks said).
  Facts environment_;
  std::map<std::string, Facts> hostFacts_;
  std::map<std::string, std::set<std::string>> runtime_;
  std::map<std::string, std::map<std::string, std::set<std::string>>> hostRuntime_;
};

}  // namespace ringmaster::console
