// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/models/step_series.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace ringmaster::console {
namespace {

constexpr float kNoValue = std::numeric_limits<float>::quiet_NaN();

}  // namespace

void StepSeries::Block::add(float value) {
  min = std::min(min, value);
  max = std::max(max, value);
  sum += value;
  ++count;
}

void StepSeries::Block::merge(const Block& other) {
  min = std::min(min, other.min);
  max = std::max(max, other.max);
  sum += other.sum;
  count += other.count;
}

StepSeries::Chunk* StepSeries::chunkOf(uint64_t step) const {
  const uint64_t index = step / kChunkSize;
  if (index < firstChunk_ || index - firstChunk_ >= chunks_.size()) return nullptr;
  return &chunks_[index - firstChunk_];
}

void StepSeries::coverWithBlocks(uint64_t endStep) {
  auto needed = [&] { return (endStep + blockSteps_ - 1) / blockSteps_; };
  while (needed() > kMaxBlocks) {
    std::vector<Block> merged((blocks_.size() + 1) / 2);
    for (size_t i = 0; i < blocks_.size(); ++i) merged[i / 2].merge(blocks_[i]);
    blocks_ = std::move(merged);
    blockSteps_ *= 2;
    dirtyFrom_ = 0;  // every summarised column is drawn from the longer blocks now
  }
  if (blocks_.size() < needed()) blocks_.resize(needed());
}

void StepSeries::summariseOldest() {
  const uint64_t begin = summarisedEnd();
  coverWithBlocks(begin + kChunkSize);
  const Chunk& chunk = chunks_.front();
  if (chunk.values && chunk.count > 0) {
    for (uint64_t i = 0; i < kChunkSize; ++i) {
      const float v = chunk.values[i];
      if (!std::isnan(v)) blockOf(begin + i).add(v);
    }
  }
  chunks_.pop_front();
  ++firstChunk_;
  dirtyFrom_ = std::min(dirtyFrom_, begin);  // its columns are drawn from the blocks now
}

float* StepSeries::slot(uint64_t step) {
  const uint64_t index = step / kChunkSize;
  while (index - firstChunk_ >= chunks_.size()) {
    chunks_.emplace_back();
    // A chunk begun beyond the window pushes the oldest out of it.
    if (chunks_.size() > kFullChunks) summariseOldest();
  }
  Chunk& chunk = chunks_[index - firstChunk_];
  if (!chunk.values) {
    chunk.values = std::make_unique<float[]>(kChunkSize);
    std::fill_n(chunk.values.get(), kChunkSize, kNoValue);
  }
  return &chunk.values[step % kChunkSize];
}

void StepSeries::store(uint64_t step, float value) {
  changedFrom_ = std::min(changedFrom_, step);
  if (step < summarisedEnd()) {
    // Late for its full-resolution chunk: it joins its block (what it replaces there cannot be taken out).
    if (std::isnan(value)) return;
    blockOf(step).add(value);
    ++count_;
    dirtyFrom_ = std::min(dirtyFrom_, step);
    return;
  }
  float* p = slot(step);
  Chunk& chunk = *chunkOf(step);
  const float old = *p;
  if (!std::isnan(old)) {
    chunk.sum -= old;
    --chunk.count;
    --count_;
    if (old <= chunk.min || old >= chunk.max) chunk.extentStale = true;
  }
  if (!std::isnan(value)) {
    chunk.sum += value;
    ++chunk.count;
    ++count_;
    chunk.min = std::min(chunk.min, value);
    chunk.max = std::max(chunk.max, value);
    end_ = std::max(end_, step + 1);
  }
  *p = value;
  dirtyFrom_ = std::min(dirtyFrom_, step);
}

void StepSeries::set(uint64_t step, float value) {
  store(step, value);
}

void StepSeries::add(uint64_t step, float delta) {
  if (step < summarisedEnd() && blockOf(step).count > 0) {
    // To a summarised step: to its block's sum, the mean moving as that step's value would move it.
    Block& block = blockOf(step);
    block.sum += delta;
    const float mean = static_cast<float>(block.sum / static_cast<double>(block.count));
    block.min = std::min(block.min, mean);
    block.max = std::max(block.max, mean);
    dirtyFrom_ = std::min(dirtyFrom_, step);
    changedFrom_ = std::min(changedFrom_, step);
    return;
  }
  const float old = at(step);
  store(step, std::isnan(old) ? delta : old + delta);
}

float StepSeries::at(uint64_t step) const {
  if (step < summarisedEnd()) {
    const Block& block = blocks_[step / blockSteps_];
    return block.count > 0 ? static_cast<float>(block.sum / static_cast<double>(block.count)) : kNoValue;
  }
  const Chunk* chunk = chunkOf(step);
  if (!chunk || !chunk->values) return kNoValue;
  return chunk->values[step % kChunkSize];
}

void StepSeries::refreshExtent(Chunk& chunk) const {
  chunk.min = std::numeric_limits<float>::infinity();
  chunk.max = -std::numeric_limits<float>::infinity();
  for (uint64_t i = 0; i < kChunkSize; ++i) {
    const float v = chunk.values[i];
    if (std::isnan(v)) continue;
    chunk.min = std::min(chunk.min, v);
    chunk.max = std::max(chunk.max, v);
  }
  chunk.extentStale = false;
}

StepSeries::Extent StepSeries::extent(uint64_t from, uint64_t to) const {
  to = std::min(to, end_);
  float lo = std::numeric_limits<float>::infinity();
  float hi = -std::numeric_limits<float>::infinity();
  const uint64_t summarised = std::min(to, summarisedEnd());
  for (uint64_t b = from / blockSteps_; from < summarised && b * blockSteps_ < summarised; ++b) {
    if (blocks_[b].count == 0) continue;
    lo = std::min(lo, blocks_[b].min);
    hi = std::max(hi, blocks_[b].max);
  }
  for (uint64_t step = std::max(from, summarisedEnd()); step < to;) {
    Chunk& chunk = *chunkOf(step);
    const uint64_t chunkBegin = step / kChunkSize * kChunkSize;
    const uint64_t stop = std::min(to, chunkBegin + kChunkSize);
    if (chunk.values && chunk.count > 0) {
      if (step == chunkBegin && stop == chunkBegin + kChunkSize) {
        if (chunk.extentStale) refreshExtent(chunk);
        lo = std::min(lo, chunk.min);
        hi = std::max(hi, chunk.max);
      } else {
        for (uint64_t s = step; s < stop; ++s) {
          const float v = chunk.values[s - chunkBegin];
          if (std::isnan(v)) continue;
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
      }
    }
    step = stop;
  }
  if (lo > hi) return {};
  return {lo, hi};
}

double StepSeries::mean(uint64_t from, uint64_t to) const {
  to = std::min(to, end_);
  double sum = 0;
  double n = 0;
  const uint64_t summarised = std::min(to, summarisedEnd());
  for (uint64_t b = from / blockSteps_; from < summarised && b * blockSteps_ < summarised; ++b) {
    const uint64_t begin = std::max(from, b * blockSteps_), end = std::min(summarised, (b + 1) * blockSteps_);
    const double share = static_cast<double>(end - begin) / static_cast<double>(blockSteps_);
    sum += blocks_[b].sum * share;
    n += static_cast<double>(blocks_[b].count) * share;
  }
  for (uint64_t step = std::max(from, summarisedEnd()); step < to;) {
    const Chunk& chunk = *chunkOf(step);
    const uint64_t chunkBegin = step / kChunkSize * kChunkSize;
    const uint64_t stop = std::min(to, chunkBegin + kChunkSize);
    if (chunk.values && chunk.count > 0) {
      if (step == chunkBegin && stop == chunkBegin + kChunkSize) {
        sum += chunk.sum;
        n += static_cast<double>(chunk.count);
      } else {
        for (uint64_t s = step; s < stop; ++s) {
          const float v = chunk.values[s - chunkBegin];
          if (std::isnan(v)) continue;
          sum += v;
          ++n;
        }
      }
    }
    step = stop;
  }
  return n > 0 ? sum / n : std::nan("");
}

void StepSeries::reduceSummarised(uint64_t from, uint64_t to, QList<QPointF>& out) const {
  const Block* first = nullptr;
  const Block* last = nullptr;
  Block all;
  for (uint64_t b = from / blockSteps_; b * blockSteps_ < to; ++b) {
    if (blocks_[b].count == 0) continue;
    if (!first) first = &blocks_[b];
    last = &blocks_[b];
    all.merge(blocks_[b]);
  }
  if (!first) return;
  auto mean = [](const Block* b) { return b->sum / static_cast<double>(b->count); };
  const double x0 = static_cast<double>(from), x1 = static_cast<double>(to - 1), middle = (x0 + x1) / 2;
  out.append(QPointF(x0, mean(first)));
  out.append(QPointF(middle, all.min));
  out.append(QPointF(middle, all.max));
  out.append(QPointF(x1, mean(last)));
}

void StepSeries::reduceSteps(uint64_t from, uint64_t to, QList<QPointF>& out) const {
  to = std::min(to, end_);
  if (from < summarisedEnd()) {
    reduceSummarised(from, std::min(to, summarisedEnd()), out);
    from = summarisedEnd();
  }
  int64_t first = -1, last = -1, minAt = -1, maxAt = -1;
  float lo = std::numeric_limits<float>::infinity();
  float hi = -std::numeric_limits<float>::infinity();
  for (uint64_t step = from; step < to;) {
    const Chunk& chunk = *chunkOf(step);
    const uint64_t chunkBegin = step / kChunkSize * kChunkSize;
    const uint64_t stop = std::min(to, chunkBegin + kChunkSize);
    if (chunk.values && chunk.count > 0) {
      const float* values = chunk.values.get() - chunkBegin;
      for (uint64_t s = step; s < stop; ++s) {
        const float v = values[s];
        if (std::isnan(v)) continue;
        if (first < 0) first = static_cast<int64_t>(s);
        last = static_cast<int64_t>(s);
        if (v < lo) lo = v, minAt = static_cast<int64_t>(s);
        if (v > hi) hi = v, maxAt = static_cast<int64_t>(s);
      }
    }
    step = stop;
  }
  if (first < 0) return;
  std::array<int64_t, 4> picks{first, std::min(minAt, maxAt), std::max(minAt, maxAt), last};
  int64_t written = -1;
  for (int64_t s : picks) {
    if (s == written) continue;
    out.append(QPointF(static_cast<double>(s), at(static_cast<uint64_t>(s))));
    written = s;
  }
}

uint64_t StepSeries::columnStart(int64_t column) const {
  const double width = (grid_.x1 - grid_.x0) / grid_.columns;
  double guess = std::ceil(grid_.x0 + static_cast<double>(column) * width);
  uint64_t step = guess <= 0 ? 0 : static_cast<uint64_t>(guess);
  // Floating-point rounding may put the guess one step off the column edge columnOf() sees.
  while (grid_.columnOf(static_cast<double>(step)) < column) ++step;
  while (step > 0 && grid_.columnOf(static_cast<double>(step - 1)) >= column) --step;
  return step;
}

void StepSeries::reduceColumnsFrom(int64_t column) {
  const int64_t columns = grid_.columns;
  column = std::clamp<int64_t>(column, -1, columns);
  points_.resize(columnOut_[static_cast<size_t>(column + 1)]);
  for (int64_t c = column; c <= columns; ++c) {
    columnOut_[static_cast<size_t>(c + 1)] = points_.size();
    if (c == -1) {
      // The nearest value left of the grid, so the line enters from the border.
      const uint64_t begin = std::min(columnStart(0), end_);
      const uint64_t floor = begin > kChunkSize ? begin - kChunkSize : 0;
      for (uint64_t s = begin; s > floor; --s) {
        const float v = at(s - 1);
        if (!std::isnan(v)) {
          points_.append(QPointF(static_cast<double>(s - 1), v));
          break;
        }
      }
    } else if (c == columns) {
      // The nearest value right of the grid.
      const uint64_t begin = columnStart(columns);
      const uint64_t stop = std::min(end_, begin + kChunkSize);
      for (uint64_t s = begin; s < stop; ++s) {
        const float v = at(s);
        if (!std::isnan(v)) {
          points_.append(QPointF(static_cast<double>(s), v));
          break;
        }
      }
    } else {
      const uint64_t begin = columnStart(c);
      if (begin >= end_) {
        // Nothing further right: the remaining columns are empty.
        for (int64_t rest = c + 1; rest <= columns; ++rest)
          columnOut_[static_cast<size_t>(rest + 1)] = points_.size();
        break;
      }
      reduceSteps(begin, columnStart(c + 1), points_);
    }
  }
}

const QList<QPointF>& StepSeries::decimated(const PixelGrid& grid, int64_t* changedColumn) {
  int64_t changed = grid.columns + 1;
  if (!grid.valid()) {
    points_.clear();
    cached_ = false;
    changed = -1;
  } else if (!cached_ || grid != grid_) {
    grid_ = grid;
    columnOut_.assign(static_cast<size_t>(grid.columns) + 2, 0);
    points_.clear();
    reduceColumnsFrom(-1);
    cached_ = true;
    changed = -1;
  } else if (dirtyFrom_ != std::numeric_limits<uint64_t>::max()) {
    changed = std::clamp<int64_t>(grid_.columnOf(static_cast<double>(dirtyFrom_)), -1, grid_.columns);
    reduceColumnsFrom(changed);
  }
  dirtyFrom_ = std::numeric_limits<uint64_t>::max();
  if (changedColumn) *changedColumn = changed;
  return points_;
}

size_t StepSeries::bytesHeld() const {
  size_t bytes = sizeof(*this) + chunks_.size() * sizeof(Chunk) + blocks_.capacity() * sizeof(Block);
  for (const Chunk& chunk : chunks_) {
    if (chunk.values) bytes += kChunkSize * sizeof(float);
  }
  bytes += static_cast<size_t>(points_.capacity()) * sizeof(QPointF);
  bytes += columnOut_.capacity() * sizeof(qsizetype);
  return bytes;
}

}  // namespace ringmaster::console
