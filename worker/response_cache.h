// SPDX-License-Identifier: GPL-3.0-or-later
// Horovod's response cache: once every rank agreed to reduce a tensor, each rank remembers that answer under
// the tensor's name, at a bit position. From then on a cycle needs no coordinator for it: the ranks combine
// one small bit vector of the cached tensors each has ready (a bitwise-AND all-reduce) and reduce the tensors
// ready everywhere in bit order. Only tensors that are new, or whose shape or dtype changed, go through a
// full negotiation.
//
// Every rank changes its cache in the same order with the same answers (what the coordinator scheduled, what
// the bit vector said), so bit positions, evictions and the use order agree everywhere without being sent.
//
// Plain C++ (no LibTorch): the engine describes a tensor by its dtype code and shape.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace ringmaster::worker {

// What must not change for a cached answer to stay valid.
struct TensorSignature {
  int32_t dtype = 0;  // the engine's dtype code
  std::vector<int64_t> shape;

  bool operator==(const TensorSignature& other) const { return dtype == other.dtype && shape == other.shape; }
  bool operator!=(const TensorSignature& other) const { return !(*this == other); }
};

class ResponseCache {
 public:
  enum class Lookup { kMiss, kHit, kInvalid };  // kInvalid: cached under this name with another signature

  explicit ResponseCache(size_t capacity);

  Lookup lookup(const std::string& name, const TensorSignature& signature) const;
  std::optional<uint32_t> bitOf(const std::string& name) const;
  // The engine's tensor index cached at `bit` (which must be in use).
  size_t tensorAt(uint32_t bit) const;

  // Remembers an agreed answer, or refreshes it (most recently used). When the cache is full, the least
  // recently used answer is evicted and the newcomer takes its bit; otherwise the lowest free bit. Returns
  // the bit. A name cached with another signature must be erased first.
  uint32_t put(const std::string& name, const TensorSignature& signature, size_t tensor);
  // The answer at `bit` was used this cycle (most recently used).
  void touch(uint32_t bit);
  void erase(uint32_t bit);

  // Bit positions the cycle's bit vector must hold: one past the highest bit ever handed out.
  size_t bits() const { return slots_.size(); }
  size_t size() const { return byName_.size(); }
  size_t capacity() const { return capacity_; }
  uint64_t evictions() const { return evictions_; }

 private:
  struct Slot {
    bool used = false;
    std::string name;
    TensorSignature signature;
    size_t tensor = 0;
    std::list<uint32_t>::iterator use;  // position in useOrder_
  };

  size_t capacity_;
  std::vector<Slot> slots_;  // by bit
  std::unordered_map<std::string, uint32_t> byName_;
  std::list<uint32_t> useOrder_;  // bits, least recently used first
  std::set<uint32_t> free_;       // erased bits below slots_.size()
  uint64_t evictions_ = 0;
};

// One rank's cache view of a cycle, and after the bitwise-AND all-reduce of encode() the ranks' common view.
// Fields that mean "some rank" travel inverted, so that AND over ranks is OR over the flags.
struct CacheCycle {
  bool shutdown = false;      // some rank's engine is closing
  bool active = false;        // some rank is inside a synchronised backward
  bool uncached = false;      // some rank has a ready tensor without a valid cached answer
  bool wantsDetail = false;   // rank 0's stall inspector wants every rank's ready times (a full negotiation)
  std::vector<bool> hit;      // by bit: the cached tensor is ready here (after the AND: on every rank)
  std::vector<bool> pending;  // by bit: the cached tensor is ready here (after the AND: on some rank)
  std::vector<bool> invalid;  // by bit: here the tensor no longer matches its answer (after: on some rank)

  explicit CacheCycle(size_t bits = 0) : hit(bits), pending(bits), invalid(bits) {}

  std::vector<int64_t> encode() const;
  static CacheCycle decode(const int64_t* words, size_t bits);
  static size_t encodedSize(size_t bits) { return 1 + 3 * ((bits + 63) / 64); }
};

}  // namespace ringmaster::worker
