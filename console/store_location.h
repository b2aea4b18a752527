// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace ringmaster::console {

// The user's run history file: $XDG_DATA_HOME/ringmaster/runs.sqlite (created folders included).
QString defaultStorePath();

}  // namespace ringmaster::console
