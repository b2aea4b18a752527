// SPDX-License-Identifier: GPL-3.0-or-later
// The PDF report: the HTML report's content laid out by QTextDocument (tables, headings, pagination) with the
// charts painted by QPainter into images, printed page by page onto A4 or Letter by QPdfWriter. Fonts need
// the program's QGuiApplication; nothing here creates one or changes the process's environment.
#include "console/reports/report_pdf.h"

#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPainterPath>
#include <QPdfWriter>
#include <QScreen>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextLayout>
#include <QTextOption>
#include <QTextTable>
#include <QUrl>
#include <cmath>
#include <stdexcept>

#include "common/error.h"

namespace ringmaster::console {

// The pages' footers, in the language of the program's installed translation.
class ReportPages {
  Q_DECLARE_TR_FUNCTIONS(ringmaster::console::ReportPages)
};

namespace {

constexpr double kMarginMm = 15;
constexpr double kMarginPx = kMarginMm / 25.4 * 96;
constexpr double kFooterHeight = 24;  // document pixels under the text area: the run and the page number
// Qt lays out a table as wide as the page one border too wide on each side: the text area keeps that room.
constexpr double kTableBorderRoom = 2;
constexpr double kChartAspect = 0.38;
constexpr int kChartScale = 2;  // image pixels per document pixel, so that charts stay sharp when printed

class PainterCanvas : public ChartCanvas {
 public:
  explicit PainterCanvas(QPainter& painter) : painter_(painter) {}

  void polyline(const std::vector<std::pair<double, double>>& points, const std::string& color, double width,
                bool dashed) override {
    if (points.size() < 2) return;
    QPen pen(QColor(QString::fromStdString(color)), width);
    if (dashed) pen.setStyle(Qt::DashLine);
    painter_.setPen(pen);
    QPainterPath path(QPointF(points[0].first, points[0].second));
    for (size_t i = 1; i < points.size(); ++i) path.lineTo(points[i].first, points[i].second);
    painter_.drawPath(path);
  }
  void rect(double x, double y, double w, double h, const std::string& fill) override {
    painter_.fillRect(QRectF(x, y, w, h), QColor(QString::fromStdString(fill)));
  }
  void text(double x, double y, const std::string& text, double size, const std::string& color, Anchor anchor,
            bool vertical) override {
    QFont font = painter_.font();
    font.setPixelSize(int(size));
    painter_.setFont(font);
    painter_.setPen(QColor(QString::fromStdString(color)));
    QString s = QString::fromStdString(text);
    double w = painter_.fontMetrics().horizontalAdvance(s);
    double dx = anchor == Anchor::Start ? 0 : anchor == Anchor::Middle ? -w / 2 : -w;
    painter_.save();
    painter_.translate(x, y);
    if (vertical) painter_.rotate(-90);
    painter_.drawText(QPointF(dx, 0), s);
    painter_.restore();
  }

 private:
  QPainter& painter_;
};

// The resolution QTextDocument takes lengths in pixels at (qt_defaultDpi): laying out at the same one keeps
// an image's or a cell's pixels the document's pixels, whatever screen the window runs on.
int documentDpi() {
  const QScreen* screen = QGuiApplication::primaryScreen();
  return screen ? int(std::lround(screen->logicalDotsPerInchY())) : 96;
}

// Where the content that must share a heading's page begins: the first line after the heading (and after
// any headings right under it); for a table, its first row below the header.
QTextBlock followingContent(QTextBlock block) {
  for (block = block.next(); block.isValid(); block = block.next()) {
    if (block.blockFormat().headingLevel() > 0) continue;
    if (QTextTable* table = QTextCursor(block).currentTable()) {
      const int row = std::min(table->format().headerRowCount(), table->rows() - 1);
      return table->cellAt(row, 0).firstCursorPosition().block();
    }
    if (block.text().trimmed().isEmpty() && block.length() <= 1) continue;
    return block;
  }
  return {};
}

double firstLineBottom(const QTextDocument& document, const QTextBlock& block) {
  const QRectF rect = document.documentLayout()->blockBoundingRect(block);
  const QTextLayout* layout = block.layout();
  if (!layout || layout->lineCount() == 0) return rect.bottom();
  return rect.top() - layout->boundingRect().top() + layout->lineAt(0).rect().bottom();
}

void setWrapMode(QTextDocument& document, QTextOption::WrapMode mode) {
  QTextOption option = document.defaultTextOption();
  option.setWrapMode(mode);
  document.setDefaultTextOption(option);
}

// Whether any line or table of the laid-out document reaches past `width`.
bool widerThan(const QTextDocument& document, double width) {
  auto* layout = document.documentLayout();
  layout->documentSize();  // laid out to the end
  for (QTextFrame* frame : document.rootFrame()->childFrames()) {
    if (layout->frameBoundingRect(frame).width() > width + 0.5) return true;
  }
  for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
    const QTextLayout* lines = block.layout();
    const QRectF rect = layout->blockBoundingRect(block);
    const double x = rect.left() - lines->boundingRect().left();
    for (int i = 0; i < lines->lineCount(); ++i) {
      if (x + lines->lineAt(i).x() + lines->lineAt(i).naturalTextWidth() > width + 0.5) return true;
    }
  }
  return false;
}

// QTextDocument has no keep-with-next: a heading whose following content lands on the next page is moved
// there too, one heading at a time, each measured in the layout its predecessors left.
int keepHeadingsWithNext(QTextDocument& document, double pageHeight) {
  int moved = 0;
  auto page = [pageHeight](double y) { return int(std::floor(y / pageHeight)); };
  for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
    if (block.blockFormat().headingLevel() == 0) continue;
    if (block.blockFormat().pageBreakPolicy() & QTextFormat::PageBreak_AlwaysBefore) continue;
    // A change lays out only its neighbourhood at once and the rest lazily: measure the whole layout.
    document.documentLayout()->documentSize();
    const QTextBlock next = followingContent(block);
    if (!next.isValid()) continue;
    const double top = document.documentLayout()->blockBoundingRect(block).top();
    if (page(top) == page(firstLineBottom(document, next) - 0.5)) continue;
    QTextBlockFormat format;
    format.setPageBreakPolicy(QTextFormat::PageBreak_AlwaysBefore);
    QTextCursor(block).mergeBlockFormat(format);
    ++moved;
  }
  return moved;
}

}  // namespace

PdfReportLayout::PdfReportLayout(const Report& report, PaperSize paper) {
  if (!qobject_cast<QGuiApplication*>(QCoreApplication::instance())) {
    throw std::logic_error(
        "laying out a PDF report's text needs a QGuiApplication, and this program has none");
  }
  title_ = ReportPages::tr("Ringmaster run %1").arg(report.metrics.info.id).toStdString();
  buffer_ = std::make_unique<QBuffer>();
  writer_ = std::make_unique<QPdfWriter>(buffer_.get());
  writer_->setPageSize(QPageSize(paper == PaperSize::Letter ? QPageSize::Letter : QPageSize::A4));
  writer_->setResolution(documentDpi());
  writer_->setPageMargins(QMarginsF(kMarginMm, kMarginMm, kMarginMm, kMarginMm), QPageLayout::Millimeter);
  writer_->setTitle(QString::fromStdString(title_));
  writer_->setCreator(QStringLiteral("Ringmaster"));

  document_ = std::make_unique<QTextDocument>();
  document_->documentLayout()->setPaintDevice(writer_.get());
  document_->setDocumentMargin(0);
  // Lines break between words only. Under Qt's default (words, else anywhere) a table wider at its natural
  // width than the page is laid out again breaking anywhere, which gives every column the same width and
  // cuts headers and short words mid-word; between words only, each column gets at least its longest word.
  setWrapMode(*document_, QTextOption::WordWrap);
  const QSizeF area = pageArea();
  document_->setPageSize(area);

  // Charts exactly as wide as the text.
  const int chartWidth = int(std::floor(area.width()));
  const int chartHeight = int(std::lround(chartWidth * kChartAspect));
  for (size_t i = 0; i < report.charts.size(); ++i) {
    QImage image(chartWidth * kChartScale, chartHeight * kChartScale, QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.scale(kChartScale, kChartScale);
    PainterCanvas canvas(painter);
    drawChart(report.charts[i], canvas, chartWidth, chartHeight);
    painter.end();
    document_->addResource(QTextDocument::ImageResource, QUrl(QString("chart%1").arg(i)), QVariant(image));
  }
  document_->setDefaultStyleSheet(
      "body { font-family: sans-serif; font-size: 9pt; } h1 { font-size: 15pt; } "
      "h2 { font-size: 12pt; margin-top: 14px; } h3 { font-size: 10pt; } "
      "table { border-color: #bbbbbb; border-style: solid; font-size: 8pt; } "
      "table.ranks { font-size: 7pt; } th { background-color: #eeeeee; } "
      ".unit { font-weight: normal; color: #555555; } "
      ".meta { color: #555555; }");
  document_->setHtml(QString::fromStdString(renderReportBody(report, [&](size_t i) {
    return "<img src=\"chart" + std::to_string(i) + "\" width=\"" + std::to_string(chartWidth) +
           "\" height=\"" + std::to_string(chartHeight) + "\">";
  })));
  // Should a word be wider than the page or a table's words wider together (a long path or host name), the
  // text breaks anywhere rather than run past the margin.
  if (widerThan(*document_, area.width())) setWrapMode(*document_, QTextOption::WrapAtWordBoundaryOrAnywhere);
  headingsMoved_ = keepHeadingsWithNext(*document_, area.height());
  document_->documentLayout()->documentSize();  // laid out to the end, for whoever measures it
}

PdfReportLayout::~PdfReportLayout() = default;

QSizeF PdfReportLayout::pageArea() const {
  return QSizeF(writer_->width() - kTableBorderRoom, writer_->height() - kFooterHeight);
}

int PdfReportLayout::pageCount() const {
  return document_->pageCount();
}

const QTextDocument& PdfReportLayout::document() const {
  return *document_;
}

void PdfReportLayout::write(const std::string& path) {
  QFileInfo target(QString::fromStdString(path));
  if (!target.absoluteDir().exists())
    throw InputError("cannot write " + path + ": its folder does not exist");
  if (!buffer_->open(QIODevice::WriteOnly)) throw std::logic_error("a PDF report is written once");
  {
    QPainter painter(writer_.get());
    const QSizeF area = pageArea();
    const int pages = pageCount();
    QFont footerFont = document_->defaultFont();
    footerFont.setPointSizeF(7);
    for (int page = 0; page < pages; ++page) {
      if (page > 0) writer_->newPage();
      const QRectF view(0, page * area.height(), area.width(), area.height());
      painter.save();
      painter.translate(0, -view.top());
      // Clipped to the page's share of the document; sideways to the paper, so nothing is ever cut.
      painter.setClipRect(view.adjusted(-kMarginPx, 0, kMarginPx, 0));
      QAbstractTextDocumentLayout::PaintContext context;
      context.clip = view;
      context.palette.setColor(QPalette::Text, Qt::black);
      document_->documentLayout()->draw(&painter, context);
      painter.restore();
      painter.setFont(footerFont);
      painter.setPen(QColor(0x66, 0x66, 0x66));
      const QRectF footer(0, area.height(), area.width(), kFooterHeight);
      painter.drawText(footer, Qt::AlignLeft | Qt::AlignBottom, QString::fromStdString(title_));
      painter.drawText(footer, Qt::AlignRight | Qt::AlignBottom,
                       ReportPages::tr("page %1 of %2").arg(page + 1).arg(pages));
    }
  }
  buffer_->close();
  QFile file(target.absoluteFilePath());
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
    throw InputError("cannot write " + path + ": " + file.errorString().toStdString());
  if (file.write(buffer_->data()) != buffer_->data().size() || !file.flush())
    throw InputError("writing " + path + " failed: " + file.errorString().toStdString());
}

void writePdfReport(const Report& report, const std::string& path, PaperSize paper) {
  if (!qobject_cast<QGuiApplication*>(QCoreApplication::instance())) {
    throw std::logic_error("cannot write the PDF report " + path +
                           ": laying out its text needs a QGuiApplication, and this program has none");
  }
  PdfReportLayout(report, paper).write(path);
}

}  // namespace ringmaster::console
