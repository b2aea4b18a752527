// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/session/store_location.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QStringList>

namespace ringmaster::console {

QString defaultStorePath(StoreFolder folder) {
  // GenericDataLocation is $XDG_DATA_HOME (~/.local/share); our folder inside it is "ringmaster".
  const QString base = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
  const QString dir = QDir(base).filePath(QStringLiteral("ringmaster"));
  if (folder == StoreFolder::Make) {
    QStringList missing;
    for (QString d = dir; !QFileInfo::exists(d) && d != QFileInfo(d).path(); d = QFileInfo(d).path())
      missing.prepend(d);
    for (const QString& d : missing) QDir().mkdir(d, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
  }
  return QDir(dir).filePath(QStringLiteral("runs.sqlite"));
}

}  // namespace ringmaster::console
