// SPDX-License-Identifier: GPL-3.0-or-later
// One metric of one rank over optimizer steps, kept small enough for 64 ranks x 100 000 steps: a float per
// step (4 bytes) in fixed-size chunks that never move, NaN where a step has no value. It serves a chart the
// first/min/max/last points per pixel column and redoes only the columns that changed since the last call.
#pragma once

#include <QList>
#include <QPointF>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "console/models/series_decimator.h"

namespace ringmaster::console {

class StepSeries {
 public:
  static constexpr uint64_t kChunkSize = 4096;

  StepSeries() = default;
  StepSeries(StepSeries&&) = default;
  StepSeries& operator=(StepSeries&&) = default;

  // Sets the value of `step` (replacing an earlier one). NaN clears it.
  void set(uint64_t step, float value);
  // Adds `delta` to the value of `step`; a step without a value counts as 0.
  void add(uint64_t step, float delta);
  // The value of `step`, NaN when it has none.
  float at(uint64_t step) const;

  // One past the highest step that has a value (0 when empty).
  uint64_t endStep() const { return end_; }
  // Steps that have a value.
  int64_t count() const { return count_; }
  bool empty() const { return count_ == 0; }

  struct Extent {
    float min = std::numeric_limits<float>::quiet_NaN();
    float max = std::numeric_limits<float>::quiet_NaN();
    bool empty() const { return !(min <= max); }
  };
  // Lowest and highest value over steps [from, to).
  Extent extent(uint64_t from, uint64_t to) const;
  // Mean over steps [from, to) of the steps that have a value; NaN when none has.
  double mean(uint64_t from, uint64_t to) const;
  // Highest value over steps [from, to); NaN when none.
  float maxOver(uint64_t from, uint64_t to) const { return extent(from, to).max; }

  // Points (x = step) for a chart showing `grid`: first/min/max/last per column plus the nearest point beyond
  // each edge. The result is cached; after set()/add() only the columns from the first changed step on are
  // reduced again.
  const QList<QPointF>& decimated(const PixelGrid& grid);

  // Memory this series holds (values, chunk summaries and the decimation cache).
  size_t bytesHeld() const;

 private:
  struct Chunk {
    std::unique_ptr<float[]> values;
    double sum = 0;
    int32_t count = 0;
    float min = std::numeric_limits<float>::infinity();
    float max = -std::numeric_limits<float>::infinity();
    bool extentStale = false;  // a value was replaced or cleared; min/max must be recomputed
  };

  float* slot(uint64_t step);
  void store(uint64_t step, float value);
  void refreshExtent(Chunk& chunk) const;
  // First/min/max/last of steps [from, to) appended to out.
  void reduceSteps(uint64_t from, uint64_t to, QList<QPointF>& out) const;
  void reduceColumnsFrom(int64_t column);
  uint64_t columnStart(int64_t column) const;

  mutable std::vector<Chunk> chunks_;
  uint64_t end_ = 0;
  int64_t count_ = 0;

  // Decimation cache: the grid, its points, where each column's points start, the lowest step changed since.
  PixelGrid grid_;
  bool cached_ = false;
  QList<QPointF> points_;
  std::vector<qsizetype> columnOut_;
  uint64_t dirtyFrom_ = std::numeric_limits<uint64_t>::max();
};

}  // namespace ringmaster::console
