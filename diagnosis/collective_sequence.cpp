// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosis/collective_sequence.h"

#include <algorithm>
#include <sstream>

#include "diagnosis/advice.h"
#include "diagnosis/evidence_keys.h"
#include "diagnosis/summary_text.h"

namespace ringmaster::diagnosis {
namespace {

constexpr size_t kMostPendingSteps = 4096;  // completed steps kept per rank while others have not sent theirs
constexpr size_t kMostPatterns = 64;        // kinds of step a rank's calls are remembered for
constexpr char kWorld[] = "world";

bool sameCall(const v1::Collective& a, const v1::Collective& b) {
  return a.op() == b.op() && a.reduction() == b.reduction() && a.dtype() == b.dtype() &&
         a.elements() == b.elements() && a.group() == b.group();
}

// The ranks a group names ("ranks 0,2"); empty for the default group or a group of unknown members.
std::vector<int> membersOf(const std::string& group) {
  std::vector<int> out;
  constexpr char kPrefix[] = "ranks ";
  if (group.rfind(kPrefix, 0) != 0) return out;
  std::stringstream in(group.substr(sizeof(kPrefix) - 1));
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      out.push_back(std::stoi(item));
    } catch (const std::exception&) {
      return {};
    }
  }
  return out;
}

bool bothIn(const std::string& group, int a, int b) {
  if (group == kWorld) return true;
  const auto members = membersOf(group);
  return std::count(members.begin(), members.end(), a) && std::count(members.begin(), members.end(), b);
}

// The calls on `group`, in order.
std::vector<const v1::Collective*> on(const std::string& group, const std::vector<v1::Collective>& calls) {
  std::vector<const v1::Collective*> out;
  for (const auto& c : calls) {
    if (c.group() == group) out.push_back(&c);
  }
  return out;
}

Sentence callSentence(const v1::Collective& c) {
  std::string op = c.op();
  if (!c.reduction().empty() && c.reduction() != "SUM") op += "(" + c.reduction() + ")";
  const std::string site = c.site().empty() ? std::string("?") : c.site();
  if (c.dtype().empty()) return say(text::kCollectiveAt, {op, site});
  return say(text::kCollectiveOfAt, {op, static_cast<int64_t>(c.elements()), c.dtype(), site});
}

}  // namespace

const CollectiveSequenceDetector::Calls* CollectiveSequenceDetector::callsOf(const Rank& r,
                                                                             uint64_t step) const {
  if (r.inProgressStep == step && !r.inProgress.empty()) return &r.inProgress;
  auto s = r.steps.find(step);
  if (s == r.steps.end()) return nullptr;
  auto k = r.known.find(s->second);
  return k == r.known.end() ? nullptr : &k->second;
}

void CollectiveSequenceDetector::add(const v1::StepSample& step) {
  if (step.collectives() == 0 && step.collectives_crc() == 0) return;  // the rank keeps none
  Rank& r = ranks_[step.rank()];
  const Pattern pattern{step.collectives(), step.collectives_crc()};
  r.steps[step.step()] = pattern;
  r.usual = pattern;
  r.lastCompleted = step.step();
  if (r.steps.size() > kMostPendingSteps) r.steps.erase(r.steps.begin());
  if (r.inProgressStep <= step.step()) r.inProgress.clear();
  compareCompleted(step.step());
}

void CollectiveSequenceDetector::add(const v1::CollectiveCalls& calls) {
  Rank& r = ranks_[calls.rank()];
  const Pattern pattern{calls.count(), calls.crc()};
  if (r.known.size() < kMostPatterns || r.known.count(pattern))
    r.known[pattern] = Calls(calls.calls().begin(), calls.calls().end());
}

void CollectiveSequenceDetector::heartbeat(const v1::Heartbeat& heartbeat) {
  Rank& r = ranks_[heartbeat.rank()];
  const bool same = r.lastBeat > 0 && r.inProgressStep == heartbeat.collectives_step() &&
                    r.inProgress.size() == static_cast<size_t>(heartbeat.collectives_size());
  r.lastBeat = ++events_;
  if (!same) r.stateSince = r.lastBeat;
  r.inProgressStep = heartbeat.collectives_step();
  r.inProgress.assign(heartbeat.collectives().begin(), heartbeat.collectives().end());
  compareInProgress();
}

void CollectiveSequenceDetector::exited(int rank, bool failed) {
  Rank& r = ranks_[rank];
  r.exited = true;
  r.exitedCleanly = !failed;
  r.exitedAt = ++events_;
  anyFailed_ = anyFailed_ || failed;
}

const v1::Collective* CollectiveSequenceDetector::usualAt(const Rank& r, const std::string& group,
                                                          size_t at) const {
  if (!r.usual) return nullptr;
  auto k = r.known.find(*r.usual);
  if (k == r.known.end()) return nullptr;
  const auto calls = on(group, k->second);
  return at < calls.size() ? calls[at] : nullptr;
}

void CollectiveSequenceDetector::compareInProgress() {
  static const Calls kNone;
  for (auto& [a, ra] : ranks_) {
    if (ra.inProgress.empty()) continue;
    const uint64_t step = ra.inProgressStep;
    for (auto& [b, rb] : ranks_) {
      if (b == a) continue;
      const Calls* theirs = callsOf(rb, step);
      // A rank that ended cleanly never makes the calls `a` still waits in a heartbeat after that end.
      const bool ended = rb.exitedCleanly && rb.inProgressStep <= step &&
                         (!theirs || theirs == &rb.inProgress) && ra.lastBeat > rb.exitedAt &&
                         ra.stateSince < rb.exitedAt;
      // Calls all known: a completed step's, or those of a rank that ended. Else a prefix, or none known.
      const bool complete = (theirs && theirs != &rb.inProgress) || ended;
      if (!theirs) theirs = &kNone;
      std::vector<std::string> groups;
      for (const auto& c : ra.inProgress) {
        if (bothIn(c.group(), a, b) && std::find(groups.begin(), groups.end(), c.group()) == groups.end())
          groups.push_back(c.group());
      }
      for (const auto& group : groups) {
        const auto mine = on(group, ra.inProgress);
        const auto other = on(group, *theirs);
        const size_t common = std::min(mine.size(), other.size());
        size_t at = common;
        for (size_t i = 0; i < common; ++i) {
          if (!sameCall(*mine[i], *other[i])) {
            at = i;
            break;
          }
        }
        if (at == common && !(complete && mine.size() > other.size())) {
          // Beyond what is known of b's calls, `a` makes one its own steps never made there, and b's steps
          // make another: suspected, and told once the run ends or fails with neither past this step.
          const v1::Collective* aUsual = usualAt(ra, group, at);
          const v1::Collective* bUsual = usualAt(rb, group, at);
          if (mine.size() > at && bUsual && !sameCall(*bUsual, *mine[at]) &&
              (!aUsual || !sameCall(*aUsual, *mine[at]))) {
            Difference d;
            d.step = step;
            d.rank = a;
            d.other = b;
            d.group = group;
            d.place = at;
            d.call = *mine[at];
            d.otherCall = *bUsual;
            d.knownOdd = true;
            d.inferred = true;
            const bool known = std::any_of(suspects_.begin(), suspects_.end(), [&d](const Difference& s) {
              return s.step == d.step && s.rank == d.rank && s.other == d.other;
            });
            if (!known && suspects_.size() < kMostPatterns) suspects_.push_back(std::move(d));
          }
          continue;
        }
        Difference d;
        d.step = step;
        d.rank = a;
        d.other = b;
        d.group = group;
        d.place = at;
        d.call = *mine[at];
        if (at < other.size()) d.otherCall = *other[at];
        // Which of the two departs from what its own earlier steps called at this place.
        const v1::Collective* aUsual = usualAt(ra, group, at);
        const v1::Collective* bUsual = usualAt(rb, group, at);
        const bool aDeparts = !aUsual || !sameCall(*aUsual, *d.call);
        const bool bDeparts = d.otherCall && (!bUsual || !sameCall(*bUsual, *d.otherCall));
        if (aDeparts && !bDeparts) {
          d.knownOdd = true;
        } else if (bDeparts && !aDeparts) {
          std::swap(d.rank, d.other);
          std::swap(d.call, d.otherCall);
          d.knownOdd = true;
        }
        if (!d.call) continue;  // the other is the odd one but its call there is not known
        note(std::move(d));
        break;
      }
    }
  }
}

bool CollectiveSequenceDetector::confirmed(const Difference& d) const {
  const Rank& ra = ranks_.at(d.rank);
  const Rank& rb = ranks_.at(d.other);
  // A failure ended the step (Gloo aborts on a size mismatch), or b ended cleanly while a stayed in the call.
  const bool stayed = rb.exitedCleanly && ra.lastBeat > rb.exitedAt && ra.stateSince < rb.exitedAt;
  if (!anyFailed_ && !stayed) return false;
  for (const Rank* r : {&ra, &rb}) {
    if (r->lastCompleted && *r->lastCompleted >= d.step) return false;  // it got past the step
  }
  // b's own calls came to say it makes the same one there.
  if (rb.inProgressStep == d.step) {
    const auto calls = on(d.group, rb.inProgress);
    if (d.place < calls.size() && sameCall(*calls[d.place], *d.call)) return false;
  }
  return true;
}

void CollectiveSequenceDetector::compareCompleted(uint64_t step) {
  std::vector<std::pair<int, Pattern>> seen;
  int waiting = 0;
  for (const auto& [rank, r] : ranks_) {
    auto s = r.steps.find(step);
    if (s != r.steps.end()) {
      seen.emplace_back(rank, s->second);
    } else if (!r.exited) {
      ++waiting;
    }
  }
  if (waiting > 0 && static_cast<int>(seen.size()) < worldSize_) return;
  for (size_t i = 1; i < seen.size(); ++i) {
    if (seen[i].second == seen[0].second) continue;
    const int a = seen[0].first, b = seen[i].first;
    const Calls* ca = callsOf(ranks_.at(a), step);
    const Calls* cb = callsOf(ranks_.at(b), step);
    Difference d;
    d.step = step;
    d.rank = a;
    d.other = b;
    d.counts[0] = seen[0].second.count;
    d.counts[1] = seen[i].second.count;
    if (ca && cb) {
      const auto mine = on(kWorld, *ca);
      const auto other = on(kWorld, *cb);
      const size_t common = std::min(mine.size(), other.size());
      size_t at = common;
      for (size_t k = 0; k < common; ++k) {
        if (!sameCall(*mine[k], *other[k])) {
          at = k;
          break;
        }
      }
      if (at < mine.size()) d.call = *mine[at];
      if (at < other.size()) d.otherCall = *other[at];
      if (!d.call) {
        std::swap(d.rank, d.other);
        std::swap(d.call, d.otherCall);
      }
    }
    note(std::move(d));
    break;
  }
  for (auto& [rank, r] : ranks_) r.steps.erase(step);
}

void CollectiveSequenceDetector::note(Difference d) {
  if (!first_ || d.step < first_->step || (d.step == first_->step && !first_->call && d.call)) first_ = d;
}

std::vector<v1::Finding> CollectiveSequenceDetector::findings() const {
  const Difference* found = first_ ? &*first_ : nullptr;
  for (const auto& s : suspects_) {
    if ((!found || s.step < found->step) && confirmed(s)) found = &s;
  }
  if (!found) return {};
  const Difference& d = *found;
  auto host = hosts_.find(d.rank);
  const std::string hostName = host != hosts_.end() ? host->second : "";
  v1::Finding f = makeFinding(v1::Finding::KIND_COLLECTIVES, v1::Finding::SEVERITY_CRITICAL,
                              d.knownOdd ? d.rank : -1, d.knownOdd ? hostName : "", d.step, "out of step");
  const auto who = [&](int rank) {
    auto h = hosts_.find(rank);
    return rankOnHost(rank, h != hosts_.end() ? h->second : "");
  };
  const int64_t step = static_cast<int64_t>(d.step);
  if (d.call && d.otherCall) {
    setSummary(f, say(d.knownOdd && !d.inferred ? text::kCallsWhereOtherIsIn : text::kCallsWhereOtherCalls,
                      {step, who(d.rank), callSentence(*d.call), who(d.other), callSentence(*d.otherCall)}));
  } else if (d.call) {
    setSummary(
        f, say(text::kCallsThatOtherNeverCalls, {step, who(d.rank), callSentence(*d.call), who(d.other)}));
  } else {
    setSummary(f, say(text::kStepCollectivesDiffer, {step, who(d.rank), static_cast<int64_t>(d.counts[0]),
                                                     who(d.other), static_cast<int64_t>(d.counts[1])}));
  }
  (*f.mutable_evidence())[evidence::kFirstStep] = static_cast<double>(d.step);
  if (d.call) {
    (*f.mutable_evidence())[evidence::kCollectiveIndex] = static_cast<double>(d.call->index());
    (*f.mutable_evidence())[evidence::kElements] = static_cast<double>(d.call->elements());
  }
  if (d.otherCall)
    (*f.mutable_evidence())[evidence::kOtherElements] = static_cast<double>(d.otherCall->elements());
  addAdvice(f);
  return {f};
}

}  // namespace ringmaster::diagnosis
