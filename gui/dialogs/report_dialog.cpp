// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/dialogs/report_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QUrl>
#include <QVBoxLayout>

#include "console/reports/report.h"
#include "console/session/store_access.h"

namespace ringmaster::gui {
namespace {

const char* const kSuffixes[] = {".html", ".pdf", ".csv", ".json"};
// The setting that remembers where the last report went.
const QString kFolderSetting = QStringLiteral("report/folder");

}  // namespace

ReportDialog::ReportDialog(console::StoreAccess* store, int64_t runId, QWidget* parent)
    : QDialog(parent), store_(store), runId_(runId) {
  setWindowTitle(tr("Export report of run %1").arg(runId));
  format_ = new QComboBox(this);
  format_->addItem(tr("HTML (one self-contained file)"));
  format_->addItem(tr("PDF"));
  format_->addItem(tr("CSV (every stored metric)"));
  format_->addItem(tr("Chrome trace (Perfetto)"));
  path_ = new QLineEdit(this);
  auto* browse = new QPushButton(tr("Browse…"), this);
  browse->setObjectName(QStringLiteral("browse"));
  compareWith_ = new QLineEdit(this);
  compareWith_->setPlaceholderText(tr("run ids to compare with, e.g. 3, 5 (HTML and PDF)"));
  paper_ = new QComboBox(this);
  paper_->addItem(tr("A4"), static_cast<int>(console::PaperSize::A4));
  paper_->addItem(tr("Letter"), static_cast<int>(console::PaperSize::Letter));
  paper_->setToolTip(tr("The PDF's pages, and the HTML's when it is printed"));
  setPaper(console::defaultPaperSize());
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1);
  progress_->setValue(0);
  progress_->setTextVisible(false);
  result_ = new QLabel(this);
  result_->setWordWrap(true);
  result_->setOpenExternalLinks(true);
  result_->setTextInteractionFlags(Qt::TextBrowserInteraction);
  export_ = new QPushButton(tr("Export"), this);
  export_->setDefault(true);
  auto* close = new QPushButton(tr("Close"), this);

  auto* pathRow = new QHBoxLayout;
  pathRow->addWidget(path_, 1);
  pathRow->addWidget(browse);
  auto* form = new QFormLayout;
  form->addRow(tr("Format"), format_);
  form->addRow(tr("File"), pathRow);
  form->addRow(tr("Compare with"), compareWith_);
  form->addRow(tr("Paper"), paper_);
  auto* buttons = new QHBoxLayout;
  buttons->addStretch();
  buttons->addWidget(export_);
  buttons->addWidget(close);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(progress_);
  layout->addWidget(result_);
  layout->addLayout(buttons);
  resize(560, 250);

  connect(format_, &QComboBox::currentIndexChanged, this, &ReportDialog::suggestPath);
  // Paper and comparisons mean something to the documents only.
  connect(format_, &QComboBox::currentIndexChanged, this, [this] {
    const bool document = format() == Format::Html || format() == Format::Pdf;
    paper_->setEnabled(document);
    compareWith_->setEnabled(document);
  });
  connect(browse, &QPushButton::clicked, this, [this] {
    QString path = QFileDialog::getSaveFileName(this, tr("Export report"), path_->text(), nameFilter());
    if (path.isEmpty()) return;
    const QString suffix = QLatin1String(kSuffixes[format_->currentIndex()]);
    if (QFileInfo(path).suffix().isEmpty()) path += suffix;
    path_->setText(path);
  });
  connect(export_, &QPushButton::clicked, this, &ReportDialog::exportNow);
  connect(close, &QPushButton::clicked, this, &QDialog::accept);
  suggestPath();
}

ReportDialog::Format ReportDialog::format() const {
  return static_cast<Format>(format_->currentIndex());
}

void ReportDialog::setFormat(Format format) {
  format_->setCurrentIndex(static_cast<int>(format));
}
void ReportDialog::setPath(const QString& path) {
  path_->setText(path);
}
void ReportDialog::setCompareWith(const QString& runIds) {
  compareWith_->setText(runIds);
}
void ReportDialog::setPaper(console::PaperSize paper) {
  paper_->setCurrentIndex(paper_->findData(static_cast<int>(paper)));
}
console::PaperSize ReportDialog::paper() const {
  return static_cast<console::PaperSize>(paper_->currentData().toInt());
}
QString ReportDialog::resultText() const {
  return result_->text();
}
QString ReportDialog::path() const {
  return path_->text();
}

QString ReportDialog::nameFilter() const {
  switch (format()) {
    case Format::Html:
      return tr("HTML reports (*.html)");
    case Format::Pdf:
      return tr("PDF documents (*.pdf)");
    case Format::Csv:
      return tr("CSV tables (*.csv)");
    case Format::Trace:
      return tr("Chrome traces (*.json)");
  }
  return {};
}

void ReportDialog::suggestPath() {
  // Where the last report went, else the user's documents.
  QString dir = path_->text().isEmpty() ? QSettings().value(kFolderSetting).toString()
                                        : QFileInfo(path_->text()).absolutePath();
  if (dir.isEmpty() || !QFileInfo(dir).isDir())
    dir = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  if (dir.isEmpty() || !QFileInfo(dir).isDir()) dir = QDir::homePath();
  path_->setText(QDir(dir).filePath(QStringLiteral("ringmaster-run-%1%2")
                                        .arg(runId_)
                                        .arg(QLatin1String(kSuffixes[format_->currentIndex()]))));
}

void ReportDialog::exportNow() {
  const QString path = path_->text().trimmed();
  if (path.isEmpty()) {
    result_->setText(tr("Choose a file to write."));
    return;
  }
  std::vector<int64_t> compare;
  for (const QString& part :
       compareWith_->text().split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts)) {
    bool ok = false;
    const qlonglong id = part.toLongLong(&ok);
    if (!ok || id <= 0) {
      result_->setText(tr("Compare with: “%1” is not a run id.").arg(part));
      return;
    }
    compare.push_back(id);
  }
  export_->setEnabled(false);
  progress_->setRange(0, 0);  // busy until the writer is done
  result_->setText(tr("Writing %1…").arg(QDir::toNativeSeparators(path)));
  const Format fmt = format();
  const console::PaperSize paper = this->paper();
  const int64_t runId = runId_;
  const std::string file = path.toStdString();
  // Errors arrive through the store's failed() signal; the dialog listens for the duration of one export.
  auto connection = std::make_shared<QMetaObject::Connection>();
  *connection =
      connect(store_, &console::StoreAccess::failed, this, [this, path, connection](const QString& error) {
        disconnect(*connection);
        progress_->setRange(0, 1);
        export_->setEnabled(true);
        result_->setText(tr("Could not export: %1").arg(error.toHtmlEscaped()));
        Q_EMIT finished(path, error);
      });
  store_->post<QString>(
      this,
      [fmt, paper, runId, file, compare](RunStore& store) {
        switch (fmt) {
          case Format::Html:
            console::writeHtmlReport(console::buildReport(store, runId, compare), file, paper);
            break;
          case Format::Pdf:
            console::writePdfReport(console::buildReport(store, runId, compare), file, paper);
            break;
          case Format::Csv:
            return tr("%n row(s)", nullptr, static_cast<int>(console::writeCsv(store, runId, file)));
          case Format::Trace:
            return tr("%n event(s)", nullptr, static_cast<int>(console::writeTrace(store, runId, file)));
        }
        return QString();
      },
      [this, path, connection](QString detail) {
        disconnect(*connection);
        progress_->setRange(0, 1);
        progress_->setValue(1);
        export_->setEnabled(true);
        const QString link =
            QStringLiteral("<a href=\"%1\">%2</a>")
                .arg(QUrl::fromLocalFile(path).toString(), QDir::toNativeSeparators(path).toHtmlEscaped());
        result_->setText(detail.isEmpty() ? tr("Saved %1").arg(link) : tr("Saved %1 (%2)").arg(link, detail));
        QSettings().setValue(kFolderSetting, QFileInfo(path).absolutePath());
        Q_EMIT finished(path, {});
      });
}

}  // namespace ringmaster::gui
