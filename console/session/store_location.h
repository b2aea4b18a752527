// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace ringmaster::console {

// Whether the run history's folders are made when missing: for a command that stores runs, Make (readable
// by this user only, 0700); for one that only reads the history, Leave (nothing is made).
enum class StoreFolder { Make, Leave };

// The user's run history file: $XDG_DATA_HOME/ringmaster/runs.sqlite.
QString defaultStorePath(StoreFolder folder);

}  // namespace ringmaster::console
