// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/models/runs_model.h"

#include <QDateTime>
#include <QStringList>

#include "console/models/findings_model.h"
#include "console/models/translated.h"
#include "diagnosis/duration_text.h"

namespace ringmaster::console {
QString RunsModel::statusText(const QString& status) {
  if (status == QLatin1String("running")) return tr("running");
  if (status == QLatin1String("finished")) return tr("finished");
  if (status == QLatin1String("failed")) return tr("failed");
  if (status == QLatin1String("stopped")) return tr("stopped");
  if (status == QLatin1String("detached")) return tr("detached");
  if (status == QLatin1String("interrupted")) return tr("interrupted");
  return status;
}

RunsModel::RunsModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunsModel::setRuns(std::vector<RunInfo> runs) {
  beginResetModel();
  runs_ = std::move(runs);
  endResetModel();
}

const RunInfo* RunsModel::run(int row) const {
  if (row < 0 || row >= static_cast<int>(runs_.size())) return nullptr;
  return &runs_[static_cast<size_t>(row)];
}

int RunsModel::rowOf(int64_t runId) const {
  for (size_t i = 0; i < runs_.size(); ++i) {
    if (runs_[i].id == runId) return static_cast<int>(i);
  }
  return -1;
}

int RunsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(runs_.size());
}

int RunsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunsModel::data(const QModelIndex& index, int role) const {
  const RunInfo* r = index.isValid() ? run(index.row()) : nullptr;
  if (!r) return {};
  if (role == RunIdRole) return QVariant::fromValue<qlonglong>(r->id);
  const int64_t duration = (r->endedUnixNs > 0 ? r->endedUnixNs : 0) - r->startedUnixNs;
  if (role == SortRole) {
    switch (index.column()) {
      case Id:
        return QVariant::fromValue<qlonglong>(r->id);
      case Ranks:
        return r->worldSize;
      case Started:
        return QVariant::fromValue<qlonglong>(r->startedUnixNs);
      case Duration:
        return QVariant::fromValue<qlonglong>(r->endedUnixNs > 0 ? duration : 0);
      default:
        return data(index, Qt::DisplayRole);
    }
  }
  if (role == Qt::ToolTipRole && index.column() == Name) return QString::fromStdString(r->notes);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Id:
      return QVariant::fromValue<qlonglong>(r->id);
    case Name:
      return QString::fromStdString(r->name);
    case Status:
      return statusText(QString::fromStdString(r->status));
    case Engine:
      // Ringmaster's engines by their names (ddp, horovod); what is not one of them in the reader's words.
      if (r->engine.empty()) return tr("imported");
      if (r->engine == "program") return tr("your program");
      return QString::fromStdString(r->engine);
    case Backend:
      return QString::fromStdString(r->backend);
    case Ranks:
      return r->worldSize;
    case Started:
      return QDateTime::fromMSecsSinceEpoch(r->startedUnixNs / 1'000'000)
          .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    case Duration:
      return r->endedUnixNs > 0 && duration > 0
                 ? translated(elapsedSentence(static_cast<double>(duration) / 1e9))
                 : QString();
    case Tags: {
      QStringList tags;
      for (const auto& t : r->tags) tags << QString::fromStdString(t);
      return tags.join(QStringLiteral(", "));
    }
    case Findings: {
      QStringList kinds;
      for (int kind : r->findingKinds) {
        if (v1::Finding::Kind_IsValid(kind))
          kinds << FindingsModel::kindText(static_cast<v1::Finding::Kind>(kind));
      }
      return kinds.join(QStringLiteral(", "));
    }
    default:
      return {};
  }
}

QVariant RunsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Id:
      return tr("Run");
    case Name:
      return tr("Name");
    case Status:
      return tr("Status");
    case Engine:
      return tr("Engine");
    case Backend:
      return tr("Backend");
    case Ranks:
      return tr("Ranks");
    case Started:
      return tr("Started");
    case Duration:
      return tr("Duration");
    case Tags:
      return tr("Tags");
    case Findings:
      return tr("Findings");
    default:
      return {};
  }
}

}  // namespace ringmaster::console
