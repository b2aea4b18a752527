// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/models/timeline_model.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <map>
#include <tuple>

namespace ringmaster::console {
namespace {

// Whether an event that starts before t1 reaches into [t0, t1): ranges are half-open, instants count where
// they are.
bool overlaps(const TimelineModel::Event& e, int64_t t0) {
  return e.endNs > t0 || e.startNs >= t0;
}

bool isNegotiation(const std::string& name) {
  return name.rfind("NEGOTIATE", 0) == 0;
}

// Horovod's timeline names a rank's ready tick by the rank number.
bool parseRank(const std::string& text, int& rank) {
  if (text.empty() || text.size() > 6) return false;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  rank = std::stoi(text);
  return true;
}

}  // namespace

TimelineModel::NameId TimelineModel::intern(const std::string& name) {
  auto [it, inserted] = nameIds_.try_emplace(name, static_cast<NameId>(names_.size()));
  if (inserted) names_.push_back(name);
  return it->second;
}

const std::string& TimelineModel::name(NameId id) const {
  return names_.at(id);
}

int TimelineModel::laneIndex(int rank, const std::string& name) {
  auto [it, inserted] = laneByKey_.try_emplace({rank, name}, static_cast<int>(lanes_.size()));
  if (inserted) {
    LaneData lane;
    lane.info = Lane{rank, name};
    lanes_.push_back(std::move(lane));
  }
  return it->second;
}

void TimelineModel::addLane(int rank, const std::string& name, int64_t firstStartNs) {
  LaneData& lane = lanes_[static_cast<size_t>(laneIndex(rank, name))];
  lane.firstStartNs = std::min(lane.firstStartNs, firstStartNs);
}

void TimelineModel::add(const v1::TimelineEvent& record) {
  const int laneId = laneIndex(record.rank(), record.lane());
  LaneData& lane = lanes_[static_cast<size_t>(laneId)];
  const int64_t start = record.start_ns();
  const int64_t end = std::max(record.end_ns(), start);
  if (lane.info.isTensor()) {
    int tickRank = record.rank();
    const bool instant = end == start;
    if (instant && parseRank(record.name(), tickRank)) {
      // A bare tick: it marks a rank as ready and is not an activity of its own.
      ticks_[lane.info.name].push_back({start, tickRank});
      ticksSorted_ = false;
      return;
    }
    if (isNegotiation(record.name())) {
      ticks_[lane.info.name].push_back({start, record.rank()});
      ticksSorted_ = false;
    }
  }

  Event e;
  e.startNs = start;
  e.endNs = end;
  e.step = static_cast<uint32_t>(std::min<uint64_t>(record.step(), UINT32_MAX));
  e.name = intern(record.name());
  e.rank = record.rank();
  if (!record.args().empty()) {
    std::vector<std::pair<std::string, std::string>> args(record.args().begin(), record.args().end());
    std::sort(args.begin(), args.end());
    argTable_.push_back(std::move(args));
    e.args = static_cast<uint32_t>(argTable_.size());
  }
  if (!lane.events.empty() && start < lane.events.back().startNs) {
    lane.sorted = false;
    lane.chunks.clear();  // summaries of the old order; rebuilt after sorting
  }
  lane.events.push_back(e);
  if (lane.sorted)
    lane.maxEndSoFar.push_back(std::max(end, lane.maxEndSoFar.empty() ? end : lane.maxEndSoFar.back()));
  ++eventCount_;
  beginNs_ = std::min(beginNs_, start);
  endNs_ = std::max(endNs_, end);
}

void TimelineModel::add(const v1::RecordBatch& batch) {
  for (const v1::Record& record : batch.records()) {
    if (record.has_timeline()) add(record.timeline());
  }
}

void TimelineModel::clear() {
  *this = TimelineModel();
}

std::vector<std::pair<std::string, std::string>> TimelineModel::args(const Event& event) const {
  if (event.args == 0 || event.args > argTable_.size()) return {};
  return argTable_[event.args - 1];
}

void TimelineModel::prepare(LaneData& lane) const {
  if (lane.sorted) return;
  std::stable_sort(lane.events.begin(), lane.events.end(),
                   [](const Event& a, const Event& b) { return a.startNs < b.startNs; });
  lane.maxEndSoFar.resize(lane.events.size());
  int64_t reach = INT64_MIN;
  for (size_t i = 0; i < lane.events.size(); ++i) {
    reach = std::max(reach, lane.events[i].endNs);
    lane.maxEndSoFar[i] = reach;
  }
  lane.sorted = true;
}

void TimelineModel::summariseChunks(LaneData& lane) const {
  const size_t complete = lane.events.size() / kChunkEvents;
  for (size_t c = lane.chunks.size(); c < complete; ++c) {
    const Event* e = &lane.events[c * kChunkEvents];
    Chunk chunk;
    chunk.firstStart = e[0].startNs;
    chunk.lastStart = e[kChunkEvents - 1].startNs;
    chunk.maxEnd = e[0].endNs;
    chunk.maxDuration = e[0].endNs - e[0].startNs;
    chunk.longestName = e[0].name;
    chunk.sumDuration = chunk.maxDuration;
    for (size_t i = 1; i < kChunkEvents; ++i) {
      chunk.maxGap = std::max(chunk.maxGap, e[i].startNs - chunk.maxEnd);
      chunk.maxEnd = std::max(chunk.maxEnd, e[i].endNs);
      const int64_t duration = e[i].endNs - e[i].startNs;
      chunk.sumDuration += duration;
      if (duration > chunk.maxDuration) chunk.maxDuration = duration, chunk.longestName = e[i].name;
    }
    lane.chunks.push_back(chunk);
  }
}

const std::vector<TimelineModel::Event>& TimelineModel::events(int lane) const {
  LaneData& data = lanes_[static_cast<size_t>(lane)];
  prepare(data);
  return data.events;
}

size_t TimelineModel::firstReaching(const LaneData& lane, int64_t t) const {
  return static_cast<size_t>(std::lower_bound(lane.maxEndSoFar.begin(), lane.maxEndSoFar.end(), t) -
                             lane.maxEndSoFar.begin());
}

namespace {

// Lane names in the order a person reads them: numbers by value ("depth 2" before "depth 10").
bool naturalLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t ei = i, ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei]))) ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej]))) ++ej;
      const std::string_view x = std::string_view(a).substr(i, ei - i),
                             y = std::string_view(b).substr(j, ej - j);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = ei;
      j = ej;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

}  // namespace

std::vector<int> TimelineModel::rankRows() const {
  std::vector<int> rows;
  // laneByKey_ is ordered by (rank, name): "comm..." sorts before "compute", so place compute first by hand.
  int currentRank = INT32_MIN;
  size_t rankStart = 0;
  auto orderRank = [&] {
    std::stable_sort(rows.begin() + static_cast<std::ptrdiff_t>(rankStart), rows.end(), [&](int a, int b) {
      const std::string& x = lanes_[static_cast<size_t>(a)].info.name;
      const std::string& y = lanes_[static_cast<size_t>(b)].info.name;
      if ((x == "compute") != (y == "compute")) return x == "compute";
      return naturalLess(x, y);
    });
  };
  for (const auto& [key, index] : laneByKey_) {
    if (lanes_[static_cast<size_t>(index)].info.isTensor()) continue;
    if (key.first != currentRank) {
      orderRank();
      currentRank = key.first;
      rankStart = rows.size();
    }
    rows.push_back(index);
  }
  orderRank();
  return rows;
}

std::vector<int> TimelineModel::tensorRows() const {
  std::map<std::string, int> lowest;  // tensor -> lane of its lowest rank
  for (const auto& [key, index] : laneByKey_) {
    if (lanes_[static_cast<size_t>(index)].info.isTensor()) lowest.try_emplace(key.second, index);
  }
  std::vector<std::pair<int64_t, int>> byFirstEvent;
  for (const auto& [tensor, index] : lowest) {
    const auto& ev = events(index);
    const int64_t held = ev.empty() ? INT64_MAX : ev.front().startNs;
    byFirstEvent.push_back({std::min(held, lanes_[static_cast<size_t>(index)].firstStartNs), index});
  }
  std::stable_sort(byFirstEvent.begin(), byFirstEvent.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<int> rows;
  for (const auto& [start, index] : byFirstEvent) rows.push_back(index);
  return rows;
}

std::vector<TimelineModel::Box> TimelineModel::boxes(int laneId, int64_t t0, int64_t t1, double nsPerPixel,
                                                     double minPixels) const {
  std::vector<Box> out;
  LaneData& lane = lanes_[static_cast<size_t>(laneId)];
  prepare(lane);
  summariseChunks(lane);
  const double narrowNs = minPixels * nsPerPixel;
  // A narrow event joins the open merged box only across a gap of less than a pixel: a gap of a pixel or
  // more is idle time the reader must see, however narrow the events around it.
  auto joins = [&](int64_t start, int64_t mergedEnd) {
    return static_cast<double>(start) - static_cast<double>(mergedEnd) < nsPerPixel;
  };
  bool open = false;
  Box merged;
  int64_t longest = -1;
  for (size_t i = firstReaching(lane, t0); i < lane.events.size(); ++i) {
    // A whole chunk of narrow events, each less than a pixel after the ones before it, lies inside the range:
    // the event-by-event walk below would merge all of it into one box, so take its summary instead.
    if (i % kChunkEvents == 0 && i / kChunkEvents < lane.chunks.size()) {
      const Chunk& chunk = lane.chunks[i / kChunkEvents];
      if (chunk.firstStart >= t0 && chunk.lastStart < t1 &&
          static_cast<double>(chunk.maxDuration) < narrowNs &&
          static_cast<double>(chunk.maxGap) < nsPerPixel) {
        if (open && joins(chunk.firstStart, merged.endNs)) {
          merged.endNs = std::max(merged.endNs, chunk.maxEnd);
          merged.count += static_cast<uint32_t>(kChunkEvents);
          merged.sumNs += chunk.sumDuration;
        } else {
          if (open) out.push_back(merged);
          open = true;
          merged = Box{chunk.firstStart,         chunk.maxEnd,
                       chunk.longestName,        static_cast<uint32_t>(kChunkEvents),
                       static_cast<uint32_t>(i), chunk.sumDuration};
          longest = -1;
        }
        if (chunk.maxDuration > longest) longest = chunk.maxDuration, merged.name = chunk.longestName;
        i += kChunkEvents - 1;
        continue;
      }
    }
    const Event& e = lane.events[i];
    if (e.startNs >= t1) break;
    if (!overlaps(e, t0)) continue;
    const int64_t duration = e.endNs - e.startNs;
    if (static_cast<double>(duration) >= narrowNs) {
      // Nothing later can join a merged box this event starts a pixel beyond: close it first to keep start
      // order.
      if (open && !joins(e.startNs, merged.endNs)) {
        out.push_back(merged);
        open = false;
      }
      out.push_back(Box{e.startNs, e.endNs, e.name, 1, static_cast<uint32_t>(i), duration});
      continue;
    }
    if (open && joins(e.startNs, merged.endNs)) {
      merged.endNs = std::max(merged.endNs, e.endNs);
      ++merged.count;
      merged.sumNs += duration;
      if (duration > longest) longest = duration, merged.name = e.name;
      continue;
    }
    if (open) out.push_back(merged);
    open = true;
    merged = Box{e.startNs, e.endNs, e.name, 1, static_cast<uint32_t>(i), duration};
    longest = duration;
  }
  if (open) out.push_back(merged);
  return out;
}

int TimelineModel::eventAt(int laneId, int64_t t, int64_t toleranceNs) const {
  LaneData& lane = lanes_[static_cast<size_t>(laneId)];
  prepare(lane);
  int best = -1;
  for (size_t i = firstReaching(lane, t - toleranceNs); i < lane.events.size(); ++i) {
    const Event& e = lane.events[i];
    if (e.startNs - toleranceNs > t) break;
    // Later starts are nested deeper: the last one that covers t is the innermost.
    if (e.endNs + toleranceNs >= t) best = static_cast<int>(i);
  }
  return best;
}

std::vector<TimelineModel::Tick> TimelineModel::ticks(int laneId, int64_t t0, int64_t t1) const {
  if (!ticksSorted_) {
    for (auto& [tensor, list] : ticks_) {
      std::stable_sort(list.begin(), list.end(),
                       [](const Tick& a, const Tick& b) { return a.timeNs < b.timeNs; });
    }
    ticksSorted_ = true;
  }
  auto it = ticks_.find(lanes_[static_cast<size_t>(laneId)].info.name);
  if (it == ticks_.end()) return {};
  const auto& list = it->second;
  auto begin =
      std::lower_bound(list.begin(), list.end(), t0, [](const Tick& a, int64_t t) { return a.timeNs < t; });
  auto end = std::upper_bound(begin, list.end(), t1, [](int64_t t, const Tick& a) { return t < a.timeNs; });
  return {begin, end};
}

int TimelineModel::lateRank(int laneId, const Event& negotiate) const {
  const std::vector<Tick> inside = ticks(laneId, negotiate.startNs, negotiate.endNs);
  return inside.empty() ? -1 : inside.back().rank;
}

namespace {

// An event's part of a range, for counting each moment of a rank once.
struct Piece {
  int64_t from = 0;
  int64_t to = 0;
  int64_t startNs = 0;  // the event's own start: the latest started of overlapping events is the innermost
  bool compute = false;
  TimelineModel::NameId name = 0;
};

// Whether `a` takes a moment from `b` when both run: compute first (communication beside it is hidden, only
// the rest is exposed), then the most recently started (a nested event, or the latest activity).
bool outranks(const Piece& a, const Piece& b) {
  if (a.compute != b.compute) return a.compute;
  if (a.startNs != b.startNs) return a.startNs > b.startNs;
  return a.to < b.to;
}

// Adds to selfNs[name] each moment of the pieces' union, given to the piece that outranks the others then.
void countEachMomentOnce(std::vector<Piece>& pieces, std::map<TimelineModel::NameId, int64_t>& selfNs) {
  std::sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) { return a.from < b.from; });
  auto lower = [](const Piece& a, const Piece& b) { return outranks(b, a); };
  std::vector<Piece> running;  // a heap: the piece that outranks the others on top
  size_t next = 0;
  int64_t now = INT64_MIN;
  while (next < pieces.size() || !running.empty()) {
    if (running.empty()) now = std::max(now, pieces[next].from);
    while (next < pieces.size() && pieces[next].from <= now) {
      running.push_back(pieces[next++]);
      std::push_heap(running.begin(), running.end(), lower);
    }
    // Pieces that ended leave when they come to the top.
    while (!running.empty() && running.front().to <= now) {
      std::pop_heap(running.begin(), running.end(), lower);
      running.pop_back();
    }
    if (running.empty()) continue;
    int64_t until = running.front().to;
    if (next < pieces.size()) until = std::min(until, pieces[next].from);
    selfNs[running.front().name] += until - now;
    now = until;
  }
}

}  // namespace

TimelineModel::RangeStats TimelineModel::rangeStats(int64_t t0, int64_t t1) const {
  RangeStats stats;
  // The parts of the range each phase covers, per rank: a phase on many lanes at once (one per tensor in a
  // Horovod timeline) is busy once, not once per lane.
  std::map<std::pair<int, NameId>, std::vector<std::pair<int64_t, int64_t>>> covered;
  std::map<int, std::vector<Piece>> pieces;  // per rank
  for (LaneData& lane : lanes_) {
    prepare(lane);
    const bool compute = lane.info.name == "compute";
    for (size_t i = firstReaching(lane, t0); i < lane.events.size(); ++i) {
      const Event& e = lane.events[i];
      if (e.startNs >= t1) break;
      if (!overlaps(e, t0)) continue;
      const int64_t from = std::max(e.startNs, t0), to = std::min(e.endNs, t1);
      PhaseStats& s = stats[lane.info.rank][names_[e.name]];
      s.totalNs += std::max<int64_t>(0, to - from);
      ++s.count;
      if (to > from) {
        covered[{lane.info.rank, e.name}].emplace_back(from, to);
        pieces[lane.info.rank].push_back({from, to, e.startNs, compute, e.name});
      }
    }
  }
  for (auto& [key, spans] : covered) {
    std::sort(spans.begin(), spans.end());
    int64_t busy = 0, reach = INT64_MIN;
    for (const auto& [from, to] : spans) {
      if (to <= reach) continue;
      busy += to - std::max(from, reach);
      reach = to;
    }
    stats[key.first][names_[key.second]].busyNs = busy;
  }
  for (auto& [rank, list] : pieces) {
    std::map<NameId, int64_t> selfNs;
    countEachMomentOnce(list, selfNs);
    for (const auto& [name, ns] : selfNs) stats[rank][names_[name]].selfNs = ns;
  }
  return stats;
}

std::vector<char> TimelineModel::matchingNames(const std::string& text) const {
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  const std::string needle = lower(text);
  std::vector<char> match(names_.size(), 0);
  for (size_t i = 0; i < names_.size(); ++i) match[i] = lower(names_[i]).find(needle) != std::string::npos;
  return match;
}

namespace {

bool laneNameMatches(const std::string& lane, const std::string& text) {
  return std::search(lane.begin(), lane.end(), text.begin(), text.end(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
         }) != lane.end();
}

// Whether hit `a` comes before hit `b` in search order.
bool before(const TimelineModel::Hit& a, const TimelineModel::Hit& b) {
  return std::tie(a.startNs, a.row, a.event) < std::tie(b.startNs, b.row, b.event);
}

}  // namespace

TimelineModel::Hit TimelineModel::findNext(const std::vector<int>& rows, const std::string& text,
                                           const Hit& from, bool forward) const {
  Hit best;
  if (text.empty()) return best;
  const std::vector<char> nameMatches = matchingNames(text);
  for (size_t r = 0; r < rows.size(); ++r) {
    LaneData& lane = lanes_[static_cast<size_t>(rows[r])];
    prepare(lane);
    const auto& events = lane.events;
    const bool wholeLane = laneNameMatches(lane.info.name, text);
    const int row = static_cast<int>(r);
    auto byStart = [](const Event& e, int64_t t) { return e.startNs < t; };
    auto startAfter = [](int64_t t, const Event& e) { return t < e.startNs; };
    if (forward) {
      // The first event of this row ordered after `from`.
      size_t i;
      if (from.found() && row == from.row) {
        i = static_cast<size_t>(from.event) + 1;
      } else if (from.found() && row < from.row) {
        i = static_cast<size_t>(std::upper_bound(events.begin(), events.end(), from.startNs, startAfter) -
                                events.begin());
      } else {
        i = static_cast<size_t>(std::lower_bound(events.begin(), events.end(), from.startNs, byStart) -
                                events.begin());
      }
      for (; i < events.size(); ++i) {
        if (best.found() && events[i].startNs > best.startNs) break;
        if (wholeLane || nameMatches[events[i].name]) {
          const Hit hit{row, static_cast<int>(i), events[i].startNs};
          if (!best.found() || before(hit, best)) best = hit;
          break;
        }
      }
    } else {
      // The last event of this row ordered before `from`.
      size_t end;  // one past it
      if (from.found() && row == from.row) {
        end = static_cast<size_t>(from.event);
      } else if (from.found() && row < from.row) {
        end = static_cast<size_t>(std::upper_bound(events.begin(), events.end(), from.startNs, startAfter) -
                                  events.begin());
      } else {
        end = static_cast<size_t>(std::lower_bound(events.begin(), events.end(), from.startNs, byStart) -
                                  events.begin());
      }
      for (size_t i = end; i-- > 0;) {
        if (best.found() && events[i].startNs < best.startNs) break;
        if (wholeLane || nameMatches[events[i].name]) {
          const Hit hit{row, static_cast<int>(i), events[i].startNs};
          if (!best.found() || before(best, hit)) best = hit;
          break;
        }
      }
    }
  }
  return best;
}

size_t TimelineModel::countMatches(const std::vector<int>& rows, const std::string& text,
                                   const Hit* beforeHit) const {
  if (text.empty()) return 0;
  const std::vector<char> nameMatches = matchingNames(text);
  size_t count = 0;
  for (size_t r = 0; r < rows.size(); ++r) {
    LaneData& lane = lanes_[static_cast<size_t>(rows[r])];
    prepare(lane);
    const bool wholeLane = laneNameMatches(lane.info.name, text);
    for (size_t i = 0; i < lane.events.size(); ++i) {
      const Hit hit{static_cast<int>(r), static_cast<int>(i), lane.events[i].startNs};
      if (beforeHit && !before(hit, *beforeHit)) {
        if (hit.startNs > beforeHit->startNs) break;
        continue;
      }
      if (wholeLane || nameMatches[lane.events[i].name]) ++count;
    }
  }
  return count;
}

std::vector<v1::TimelineEvent> TimelineModel::eventsIn(int64_t t0, int64_t t1) const {
  std::vector<v1::TimelineEvent> out;
  for (LaneData& lane : lanes_) {
    prepare(lane);
    for (size_t i = firstReaching(lane, t0); i < lane.events.size(); ++i) {
      const Event& e = lane.events[i];
      if (e.startNs >= t1) break;
      if (!overlaps(e, t0)) continue;
      v1::TimelineEvent record;
      record.set_rank(lane.info.rank);
      record.set_lane(lane.info.name);
      record.set_name(names_[e.name]);
      record.set_start_ns(e.startNs);
      record.set_end_ns(e.endNs);
      record.set_step(e.step);
      for (const auto& [key, value] : args(e)) (*record.mutable_args())[key] = value;
      out.push_back(std::move(record));
    }
  }
  return out;
}

size_t TimelineModel::bytesHeld() const {
  size_t bytes = sizeof(*this);
  for (const LaneData& lane : lanes_) {
    bytes += sizeof(LaneData) + lane.events.capacity() * sizeof(Event) +
             lane.maxEndSoFar.capacity() * sizeof(int64_t) + lane.chunks.capacity() * sizeof(Chunk);
  }
  for (const auto& args : argTable_) bytes += sizeof(args) + args.size() * 64;
  for (const auto& [tensor, list] : ticks_) bytes += list.capacity() * sizeof(Tick);
  return bytes;
}

}  // namespace ringmaster::console
