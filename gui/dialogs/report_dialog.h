// SPDX-License-Identifier: GPL-3.0-or-later
// Export a run's report as HTML, PDF, CSV or Chrome trace (console/reports/report.h), off the GUI thread,
// with progress and a link to the result.
#pragma once

#include <QDialog>
#include <cstdint>

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;

namespace ringmaster::console {
class StoreAccess;
enum class PaperSize;
}  // namespace ringmaster::console

namespace ringmaster::gui {

class ReportDialog : public QDialog {
  Q_OBJECT

 public:
  enum class Format { Html, Pdf, Csv, Trace };

  ReportDialog(console::StoreAccess* store, int64_t runId, QWidget* parent = nullptr);

  void setFormat(Format format);
  void setPath(const QString& path);
  // Runs to compare with in the report ("3, 5").
  void setCompareWith(const QString& runIds);
  // The paper the PDF is laid out for (and the HTML printed on); the locale's at first.
  void setPaper(console::PaperSize paper);
  console::PaperSize paper() const;
  // Starts writing; finished() tells the outcome (empty error on success).
  void exportNow();
  QString resultText() const;
  QString path() const;
  // The file dialog's filter for the chosen format.
  QString nameFilter() const;

 Q_SIGNALS:
  void finished(const QString& path, const QString& error);

 private:
  Format format() const;
  void suggestPath();

  console::StoreAccess* store_;
  int64_t runId_;
  QComboBox* format_;
  QLineEdit* path_;
  QLineEdit* compareWith_;
  QComboBox* paper_;
  QProgressBar* progress_;
  QLabel* result_;
  QPushButton* export_;
};

}  // namespace ringmaster::gui
