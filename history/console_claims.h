// SPDX-License-Identifier: GPL-3.0-or-later
// The files live consoles keep beside a run store, in <store>.consoles/, private to rm_history: the lock file
// each process recording or importing a run holds while it lives (so a later opener tells a run whose console
// died from one still being written), and the room kept on the store's disk for each live run's end.
#pragma once

#include <cstdint>
#include <string>

namespace ringmaster {

// The name of the lock file this process holds for the store at `storePath` while it lives, taken on first
// use; "" when it could take none (the next console to open the store then takes the run for an orphan).
std::string claimForThisProcess(const std::string& storePath);

// True when a console holds `name`'s lock (it is alive); false when nobody does (it died or never claimed),
// and then the lock file is removed.
bool consoleAlive(const std::string& storePath, const std::string& name);
// consoleAlive for a reader, who changes nothing: a shared lock it can take proves the console gone; the lock
// file is left where it is.
bool consoleSeemsAlive(const std::string& storePath, const std::string& name);

// Room kept on the store's disk for each live run's end (see RunStore::endRun): a disk that fills during the
// run must not leave it "running", with nothing said of what it lost.
void keepEndRoom(const std::string& storePath, int64_t runId);
// True when there was room to give back.
bool releaseEndRoom(const std::string& storePath, int64_t runId);

}  // namespace ringmaster
