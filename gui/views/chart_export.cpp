// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/views/chart_export.h"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGraphicsView>
#include <QImage>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QSvgGenerator>

namespace ringmaster::gui {
namespace {

// Translation context of the texts below (they belong to no QObject).
class ChartExport {
  Q_DECLARE_TR_FUNCTIONS(ringmaster::gui::ChartExport)
};

// What is drawn: a graphics view's viewport (its frame and scroll bars are not part of the chart), or the
// widget.
QSize pictureSize(const QWidget* chart) {
  if (const auto* view = qobject_cast<const QGraphicsView*>(chart)) return view->viewport()->size();
  return chart->size();
}

// Draws the chart with `painter` over [0, 0, pictureSize).
void drawChart(QWidget* chart, QPainter& painter) {
  const QRect area(QPoint(0, 0), pictureSize(chart));
  painter.fillRect(area, chart->palette().color(QPalette::Window));
  painter.setRenderHint(QPainter::Antialiasing, true);
  painter.setRenderHint(QPainter::TextAntialiasing, true);
  if (auto* view = qobject_cast<QGraphicsView*>(chart)) {
    // From the scene, not the view's pixels: on an SVG device the series, axes and bars become paths.
    view->render(&painter, QRectF(area), view->viewport()->rect(), Qt::IgnoreAspectRatio);
  } else {
    chart->render(&painter, QPoint(), QRegion(), QWidget::DrawWindowBackground | QWidget::DrawChildren);
  }
}

// "Throughput (whole job)" -> "throughput-whole-job": a file name that works on every file system.
QString fileStem(const QString& name) {
  QString stem = name.toLower();
  stem.replace(QRegularExpression(QStringLiteral("[^\\w]+"), QRegularExpression::UseUnicodePropertiesOption),
               QStringLiteral("-"));
  stem.remove(QRegularExpression(QStringLiteral("^-+|-+$")));
  return stem.isEmpty() ? QStringLiteral("chart") : stem;
}

// Asks where to save, then saves; a failure is shown to the user.
void saveWithDialog(QWidget* chart, const QString& name, ImageFormat format) {
  const bool png = format == ImageFormat::Png;
  const QString folder = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
  const QString suggested =
      QDir(folder.isEmpty() ? QDir::homePath() : folder).filePath(fileStem(name) + (png ? ".png" : ".svg"));
  QString path = QFileDialog::getSaveFileName(
      chart->window(), png ? ChartExport::tr("Save chart as PNG") : ChartExport::tr("Save chart as SVG"),
      suggested, png ? ChartExport::tr("PNG images (*.png)") : ChartExport::tr("SVG drawings (*.svg)"));
  if (path.isEmpty()) return;
  const QString suffix = png ? QStringLiteral(".png") : QStringLiteral(".svg");
  if (!path.endsWith(suffix, Qt::CaseInsensitive)) path += suffix;
  const QString error = saveChart(chart, path, format);
  if (!error.isEmpty()) QMessageBox::warning(chart->window(), ChartExport::tr("Chart not saved"), error);
}

QList<QAction*> exportActions(QWidget* chart, const QString& name, QObject* owner) {
  auto* png = new QAction(ChartExport::tr("Save as PNG…"), owner);
  auto* svg = new QAction(ChartExport::tr("Save as SVG…"), owner);
  png->setObjectName(QStringLiteral("savePng"));
  svg->setObjectName(QStringLiteral("saveSvg"));
  QObject::connect(png, &QAction::triggered, chart,
                   [chart, name] { saveWithDialog(chart, name, ImageFormat::Png); });
  QObject::connect(svg, &QAction::triggered, chart,
                   [chart, name] { saveWithDialog(chart, name, ImageFormat::Svg); });
  return {png, svg};
}

}  // namespace

QSize pngSize(const QWidget* chart) {
  const qreal ratio = chart->devicePixelRatioF();
  const QSize size = pictureSize(chart);
  return QSize(qRound(size.width() * ratio), qRound(size.height() * ratio));
}

QString saveChart(QWidget* chart, const QString& path, ImageFormat format) {
  const QSize size = pictureSize(chart);
  if (size.isEmpty()) return ChartExport::tr("The chart has no size yet; show it first.");
  const QString shownPath = QDir::toNativeSeparators(path);
  if (format == ImageFormat::Png) {
    QImage image(pngSize(chart), QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(chart->devicePixelRatioF());
    QPainter painter(&image);
    drawChart(chart, painter);
    painter.end();
    if (!image.save(path, "PNG"))
      return ChartExport::tr("Could not write %1: check the folder and its permissions.").arg(shownPath);
    return {};
  }
  QSvgGenerator svg;
  svg.setFileName(path);
  svg.setSize(size);
  svg.setViewBox(QRect(QPoint(0, 0), size));
  svg.setTitle(chart->accessibleName().isEmpty() ? QFileInfo(path).completeBaseName()
                                                 : chart->accessibleName());
  svg.setDescription(ChartExport::tr("Saved by Ringmaster"));
  QPainter painter;
  if (!painter.begin(&svg))
    return ChartExport::tr("Could not write %1: check the folder and its permissions.").arg(shownPath);
  drawChart(chart, painter);
  painter.end();
  if (QFileInfo(path).size() == 0)
    return ChartExport::tr("Could not write %1: is the disk full?").arg(shownPath);
  return {};
}

void addChartExport(QWidget* chart, const QString& name) {
  if (chart->accessibleName().isEmpty()) chart->setAccessibleName(name);  // also the SVG's title
  // A graphics view hands its viewport's context menu events to its own policy, so the view is the place.
  chart->addActions(exportActions(chart, name, chart));
  chart->setContextMenuPolicy(Qt::ActionsContextMenu);
}

QMenu* chartExportMenu(QWidget* chart, const QString& name, QWidget* parent) {
  if (chart->accessibleName().isEmpty()) chart->setAccessibleName(name);
  auto* menu = new QMenu(parent);
  menu->addActions(exportActions(chart, name, menu));
  return menu;
}

}  // namespace ringmaster::gui
