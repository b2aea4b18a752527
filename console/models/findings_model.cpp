// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/models/findings_model.h"

#include <QCoreApplication>
#include <algorithm>

#include "console/models/translated.h"
#include "diagnosis/advice.h"
#include "diagnosis/evidence_text.h"
#include "diagnosis/summary_text.h"

namespace ringmaster::console {

FindingsModel::FindingsModel(QObject* parent) : QAbstractTableModel(parent) {}

void FindingsModel::setFindings(std::vector<v1::Finding> findings, const diagnosis::AdviceReader& reader) {
  std::stable_sort(findings.begin(), findings.end(), [](const v1::Finding& a, const v1::Finding& b) {
    if (a.severity() != b.severity()) return a.severity() > b.severity();
    return a.rank() < b.rank();
  });
  beginResetModel();
  findings_ = std::move(findings);
  reader_ = reader;
  summaries_.clear();
  for (const v1::Finding& f : findings_) summaries_.push_back(summaryText(f));
  endResetModel();
}

const v1::Finding* FindingsModel::finding(int row) const {
  if (row < 0 || row >= static_cast<int>(findings_.size())) return nullptr;
  return &findings_[static_cast<size_t>(row)];
}

QString FindingsModel::kindText(v1::Finding::Kind kind) {
  switch (kind) {
    case v1::Finding::KIND_STRAGGLER:
      return tr("Straggler");
    case v1::Finding::KIND_MEMORY_LEAK:
      return tr("Memory leak");
    case v1::Finding::KIND_STALL:
      return tr("Stall");
    case v1::Finding::KIND_COMMUNICATION:
      return tr("Communication");
    case v1::Finding::KIND_SCALING:
      return tr("Scaling");
    case v1::Finding::KIND_DIVERGENCE:
      return tr("Divergence");
    case v1::Finding::KIND_CRASH:
      return tr("Crash");
    case v1::Finding::KIND_RESTART:
      return tr("Restart");
    case v1::Finding::KIND_COLLECTIVES:
      return tr("Collectives out of step");
    case v1::Finding::KIND_REPLICA_DRIFT:
      return tr("Replica drift");
    case v1::Finding::KIND_MISSING_TELEMETRY:
      return tr("Missing telemetry");
    default:
      return tr("Other");
  }
}

QString FindingsModel::severityText(v1::Finding::Severity severity) {
  switch (severity) {
    case v1::Finding::SEVERITY_CRITICAL:
      return tr("Critical");
    case v1::Finding::SEVERITY_WARNING:
      return tr("Warning");
    default:
      return tr("Info");
  }
}

QString FindingsModel::summaryText(const v1::Finding& finding) {
  if (!finding.has_sentence()) return QString::fromStdString(finding.summary());
  return translated(finding.sentence());
}

QString FindingsModel::causeText(const v1::Finding& finding) {
  const auto& words = diagnosis::causeWords();
  const bool known =
      std::any_of(words.begin(), words.end(), [&](const char* w) { return finding.cause() == w; });
  return known ? QCoreApplication::translate(diagnosis::kFindingContext, finding.cause().c_str())
               : QString::fromStdString(finding.cause());
}

QString FindingsModel::adviceText(const v1::Finding& finding, const diagnosis::AdviceReader& reader) {
  const Sentence advice = diagnosis::adviceFor(finding, reader);
  if (isEmpty(advice) || !diagnosis::adviceIsOurs(finding)) return QString::fromStdString(finding.advice());
  return translated(advice);
}

QStringList FindingsModel::evidenceTexts(const v1::Finding& finding) {
  QStringList out;
  for (const EvidenceText& e : ringmaster::evidenceTexts(finding)) {
    const QString label = e.known ? QCoreApplication::translate(kEvidenceContext, e.label.c_str())
                                  : QString::fromStdString(e.label);
    out << label + QLatin1Char(' ') +
               (isEmpty(e.said) ? QString::fromStdString(e.value) : translated(e.said));
  }
  return out;
}

int FindingsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(findings_.size());
}

int FindingsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant FindingsModel::data(const QModelIndex& index, int role) const {
  const v1::Finding* f = index.isValid() ? finding(index.row()) : nullptr;
  if (!f) return {};
  if (role == SeverityRole) return static_cast<int>(f->severity());
  if (role == RankRole) return f->rank();
  if (role == AdviceRole) return adviceText(*f, reader_);
  if (role == Qt::ToolTipRole) {
    const QString advice = adviceText(*f, reader_);
    return summaries_[static_cast<size_t>(index.row())] +
           (advice.isEmpty() ? QString() : QStringLiteral("\n") + advice);
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Severity:
      return severityText(f->severity());
    case Kind:
      return kindText(f->kind());
    case Rank:
      return f->rank() < 0 ? tr("all") : QString::number(f->rank());
    case Host:
      return QString::fromStdString(f->host());
    case Since:
      return tr("step %1").arg(f->since_step());
    case Summary:
      return summaries_[static_cast<size_t>(index.row())];
    default:
      return {};
  }
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Severity:
      return tr("Severity");
    case Kind:
      return tr("Kind");
    case Rank:
      return tr("Rank");
    case Host:
      return tr("Host");
    case Since:
      return tr("Since");
    case Summary:
      return tr("What was found");
    default:
      return {};
  }
}

}  // namespace ringmaster::console
