// SPDX-License-Identifier: GPL-3.0-or-later
#include "history/store_schema.h"

namespace ringmaster::store_schema {

namespace {

// Version 1: runs and everything a run records. Data tables are rowid tables indexed by run only: records of
// a run arrive together, so the index grows at its end and ingest stays fast; readers sort one run in memory.
constexpr std::string_view kVersion1 = R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  status TEXT NOT NULL,             -- running, finished, failed, stopped, imported
  source TEXT NOT NULL,             -- live, or import:<file>
  engine TEXT NOT NULL DEFAULT '',
  backend TEXT NOT NULL DEFAULT '',
  world_size INTEGER NOT NULL DEFAULT 0,
  started_unix_ns INTEGER NOT NULL DEFAULT 0,
  ended_unix_ns INTEGER NOT NULL DEFAULT 0,
  spec BLOB,                        -- serialized ringmaster.v1.JobSpec
  environment TEXT NOT NULL DEFAULT '{}'  -- JSON object: versions, hosts' facts
);
CREATE TABLE hosts (
  run_id INTEGER NOT NULL,
  host TEXT NOT NULL,
  info TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY (run_id, host)
) WITHOUT ROWID;
CREATE TABLE ranks (
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  host TEXT NOT NULL DEFAULT '',
  pid INTEGER NOT NULL DEFAULT 0,
  state INTEGER NOT NULL DEFAULT 0,  -- ringmaster.v1.RankState.State
  exit_code INTEGER NOT NULL DEFAULT 0,
  signal INTEGER NOT NULL DEFAULT 0,
  message TEXT NOT NULL DEFAULT '',
  final_loss REAL,
  test_accuracy REAL,
  param_checksum TEXT NOT NULL DEFAULT '',
  steps INTEGER NOT NULL DEFAULT 0,
  samples_per_s REAL NOT NULL DEFAULT 0,
  records_sent INTEGER NOT NULL DEFAULT 0,
  records_dropped INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, rank)
) WITHOUT ROWID;
CREATE TABLE steps (
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, step INTEGER NOT NULL, epoch INTEGER NOT NULL,
  start_ns INTEGER NOT NULL, data_ns INTEGER NOT NULL, forward_ns INTEGER NOT NULL, backward_ns INTEGER NOT NULL,
  comm_wait_ns INTEGER NOT NULL, optimizer_ns INTEGER NOT NULL, total_ns INTEGER NOT NULL,
  samples INTEGER NOT NULL, loss REAL NOT NULL, lr REAL NOT NULL
);
CREATE INDEX steps_by_run ON steps (run_id);
CREATE TABLE allreduce_ops (
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, step INTEGER NOT NULL, bucket INTEGER NOT NULL,
  bytes INTEGER NOT NULL, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, latency_us REAL NOT NULL,
  algbw_gbps REAL NOT NULL, busbw_gbps REAL NOT NULL, tensors INTEGER NOT NULL
);
CREATE INDEX allreduce_ops_by_run ON allreduce_ops (run_id);
CREATE TABLE memory_samples (
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, step INTEGER NOT NULL, time_ns INTEGER NOT NULL,
  rss_bytes INTEGER NOT NULL, heap_bytes INTEGER NOT NULL, device_used_bytes INTEGER NOT NULL,
  device_total_bytes INTEGER NOT NULL, host_total_bytes INTEGER NOT NULL
);
CREATE INDEX memory_samples_by_run ON memory_samples (run_id);
CREATE TABLE timeline_events (
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, lane TEXT NOT NULL, name TEXT NOT NULL,
  start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, step INTEGER NOT NULL,
  args TEXT                         -- JSON object of strings, NULL when empty
);
CREATE INDEX timeline_events_by_run ON timeline_events (run_id);
CREATE TABLE logs (
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, stream INTEGER NOT NULL, time_unix_ns INTEGER NOT NULL,
  text TEXT NOT NULL
);
CREATE INDEX logs_by_run ON logs (run_id);
CREATE TABLE stall_reports (
  run_id INTEGER NOT NULL, reporting_rank INTEGER NOT NULL,
  missing_ranks TEXT NOT NULL,      -- comma-separated rank numbers
  tensors TEXT NOT NULL,            -- JSON array of tensor names
  waited_s REAL NOT NULL
);
CREATE INDEX stall_reports_by_run ON stall_reports (run_id);
CREATE TABLE findings (
  run_id INTEGER NOT NULL, kind INTEGER NOT NULL, severity INTEGER NOT NULL, rank INTEGER NOT NULL,
  host TEXT NOT NULL, since_step INTEGER NOT NULL, cause TEXT NOT NULL, summary TEXT NOT NULL,
  evidence TEXT NOT NULL            -- JSON object of numbers
);
CREATE INDEX findings_by_run ON findings (run_id);
)sql";

// Version 2: notes and tags, so people can label runs in the history ("baseline", "nccl-2.18", ...).
constexpr std::string_view kVersion2 = R"sql(
ALTER TABLE runs ADD COLUMN notes TEXT NOT NULL DEFAULT '';
CREATE TABLE run_tags (
  run_id INTEGER NOT NULL,
  tag TEXT NOT NULL,
  PRIMARY KEY (run_id, tag)
) WITHOUT ROWID;
)sql";

// Version 3: a step's loss and learning rate may be NULL, which stands for a value that is not a finite
// number (SQLite stores NaN as NULL): a diverged run keeps its steps. SQLite cannot drop NOT NULL in place,
// so the table is copied. And runs know the console that records them.
constexpr std::string_view kVersion3 = R"sql(
CREATE TABLE steps_v3 (
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, step INTEGER NOT NULL, epoch INTEGER NOT NULL,
  start_ns INTEGER NOT NULL, data_ns INTEGER NOT NULL, forward_ns INTEGER NOT NULL, backward_ns INTEGER NOT NULL,
  comm_wait_ns INTEGER NOT NULL, optimizer_ns INTEGER NOT NULL, total_ns INTEGER NOT NULL,
  samples INTEGER NOT NULL,
  loss REAL,                        -- NULL: not a number (the loss diverged)
  lr REAL
);
INSERT INTO steps_v3 SELECT * FROM steps;
DROP TABLE steps;
ALTER TABLE steps_v3 RENAME TO steps;
CREATE INDEX steps_by_run ON steps (run_id);
-- The console recording a running run: the name of a lock file it holds while it lives (see RunStore), so that
-- a run whose console died is found and marked interrupted instead of running for ever.
ALTER TABLE runs ADD COLUMN console TEXT NOT NULL DEFAULT '';
)sql";

// Version 4: timeline events in compressed chunks, a lane's events together (see history/timeline_chunk.h):
// with a row per event an imported trace took more room in the store than in its file. Runs stored before
// keep their rows in timeline_events, which readers still read; nothing is written there any more.
constexpr std::string_view kVersion4 = R"sql(
CREATE TABLE timeline_chunks (
  id INTEGER PRIMARY KEY,           -- explicit, so that VACUUM keeps it: a live run rewrites its open chunks
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, lane TEXT NOT NULL,
  first_start_ns INTEGER NOT NULL,  -- the earliest start among its events
  last_end_ns INTEGER NOT NULL,     -- the latest end
  events INTEGER NOT NULL,
  data BLOB NOT NULL
);
CREATE INDEX timeline_chunks_by_run ON timeline_chunks (run_id, first_start_ns);
)sql";

// Version 5: a finding's summary as the sentence it says (a serialized ringmaster.v1.Sentence), so that each
// reader shows it in its own language. NULL for findings stored before, which keep their English summary.
constexpr std::string_view kVersion5 = R"sql(
ALTER TABLE findings ADD COLUMN sentence BLOB;
)sql";

// Version 6: the scalars a training program logs by name: Ringmaster's ranks their test accuracy after each
// epoch, a user's program whatever it passes to ringmaster.log (or the C++ probe's log). NULL for a value
// that is not a finite number.
constexpr std::string_view kVersion6 = R"sql(
CREATE TABLE scalars (
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, step INTEGER NOT NULL, name TEXT NOT NULL, value REAL
);
CREATE INDEX scalars_by_run ON scalars (run_id);
)sql";

// Version 7: a rank's steps in compressed chunks of up to 256 (see history/step_chunk.h): a row per step took
// about 80 bytes. A live run's ranks keep their last chunk open and store it again as it grows (RunStore's
// open chunks). Runs stored before keep their rows in steps, which readers still read.
constexpr std::string_view kVersion7 = R"sql(
CREATE TABLE step_chunks (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL,
  first_step INTEGER NOT NULL, last_step INTEGER NOT NULL,  -- the lowest and highest step it holds
  steps INTEGER NOT NULL,
  data BLOB NOT NULL
);
CREATE INDEX step_chunks_by_run ON step_chunks (run_id);
)sql";

}  // namespace

const std::vector<std::string_view>& migrations() {
  static const std::vector<std::string_view> all = {kVersion1, kVersion2, kVersion3, kVersion4,
                                                    kVersion5, kVersion6, kVersion7};
  return all;
}

}  // namespace ringmaster::store_schema
