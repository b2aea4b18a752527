// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/reports/report_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "common/printable.h"
#include "console/models/axis_scale.h"
#include "console/models/series_decimator.h"

namespace ringmaster::console {

namespace {

constexpr double kLeft = 64, kRight = 16, kTop = 30, kBottom = 44, kLegendRow = 16;
constexpr int kYIntervals = 5;

struct Frame {
  double x0, y0, w, h;  // plot area in pixels
  double xmin, xmax, ymin, ymax;
  double px(double x) const { return x0 + (x - xmin) / (xmax - xmin) * w; }
  double py(double y) const { return y0 + h - (y - ymin) / (ymax - ymin) * h; }
};

// The colour an entry was given, or a neutral one.
std::string colorOr(const std::string& color) {
  return color.empty() ? "#777777" : color;
}

// The value axis on round steps that enclose [lo, hi], so that its ends are labelled ticks.
void roundOut(double& lo, double& hi, int maxIntervals) {
  const double step = niceStep(hi - lo, maxIntervals);
  lo = std::floor(lo / step + 1e-9) * step;
  hi = std::ceil(hi / step - 1e-9) * step;
}

void drawAxes(const Chart& chart, ChartCanvas& canvas, const Frame& f, bool numericX) {
  const double yStep = niceStep(f.ymax - f.ymin, kYIntervals);
  for (double t : niceTicks(f.ymin, f.ymax, kYIntervals)) {
    canvas.polyline({{f.x0, f.py(t)}, {f.x0 + f.w, f.py(t)}}, "#e3e3e3", 1, false);
    canvas.text(f.x0 - 6, f.py(t) + 4, siNumber(t, yStep), 10, "#555555", ChartCanvas::Anchor::End);
  }
  if (numericX) {
    // About one tick per 80 pixels, so that labels never touch.
    const int intervals = std::max(2, int(f.w / 80));
    const double xStep = niceStep(f.xmax - f.xmin, intervals);
    for (double t : niceTicks(f.xmin, f.xmax, intervals)) {
      canvas.polyline({{f.px(t), f.y0 + f.h}, {f.px(t), f.y0 + f.h + 4}}, "#888888", 1, false);
      canvas.text(f.px(t), f.y0 + f.h + 16, siNumber(t, xStep), 10, "#555555", ChartCanvas::Anchor::Middle);
    }
  }
  canvas.polyline({{f.x0, f.y0}, {f.x0, f.y0 + f.h}, {f.x0 + f.w, f.y0 + f.h}}, "#888888", 1, false);
  canvas.text(f.x0 + f.w / 2, f.y0 + f.h + 34, chart.xLabel, 11, "#333333", ChartCanvas::Anchor::Middle);
  canvas.text(14, f.y0 + f.h / 2, chart.yLabel, 11, "#333333", ChartCanvas::Anchor::Middle, true);
}

// Legend entries in rows under the title; returns the height used.
double drawLegend(ChartCanvas& canvas, const std::vector<std::pair<std::string, std::string>>& entries,
                  double width) {
  double x = kLeft, y = kTop + 2;
  for (const auto& [name, color] : entries) {
    double w = 22 + 6.5 * double(name.size());
    if (x + w > width - kRight && x > kLeft) {
      x = kLeft;
      y += kLegendRow;
    }
    canvas.rect(x, y - 8, 12, 8, color);
    canvas.text(x + 16, y, name, 10, "#333333", ChartCanvas::Anchor::Start);
    x += w;
  }
  return entries.empty() ? 0 : y - kTop + 10;
}

}  // namespace

std::string escapeXml(const std::string& raw) {
  // Control characters (invalid in XML, and terminal commands in a log line) are shown as text first.
  const std::string text = printable(raw, true);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

void drawChart(const Chart& chart, ChartCanvas& canvas, double width, double height) {
  canvas.rect(0, 0, width, height, "#ffffff");
  canvas.text(kLeft, 18, chart.title, 13, "#111111", ChartCanvas::Anchor::Start);

  if (chart.kind == Chart::Kind::StackedBars) {
    std::vector<std::pair<std::string, std::string>> legend;
    for (size_t i = 0; i < chart.segmentNames.size(); ++i)
      legend.emplace_back(chart.segmentNames[i],
                          i < chart.segmentColors.size() ? colorOr(chart.segmentColors[i]) : colorOr(""));
    double legendHeight = drawLegend(canvas, legend, width);
    double top = kTop + legendHeight + 6;
    double ymax = 0;
    for (const auto& bar : chart.bars) {
      double sum = 0;
      for (double v : bar.values) sum += std::max(0.0, v);
      ymax = std::max(ymax, sum);
    }
    double ymin = 0;
    ymax = ymax > 0 ? ymax : 1;
    roundOut(ymin, ymax, kYIntervals);
    Frame f{kLeft, top, width - kLeft - kRight, height - top - kBottom, 0, 1, ymin, ymax};
    drawAxes(chart, canvas, f, false);
    double slot = f.w / double(std::max<size_t>(chart.bars.size(), 1));
    double barWidth = std::max(1.0, slot * 0.7);
    size_t labelEvery = std::max<size_t>(1, size_t(std::ceil(28.0 / slot)));
    for (size_t b = 0; b < chart.bars.size(); ++b) {
      double x = f.x0 + slot * double(b) + (slot - barWidth) / 2;
      double base = 0;
      for (size_t s = 0; s < chart.bars[b].values.size(); ++s) {
        double v = std::max(0.0, chart.bars[b].values[s]);
        canvas.rect(x, f.py(base + v), barWidth, f.py(base) - f.py(base + v),
                    s < chart.segmentColors.size() ? colorOr(chart.segmentColors[s]) : colorOr(""));
        base += v;
      }
      if (b % labelEvery == 0) {
        canvas.text(x + barWidth / 2, f.y0 + f.h + 16, chart.bars[b].label, 10, "#555555",
                    ChartCanvas::Anchor::Middle);
      }
    }
    return;
  }

  std::vector<std::pair<std::string, std::string>> legend;
  double xmin = std::numeric_limits<double>::max(), xmax = std::numeric_limits<double>::lowest();
  double ymin = std::numeric_limits<double>::max(), ymax = std::numeric_limits<double>::lowest();
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const auto& s = chart.series[i];
    if (!s.name.empty()) legend.emplace_back(s.name, colorOr(s.color));
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(y)) continue;
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
      ymin = std::min(ymin, y);
      ymax = std::max(ymax, y);
    }
  }
  if (xmin > xmax) {
    xmin = 0, xmax = 1, ymin = 0, ymax = 1;
    canvas.text(width / 2, height / 2, "no data", 12, "#888888", ChartCanvas::Anchor::Middle);
  }
  if (chart.xSpan) {
    xmin = std::min(xmin, chart.xSpan->first);
    xmax = std::max(xmax, chart.xSpan->second);
  }
  if (chart.ySpan) {
    ymin = std::min(ymin, chart.ySpan->first);
    ymax = std::max(ymax, chart.ySpan->second);
  }
  if (xmax == xmin) xmax = xmin + 1;
  // Start the value axis at zero unless the data sit far above it (memory), then end it on round ticks.
  if (ymin > 0 && ymin < 0.5 * ymax) ymin = 0;
  if (ymax == ymin) {
    const double pad = std::max(1e-9, std::fabs(ymax) * 0.05);
    ymax += pad;
    if (ymin != 0) ymin -= pad;
  }
  roundOut(ymin, ymax, kYIntervals);
  if (legend.size() > 12) legend.resize(12);
  double legendHeight = drawLegend(canvas, legend, width);
  double top = kTop + legendHeight + 6;
  Frame f{kLeft, top, width - kLeft - kRight, height - top - kBottom, xmin, xmax, ymin, ymax};
  drawAxes(chart, canvas, f, true);

  PixelGrid grid{xmin, xmax + (xmax - xmin) * 1e-9, int(f.w)};
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const auto& s = chart.series[i];
    QList<QPointF> points;
    points.reserve(qsizetype(s.points.size()));
    for (const auto& [x, y] : s.points) points.append(QPointF(x, y));
    QList<QPointF> reduced = s.points.size() > size_t(4 * f.w) ? decimate(points, grid) : points;
    std::vector<std::pair<double, double>> pixels;
    pixels.reserve(size_t(reduced.size()));
    for (const QPointF& p : reduced) {
      if (std::isfinite(p.y())) pixels.emplace_back(f.px(p.x()), f.py(p.y()));
    }
    if (s.dots) {
      for (const auto& [x, y] : pixels) canvas.rect(x - 2.5, y - 2.5, 5, 5, colorOr(s.color));
    }
    if (pixels.size() == 1) pixels.push_back({pixels[0].first + 1, pixels[0].second});
    canvas.polyline(pixels, colorOr(s.color), s.dashed ? 1.5 : 1.2, s.dashed);
  }
}

namespace {

class SvgCanvas : public ChartCanvas {
 public:
  explicit SvgCanvas(std::ostringstream& out) : out_(out) {}
  void polyline(const std::vector<std::pair<double, double>>& points, const std::string& color, double width,
                bool dashed) override {
    if (points.empty()) return;
    out_ << "<polyline fill=\"none\" stroke=\"" << color << "\" stroke-width=\"" << width << "\""
         << (dashed ? " stroke-dasharray=\"6 4\"" : "") << " points=\"";
    char buffer[48];
    for (const auto& [x, y] : points) {
      std::snprintf(buffer, sizeof buffer, "%.1f,%.1f ", x, y);
      out_ << buffer;
    }
    out_ << "\"/>\n";
  }
  void rect(double x, double y, double w, double h, const std::string& fill) override {
    char buffer[160];
    std::snprintf(buffer, sizeof buffer,
                  "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n", x, y, w, h,
                  fill.c_str());
    out_ << buffer;
  }
  void text(double x, double y, const std::string& text, double size, const std::string& color, Anchor anchor,
            bool vertical) override {
    const char* a = anchor == Anchor::Start ? "start" : anchor == Anchor::Middle ? "middle" : "end";
    char buffer[200];
    std::snprintf(buffer, sizeof buffer,
                  "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%g\" fill=\"%s\" text-anchor=\"%s\"", x, y, size,
                  color.c_str(), a);
    out_ << buffer;
    if (vertical) {
      std::snprintf(buffer, sizeof buffer, " transform=\"rotate(-90 %.1f %.1f)\"", x, y);
      out_ << buffer;
    }
    out_ << ">" << escapeXml(text) << "</text>\n";
  }

 private:
  std::ostringstream& out_;
};

}  // namespace

std::string chartSvg(const Chart& chart, int width, int height) {
  std::ostringstream out;
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" << width << "\" height=\""
      << height << "\" viewBox=\"0 0 " << width << " " << height
      << "\" font-family=\"sans-serif\" role=\"img\">\n"
      << "<title>" << escapeXml(chart.title) << "</title>\n";
  SvgCanvas canvas(out);
  drawChart(chart, canvas, width, height);
  out << "</svg>\n";
  return out.str();
}

}  // namespace ringmaster::console
