// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/response_cache.h"

#include <cassert>

namespace ringmaster::worker {
namespace {

// Status bits of word 0, each set when the flag is off (so that AND over ranks yields OR of the flags).
constexpr uint64_t kNoShutdown = 1;
constexpr uint64_t kNotActive = 2;
constexpr uint64_t kNoUncached = 4;
constexpr uint64_t kNoDetail = 8;

size_t wordsFor(size_t bits) {
  return (bits + 63) / 64;
}

void setBits(const std::vector<bool>& flags, bool inverted, uint64_t* words) {
  for (size_t b = 0; b < flags.size(); ++b) {
    if (flags[b] != inverted) words[b / 64] |= uint64_t{1} << (b % 64);
  }
}

std::vector<bool> readBits(const int64_t* words, size_t bits, bool inverted) {
  std::vector<bool> flags(bits);
  for (size_t b = 0; b < bits; ++b) {
    const bool set = (static_cast<uint64_t>(words[b / 64]) >> (b % 64)) & 1u;
    flags[b] = set != inverted;
  }
  return flags;
}

}  // namespace

ResponseCache::ResponseCache(size_t capacity) : capacity_(capacity) {
  assert(capacity > 0);
}

ResponseCache::Lookup ResponseCache::lookup(const std::string& name, const TensorSignature& signature) const {
  auto it = byName_.find(name);
  if (it == byName_.end()) return Lookup::kMiss;
  return slots_[it->second].signature == signature ? Lookup::kHit : Lookup::kInvalid;
}

std::optional<uint32_t> ResponseCache::bitOf(const std::string& name) const {
  auto it = byName_.find(name);
  if (it == byName_.end()) return std::nullopt;
  return it->second;
}

size_t ResponseCache::tensorAt(uint32_t bit) const {
  assert(bit < slots_.size() && slots_[bit].used);
  return slots_[bit].tensor;
}

uint32_t ResponseCache::put(const std::string& name, const TensorSignature& signature, size_t tensor) {
  if (auto known = bitOf(name)) {
    assert(slots_[*known].signature == signature);
    slots_[*known].tensor = tensor;
    touch(*known);
    return *known;
  }
  uint32_t bit = 0;
  if (byName_.size() == capacity_) {
    bit = useOrder_.front();
    erase(bit);
    ++evictions_;
  }
  if (!free_.empty()) {
    bit = *free_.begin();
    free_.erase(free_.begin());
  } else {
    bit = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& slot = slots_[bit];
  slot.used = true;
  slot.name = name;
  slot.signature = signature;
  slot.tensor = tensor;
  slot.use = useOrder_.insert(useOrder_.end(), bit);
  byName_[name] = bit;
  return bit;
}

void ResponseCache::touch(uint32_t bit) {
  assert(bit < slots_.size() && slots_[bit].used);
  useOrder_.splice(useOrder_.end(), useOrder_, slots_[bit].use);
}

void ResponseCache::erase(uint32_t bit) {
  assert(bit < slots_.size() && slots_[bit].used);
  Slot& slot = slots_[bit];
  byName_.erase(slot.name);
  useOrder_.erase(slot.use);
  slot = Slot{};
  free_.insert(bit);
}

std::vector<int64_t> CacheCycle::encode() const {
  const size_t bits = hit.size();
  assert(pending.size() == bits && invalid.size() == bits);
  const size_t words = wordsFor(bits);
  std::vector<uint64_t> out(encodedSize(bits), 0);
  out[0] = (shutdown ? 0 : kNoShutdown) | (active ? 0 : kNotActive) | (uncached ? 0 : kNoUncached) |
           (wantsDetail ? 0 : kNoDetail);
  setBits(hit, false, out.data() + 1);
  setBits(pending, true, out.data() + 1 + words);
  setBits(invalid, true, out.data() + 1 + 2 * words);
  return std::vector<int64_t>(out.begin(), out.end());
}

CacheCycle CacheCycle::decode(const int64_t* words, size_t bits) {
  const size_t n = wordsFor(bits);
  CacheCycle cycle;
  const auto status = static_cast<uint64_t>(words[0]);
  cycle.shutdown = !(status & kNoShutdown);
  cycle.active = !(status & kNotActive);
  cycle.uncached = !(status & kNoUncached);
  cycle.wantsDetail = !(status & kNoDetail);
  cycle.hit = readBits(words + 1, bits, false);
  cycle.pending = readBits(words + 1 + n, bits, true);
  cycle.invalid = readBits(words + 1 + 2 * n, bits, true);
  return cycle;
}

}  // namespace ringmaster::worker
