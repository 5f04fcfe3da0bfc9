#pragma once
// vLLM V1's block pool (vllm/v1/core/block_pool.py BlockPool, with kv_cache_utils.py's
// FreeKVCacheBlockQueue): num_blocks blocks, block 0 taken as the null block at start-up; a
// doubly linked free queue popped from the head (least recently freed first) and appended at the
// tail; ref counts; the prefix-cache map from (block hash, group id) to blocks, an entry dropped
// when a cached free block is reused (_maybe_evict_cached_block); touch() takes a hit block back
// out of the free queue.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kvplan::detail {

constexpr std::uint32_t kNull = 0;           // vLLM's null block is block 0
constexpr std::uint32_t kNone = UINT32_MAX;

struct Block {
  std::uint32_t ref = 0;
  std::uint32_t prev = kNone, next = kNone;  // free queue links
  std::uint32_t next_same = kNone;           // next block cached under the same key
  std::uint32_t group = 0;
  bool has_hash = false;
  std::uint64_t key = 0;
};

// The prefix-cache map (vLLM's cached_block_hash_to_block) as an open-addressing table: keys
// are already well-mixed 64-bit hashes, values the first block cached under the key; linear
// probing with backward-shift deletion. It never holds more entries than there are blocks.
class FlatMap {
 public:
  explicit FlatMap(std::size_t max_entries);
  std::uint32_t find(std::uint64_t key) const {
    for (std::size_t i = key & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].val == kNone) return kNone;
      if (slots_[i].key == key) return slots_[i].val;
    }
  }
  // The value for key, inserting `value` when absent; `inserted` says which.
  std::uint32_t& emplace(std::uint64_t key, std::uint32_t value, bool& inserted);
  std::uint32_t* slot(std::uint64_t key);
  // Removes the entry holding *value (a pointer from slot()).
  void erase_at(std::uint32_t* value);

  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t val = kNone;
  };
  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
};

// All members are reachable: the tests inspect the free queue and the map, as vLLM's do.
class BlockPool {
 public:
  BlockPool(std::uint64_t n, std::size_t groups, bool caching);
  std::uint64_t num_free() const { return free_; }
  std::uint64_t used() const { return blocks_.size() - 2 - free_; }
  const std::vector<std::uint64_t>& group_used() const { return group_used_; }
  std::uint64_t cached_free() const { return cached_free_; }

  // get_new_blocks: k blocks from the free queue's head for `group`, appended to `out`.
  void get_new_blocks(std::uint64_t k, std::uint32_t group, std::vector<std::uint32_t>& out);
  void touch(std::uint32_t b);
  // free_blocks: every block's ref count drops; those reaching 0 go back to the free queue,
  // blocks without a hash to the FRONT (prepend_n: they can never be a cache hit, so they are
  // reused first) and hashed blocks to the back (append_n: evicted last), as in vLLM main's
  // BlockPool.free_blocks (the order tests/v1/core/test_prefix_caching.py::test_prefill asserts).
  void free_blocks(const std::vector<std::uint32_t>& ordered);
  // The free queue, head (next to be reused) first.
  std::vector<std::uint32_t> free_queue() const;
  bool has_hash(std::uint32_t b) const { return blocks_[b].has_hash; }
  std::uint32_t ref(std::uint32_t b) const { return blocks_[b].ref; }
  // cached_block_hash_to_block[key]: the earliest block still cached under it.
  std::uint32_t get_cached(std::uint64_t key) const { return map_.find(key); }
  void cache(std::uint32_t b, std::uint64_t key);

  void evict(std::uint32_t b);
  void prepend(std::uint32_t b);
  void append(std::uint32_t b);
  void unlink(std::uint32_t b);
  std::uint32_t popleft();

  std::vector<Block> blocks_;
  std::uint32_t sentinel_ = 0;
  std::uint64_t free_ = 0, cached_free_ = 0;
  std::vector<std::uint64_t> group_used_;
  FlatMap map_;
  std::vector<std::uint32_t> scratch_front_;
  bool caching_;
};

}  // namespace kvplan::detail
