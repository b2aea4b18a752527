// SPDX-License-Identifier: GPL-3.0-or-later
// The PDF report: the HTML report's content laid out by QTextDocument (tables, headings, pagination) with the
// charts painted by QPainter into images, printed onto A4 pages by QPdfWriter. Fonts need the program's
// QGuiApplication; nothing here creates one or changes the process's environment.
#include <QDir>
#include <QFileInfo>
#include <QGuiApplication>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPainterPath>
#include <QPdfWriter>
#include <QTextDocument>
#include <QUrl>
#include <stdexcept>

#include "common/error.h"
#include "console/report.h"

namespace ringmaster::console {

namespace {

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

}  // namespace

void writePdfReport(const Report& report, const std::string& path) {
  if (!qobject_cast<QGuiApplication*>(QCoreApplication::instance())) {
    throw std::logic_error("cannot write the PDF report " + path +
                           ": laying out its text needs a QGuiApplication, and this program has none");
  }
  QFileInfo target(QString::fromStdString(path));
  if (!target.absoluteDir().exists())
    throw InputError("cannot write " + path + ": its folder does not exist");

  QTextDocument document;
  constexpr int kChartWidth = 1000, kChartHeight = 320, kScale = 2;
  for (size_t i = 0; i < report.charts.size(); ++i) {
    QImage image(kChartWidth * kScale, kChartHeight * kScale, QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.scale(kScale, kScale);
    PainterCanvas canvas(painter);
    drawChart(report.charts[i], canvas, kChartWidth, kChartHeight);
    painter.end();
    document.addResource(QTextDocument::ImageResource, QUrl(QString("chart%1").arg(i)), QVariant(image));
  }
  document.setDefaultStyleSheet(
      "body { font-family: sans-serif; font-size: 9pt; } h1 { font-size: 16pt; } "
      "h2 { font-size: 13pt; } th { background-color: #eeeeee; }");
  document.setHtml(QString::fromStdString(renderReportBody(
      report, [](size_t i) { return "<img src=\"chart" + std::to_string(i) + "\" width=\"640\">"; })));

  QPdfWriter writer(QString::fromStdString(path));
  writer.setPageSize(QPageSize(QPageSize::A4));
  writer.setResolution(96);
  writer.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter);
  writer.setTitle(QString("Ringmaster run %1").arg(report.metrics.info.id));
  writer.setCreator("Ringmaster");
  document.print(&writer);
  if (!QFileInfo(target.absoluteFilePath()).exists() || QFileInfo(target.absoluteFilePath()).size() == 0) {
    throw InputError("writing " + path + " failed");
  }
}

}  // namespace ringmaster::console
