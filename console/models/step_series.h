// SPDX-License-Identifier: GPL-3.0-or-later
// One metric of one rank over optimizer steps, in memory that does not grow with the run: the recent steps
// (the last kFullChunks chunks) at full resolution, a float per step in fixed-size chunks that never move,
// NaN where a step has no value; the steps before them as at most kMaxBlocks summaries (lowest, highest, sum
// and count of a block of steps), whose blocks double in length as the run grows. A value that arrives for a
// summarised step joins its block. It serves a chart the first/min/max/last points per pixel column (a
// summarised stretch: its blocks' means at its ends, their lowest and highest between) and redoes only the
// columns that changed since the last call. The run store keeps every step; this is what the window draws.
#pragma once

#include <QList>
#include <QPointF>
#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "console/models/series_decimator.h"

namespace ringmaster::console {

class StepSeries {
 public:
  static constexpr uint64_t kChunkSize = 4096;
  // Steps at full resolution: the chunks of the last 16 384 steps (64 KiB a series).
  static constexpr uint64_t kFullChunks = 4;
  // Summaries of the steps before them (12 KiB a series), each of a power of two steps, 64 at first.
  static constexpr size_t kMaxBlocks = 512;

  StepSeries() = default;
  StepSeries(StepSeries&&) = default;
  StepSeries& operator=(StepSeries&&) = default;

  // Sets the value of `step` (replacing an earlier one). NaN clears it.
  void set(uint64_t step, float value);
  // Adds `delta` to the value of `step`; a step without a value counts as 0.
  void add(uint64_t step, float delta);
  // The value of `step`, NaN when it has none; for a summarised step, its block's mean.
  float at(uint64_t step) const;
  // Steps before this one are summarised (0 while the run is shorter than the full-resolution window).
  uint64_t summarisedEnd() const { return firstChunk_ * kChunkSize; }

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
  // Lowest and highest value over steps [from, to) (over whole blocks where the steps are summarised).
  Extent extent(uint64_t from, uint64_t to) const;
  // Mean over steps [from, to) of the steps that have a value; NaN when none has. A block the range cuts
  // counts for the share of its steps inside it.
  double mean(uint64_t from, uint64_t to) const;
  // Highest value over steps [from, to); NaN when none.
  float maxOver(uint64_t from, uint64_t to) const { return extent(from, to).max; }

  // Points (x = step) for a chart showing `grid`: first/min/max/last per column plus the nearest point beyond
  // each edge. The result is cached; after set()/add() only the columns from the first changed step on are
  // reduced again. `changedColumn`, when given, receives the first column reduced again: -1 for all of them
  // (a new grid), grid.columns + 1 for none.
  const QList<QPointF>& decimated(const PixelGrid& grid, int64_t* changedColumn = nullptr);
  // Where the points of `column` begin in the last decimated() result (-1: the point left of the grid;
  // grid.columns: the one right of it).
  qsizetype columnPointsBegin(int64_t column) const {
    return columnOut_[static_cast<size_t>(std::clamp<int64_t>(column, -1, grid_.columns) + 1)];
  }

  // Memory this series holds (values, chunk summaries and the decimation cache).
  size_t bytesHeld() const;

  // The lowest step whose value was set or added to since the last call (UINT64_MAX when none), forgotten
  // as it is read: for the one reader that keeps figures derived from the values (RankSpread).
  uint64_t takeChangedFrom() { return std::exchange(changedFrom_, std::numeric_limits<uint64_t>::max()); }

 private:
  struct Chunk {
    std::unique_ptr<float[]> values;
    double sum = 0;
    int32_t count = 0;
    float min = std::numeric_limits<float>::infinity();
    float max = -std::numeric_limits<float>::infinity();
    bool extentStale = false;  // a value was replaced or cleared; min/max must be recomputed
  };

  struct Block {
    float min = std::numeric_limits<float>::infinity();
    float max = -std::numeric_limits<float>::infinity();
    double sum = 0;
    int64_t count = 0;
    void add(float value);
    void merge(const Block& other);
  };

  float* slot(uint64_t step);
  void store(uint64_t step, float value);
  // The full-resolution chunk holding `step`, null for a summarised step or one beyond the last chunk.
  Chunk* chunkOf(uint64_t step) const;
  // Summarises the oldest full-resolution chunk into the blocks and frees its values.
  void summariseOldest();
  // Blocks up to `endStep`, merged pairwise into blocks twice as long while they would be too many.
  void coverWithBlocks(uint64_t endStep);
  Block& blockOf(uint64_t step) { return blocks_[step / blockSteps_]; }
  void refreshExtent(Chunk& chunk) const;
  // First/min/max/last of steps [from, to) appended to out.
  void reduceSteps(uint64_t from, uint64_t to, QList<QPointF>& out) const;
  // The same for summarised steps [from, to): the first and last blocks' means at the ends, the lowest and
  // highest value of its blocks in the middle.
  void reduceSummarised(uint64_t from, uint64_t to, QList<QPointF>& out) const;
  void reduceColumnsFrom(int64_t column);
  uint64_t columnStart(int64_t column) const;

  mutable std::deque<Chunk> chunks_;  // chunks firstChunk_, firstChunk_ + 1, ...
  uint64_t firstChunk_ = 0;
  std::vector<Block> blocks_;  // steps [0, summarisedEnd()), blockSteps_ each
  uint64_t blockSteps_ = 64;
  uint64_t end_ = 0;
  int64_t count_ = 0;

  // Decimation cache: the grid, its points, where each column's points start, the lowest step changed since.
  PixelGrid grid_;
  bool cached_ = false;
  QList<QPointF> points_;
  std::vector<qsizetype> columnOut_;
  uint64_t dirtyFrom_ = std::numeric_limits<uint64_t>::max();
  uint64_t changedFrom_ = std::numeric_limits<uint64_t>::max();  // for takeChangedFrom()
};

}  // namespace ringmaster::console
