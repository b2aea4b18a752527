// SPDX-License-Identifier: GPL-3.0-or-later
// The timeline of a run for a custom-painted view: per-lane event arrays sorted by start, level-of-detail
// boxes for a visible range, hit testing, per-phase statistics of a range, and Horovod's "who arrived late"
// ticks, and search by name.
//
// Lanes are (rank, lane name). A rank's "compute" lane holds DATA FORWARD BACKWARD OPTIMIZER; "comm" lanes
// hold ALLREDUCE and its wait; any other lane name is a tensor or fused buffer of the Horovod engine, holding
// NEGOTIATE_ALLREDUCE, QUEUE, MEMCPY_IN_FUSION_BUFFER, ..._ALLREDUCE, MEMCPY_OUT_FUSION_BUFFER. Two row
// layouts are offered: by rank (its compute and comm lanes) and Horovod-style (one row per tensor, the lowest
// rank's events, every rank's ready tick).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ringmaster/v1/records.pb.h"

namespace ringmaster::console {

namespace v1 = ::ringmaster::v1;

class TimelineModel {
 public:
  using NameId = uint32_t;

  // One event in a lane; 32 bytes, so 10 million events fit in a third of a gigabyte.
  struct Event {
    int64_t startNs = 0;
    int64_t endNs = 0;
    uint32_t step = 0;
    NameId name = 0;
    uint32_t args = 0;  // 1-based index into the argument table; 0 = none
    int32_t rank = 0;
  };

  struct Lane {
    int rank = 0;
    std::string name;  // "compute", "comm", a tensor name, or an imported trace's "<thread> · depth N"
    bool isTensor() const {
      return name != "compute" && name.rfind("comm", 0) != 0 &&
             name.find(" \u00b7 depth ") == std::string::npos;
    }
  };

  // What the view paints for one lane: an event (count 1) or several narrow neighbours merged into one box.
  struct Box {
    int64_t startNs = 0;
    int64_t endNs = 0;
    NameId name = 0;     // for a merged box, the name of its longest event
    uint32_t count = 1;  // events in the box
    uint32_t event = 0;  // index in the lane of the first event
    int64_t sumNs = 0;   // the durations of its events summed: how much of the box is busy
  };

  // A rank became ready for a tensor (a tick inside NEGOTIATE_ALLREDUCE).
  struct Tick {
    int64_t timeNs = 0;
    int rank = 0;
  };

  // Per phase, time spent inside a range and events touching it.
  struct PhaseStats {
    int64_t totalNs = 0;  // summed over the phase's events, within the range (overlapping events count twice)
    int64_t busyNs = 0;  // time within the range in which at least one of them ran: never more than the range
    // Time within the range the rank is counted as doing this phase, each moment once: a "compute" lane's
    // event first, then the most recently started event on any lane. A rank's selfNs add up to the range
    // less its idle time.
    int64_t selfNs = 0;
    uint32_t count = 0;
  };
  // rank -> phase name -> stats
  using RangeStats = std::map<int, std::map<std::string, PhaseStats>>;

  // A stored run's timeline read a range at a time (console::loadTimeline): the model holds every event
  // that overlaps [fromNs, toNs) of a run whose events span [runBeginNs, runEndNs].
  struct Window {
    int64_t fromNs = 0;
    int64_t toNs = 0;
    int64_t runBeginNs = 0;
    int64_t runEndNs = 0;
    int64_t runEvents = 0;
  };
  // Unset for a model that holds its run whole.
  void setWindow(const Window& window) { window_ = window; }
  const std::optional<Window>& window() const { return window_; }
  // Whether every event overlapping [t0, t1) is held.
  bool holds(int64_t t0, int64_t t1) const {
    return !window_ || (t0 >= window_->fromNs && t1 <= window_->toNs);
  }
  // The run's extent: its events', or the window's run's.
  int64_t runBeginNs() const { return window_ ? window_->runBeginNs : beginNs(); }
  int64_t runEndNs() const { return window_ ? window_->runEndNs : endNs(); }
  // A lane of the run before any of its events (a window's run has lanes without events in the window),
  // with the earliest start of its events in the whole run, so that rows keep their places.
  void addLane(int rank, const std::string& name, int64_t firstStartNs);

  void add(const v1::TimelineEvent& event);
  // Adds every timeline record of a batch (others are ignored).
  void add(const v1::RecordBatch& batch);
  void clear();

  size_t eventCount() const { return eventCount_; }
  int64_t beginNs() const { return eventCount_ ? beginNs_ : 0; }
  int64_t endNs() const { return eventCount_ ? endNs_ : 0; }
  const std::string& name(NameId id) const;
  // Arguments of an event ("bytes" -> "4194304", ...), in name order.
  std::vector<std::pair<std::string, std::string>> args(const Event& event) const;

  int laneCount() const { return static_cast<int>(lanes_.size()); }
  const Lane& lane(int index) const { return lanes_[static_cast<size_t>(index)].info; }
  // Events of a lane, sorted by start.
  const std::vector<Event>& events(int lane) const;

  // Row layouts: lane indexes in display order.
  // Rank by rank: compute, then comm lanes, then an imported trace's thread lanes, depth by depth.
  std::vector<int> rankRows() const;
  std::vector<int> tensorRows() const;  // one per tensor name: the lowest rank's lane

  // Boxes of lane `lane` inside [t0, t1) at `nsPerPixel`: events narrower than `minPixels` merge into one
  // box with neighbours less than a pixel away, so the box count stays within the pixel width at any zoom
  // while every idle gap of a pixel or more stays visible.
  std::vector<Box> boxes(int lane, int64_t t0, int64_t t1, double nsPerPixel, double minPixels = 1.0) const;

  // The innermost event of `lane` under time t, within `toleranceNs` of its edges; -1 when none.
  int eventAt(int lane, int64_t t, int64_t toleranceNs = 0) const;

  // Ready ticks of every rank for the tensor of `lane` (same tensor name on any rank), in [t0, t1], by time.
  std::vector<Tick> ticks(int lane, int64_t t0, int64_t t1) const;
  // The rank whose tick comes last inside the NEGOTIATE event (the one the others waited for); -1 without
  // ticks.
  int lateRank(int lane, const Event& negotiate) const;

  // Time per phase per rank inside [t0, t1): each event's overlap with the range, over all lanes.
  RangeStats rangeStats(int64_t t0, int64_t t1) const;

  // Search by name: an event matches when its name or its lane's name holds `text` (ASCII case ignored).
  // Matches are ordered by start, then by row (an index into `rows`), then by index in the lane.
  struct Hit {
    int row = -1;  // -1: none
    int event = -1;
    int64_t startNs = 0;
    bool found() const { return row >= 0; }
  };
  // The first match after `from` (before it when `forward` is false); a `from` without a row means "from
  // time from.startNs on" (or "before it"). Does not wrap around.
  Hit findNext(const std::vector<int>& rows, const std::string& text, const Hit& from,
               bool forward = true) const;
  // How many events of `rows` match; with `before`, only those ordered before it.
  size_t countMatches(const std::vector<int>& rows, const std::string& text,
                      const Hit* before = nullptr) const;

  // The events overlapping [t0, t1) as records (for export), lane by lane.
  std::vector<v1::TimelineEvent> eventsIn(int64_t t0, int64_t t1) const;

  size_t bytesHeld() const;

 private:
  // Level of detail: a summary of each run of kChunkEvents consecutive events of a lane (by start), so that a
  // zoomed-out frame takes a whole chunk in one step when every event in it would merge into the same box.
  static constexpr size_t kChunkEvents = 64;
  struct Chunk {
    int64_t firstStart = 0;
    int64_t lastStart = 0;
    int64_t maxEnd = 0;
    int64_t maxDuration = 0;  // its widest event
    int64_t maxGap = 0;  // widest gap between an event's start and the end of all earlier events in the chunk
    int64_t sumDuration = 0;
    NameId longestName = 0;  // the name of its first widest event
  };
  struct LaneData {
    Lane info;
    std::vector<Event> events;
    std::vector<int64_t> maxEndSoFar;  // running maximum of end over events[0..i], for range searches
    std::vector<Chunk> chunks;         // of the complete chunks of a sorted lane, built as frames ask
    bool sorted = true;
    int64_t firstStartNs = INT64_MAX;  // of its events in the whole run, where known beyond those held
  };

  NameId intern(const std::string& name);
  int laneIndex(int rank, const std::string& name);
  void prepare(LaneData& lane) const;
  // Summarises the lane's complete chunks that have no summary yet (the lane is sorted).
  void summariseChunks(LaneData& lane) const;
  // Index of the first event of the lane that may reach t (every earlier one ends before t).
  size_t firstReaching(const LaneData& lane, int64_t t) const;
  // Which names match a search text, by NameId.
  std::vector<char> matchingNames(const std::string& text) const;

  mutable std::vector<LaneData> lanes_;
  std::map<std::pair<int, std::string>, int> laneByKey_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, NameId> nameIds_;
  std::vector<std::vector<std::pair<std::string, std::string>>> argTable_;
  // Tensor name -> (time, rank) ticks, kept sorted lazily.
  mutable std::map<std::string, std::vector<Tick>> ticks_;
  mutable bool ticksSorted_ = true;
  std::optional<Window> window_;
  size_t eventCount_ = 0;
  int64_t beginNs_ = INT64_MAX;
  int64_t endNs_ = INT64_MIN;
};

}  // namespace ringmaster::console
