// SPDX-License-Identifier: GPL-3.0-or-later
// What diagnosis found in a run: severity, kind, rank, host, since which step, and a one-line explanation;
// what to do about it and the figures behind it, in words and in the interface's language.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "diagnosis/advice.h"
#include "ringmaster/v1/records.pb.h"

namespace ringmaster::console {

namespace v1 = ::ringmaster::v1;

class FindingsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Severity, Kind, Rank, Host, Since, Summary, ColumnCount };
  static constexpr int SeverityRole = Qt::UserRole;  // v1::Finding::Severity as int
  static constexpr int RankRole = Qt::UserRole + 1;
  static constexpr int AdviceRole = Qt::UserRole + 2;  // adviceText()

  explicit FindingsModel(QObject* parent = nullptr);

  // Most severe first, then by rank; their advice made for `reader` (the run they are of).
  void setFindings(std::vector<v1::Finding> findings, const diagnosis::AdviceReader& reader = {});
  const diagnosis::AdviceReader& adviceReader() const { return reader_; }
  const v1::Finding* finding(int row) const;

  static QString kindText(v1::Finding::Kind kind);
  static QString severityText(v1::Finding::Severity severity);
  // The finding's summary, translated: the sentence it was stored with (Finding.sentence) rendered in the
  // interface's language. A finding stored without one (by an older Ringmaster) shows its English.
  static QString summaryText(const v1::Finding& finding);
  // The finding's cause word ("compute", "data", "silent", …), translated; one it does not know as it is.
  static QString causeText(const v1::Finding& finding);
  // The finding's advice, translated: the pattern diagnosis chose for it (diagnosis/advice.cpp, where
  // lupdate reads it) looked up in the catalogue and filled with the same figures. Advice that came with the
  // finding from elsewhere is shown as it came.
  static QString adviceText(const v1::Finding& finding, const diagnosis::AdviceReader& reader = {});
  // Its evidence in words, "label value" each, labels translated (diagnosis/evidence_text.cpp).
  static QStringList evidenceTexts(const v1::Finding& finding);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<v1::Finding> findings_;
  std::vector<QString> summaries_;  // summaryText of each, made once: the views ask for it on every paint
  diagnosis::AdviceReader reader_;
};

}  // namespace ringmaster::console
