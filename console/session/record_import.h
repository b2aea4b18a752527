// SPDX-License-Identifier: GPL-3.0-or-later
// Imports the record files that the ranks of a user's program write when no agent runs
// (RINGMASTER_RECORD_DIR; the format is in common/rank_frames.h) as one run, through the live run's ingest
// and diagnosis (RunIngest).
//
// Each file's hello says which rank of which run it is; its records are checked as the agent checks a rank's
// (common/record_checks: what fails is dropped and counted), and the import plays the agent's part in what
// only an agent can say: the rank started on its host, and ended (its bye) or has no end (STATE_LOST: killed,
// crashed, or its host went down). The files' records are replayed merged in the order they were written,
// each arriving at the job-clock time it was written, so that a rank whose records stop while the others
// wait is found as it would be live, and the run is judged as of its last record.
//
// Every file is read and checked before anything is stored: wrong magic, a damaged frame, a file without its
// hello, two files of one rank and files of several runs store nothing and are an InputError naming the
// files and what to do. A torn last frame (a rank killed while writing) is no error: every whole frame is
// kept and the file is called cut short.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "history/run_store.h"

namespace ringmaster::console {

// How record files are named (rank<R>-<host>-<pid>.rmrecs); what a file is is told by its magic, not its
// name.
inline constexpr char kRecordFileExtension[] = ".rmrecs";

// Whether `path` is a regular file that begins with the record files' magic.
bool isRecordFile(const std::string& path);
// Whether `inputs` (files or folders, as `ringmaster import` takes them) name record files rather than
// traces: a file that begins as one or is named *.rmrecs, or a folder holding such a file.
bool namesRecordFiles(const std::vector<std::string>& inputs);

struct ImportedRecordFile {
  std::string path;
  int rank = -1;
  std::string host;  // as its hello says
  int pid = 0;
  uint64_t bytes = 0;    // to the end of its last whole frame
  uint64_t records = 0;  // kept
  uint64_t steps = 0;
  uint64_t allreduceOps = 0;
  uint64_t refused = 0;      // records the rank cannot have made, dropped
  std::string firstRefused;  // why the first of them was, for a person
  std::optional<uint64_t> lastStep;
  bool ended = false;     // the rank recorded its end (bye)
  bool cutShort = false;  // a torn frame after the whole ones
};

struct RecordImportResult {
  int64_t runId = 0;
  std::string jobId;  // the run's id, as every rank's hello says it
  int worldSize = 0;
  std::string status;                     // "finished", or "failed" when a rank has no end
  std::vector<ImportedRecordFile> files;  // by rank
  std::vector<int> missingRanks;          // ranks of the world that left no file
  uint64_t records = 0;
  uint64_t steps = 0;
  uint64_t allreduceOps = 0;
  uint64_t bytes = 0;
};

// Imports record files into `store` as ONE new run named `name` (default: the file's or folder's name).
// `inputs` are record files or folders of them (other files in a folder are left alone). Throws InputError
// for bad input (nothing is stored) and StoreError when the store cannot take the run (then no run is left
// half-written: a run the store took in part is deleted, or, if even that fails, marked interrupted by the
// next process that opens the store).
RecordImportResult importRecordFiles(RunStore& store, const std::vector<std::string>& inputs,
                                     const std::string& name = "");

}  // namespace ringmaster::console
