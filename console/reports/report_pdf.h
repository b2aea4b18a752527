// SPDX-License-Identifier: GPL-3.0-or-later
// The PDF report, laid out on A4 or Letter pages before it is printed, so that the layout can be checked:
// the HTML report's body in a QTextDocument paginated to the page's text area (15 mm margins, a footer with
// the run and the page number), each chart painted into an image exactly as wide as that area, tables' header
// rows repeated on every page a table runs onto, and no heading left at the foot of a page without what
// follows it (QTextDocument has no keep-with-next: the layout is measured, and such a heading starts the
// next page).
#pragma once

#include <QSizeF>
#include <memory>
#include <string>

#include "console/reports/report.h"

class QBuffer;
class QPdfWriter;
class QTextDocument;

namespace ringmaster::console {

class PdfReportLayout {
 public:
  // Lays out `report` on `paper`. Needs the program's QGuiApplication (fonts); throws std::logic_error
  // without one.
  PdfReportLayout(const Report& report, PaperSize paper);
  ~PdfReportLayout();
  PdfReportLayout(const PdfReportLayout&) = delete;
  PdfReportLayout& operator=(const PdfReportLayout&) = delete;

  // One page's text area in the document's units (pixels at 96 dpi): the paper less its margins and footer.
  QSizeF pageArea() const;
  int pageCount() const;
  // The laid-out document: page i holds what lies between y = i * pageArea().height() and the next page.
  const QTextDocument& document() const;
  // Headings that start a page because the rest of theirs could not hold what follows them.
  int headingsMoved() const { return headingsMoved_; }

  // Prints the pages to `path` (once); throws InputError naming the path when it cannot be written.
  void write(const std::string& path);

 private:
  std::string title_;
  std::unique_ptr<QBuffer> buffer_;
  std::unique_ptr<QPdfWriter> writer_;
  std::unique_ptr<QTextDocument> document_;
  int headingsMoved_ = 0;
};

}  // namespace ringmaster::console
