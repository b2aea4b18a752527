// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/store_location.h"

#include <QDir>
#include <QStandardPaths>

namespace ringmaster::console {

QString defaultStorePath() {
  // GenericDataLocation is $XDG_DATA_HOME (~/.local/share); our folder inside it is "ringmaster".
  QString base = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
  QString dir = QDir(base).filePath(QStringLiteral("ringmaster"));
  QDir().mkpath(dir);
  return QDir(dir).filePath(QStringLiteral("runs.sqlite"));
}

}  // namespace ringmaster::console
