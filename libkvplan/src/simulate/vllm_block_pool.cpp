// vLLM V1's block pool (vllm_block_pool.h).
#include "simulate/vllm_block_pool.h"

#include "kvplan/error.h"

namespace kvplan::detail {

FlatMap::FlatMap(std::size_t max_entries) {
  std::size_t cap = 16;
  while (cap < 2 * max_entries + 2) cap *= 2;
  slots_.assign(cap, Slot{});
  mask_ = cap - 1;
}

std::uint32_t& FlatMap::emplace(std::uint64_t key, std::uint32_t value, bool& inserted) {
  for (std::size_t i = key & mask_;; i = (i + 1) & mask_) {
    Slot& x = slots_[i];
    if (x.val == kNone) {
      x.key = key;
      x.val = value;
      inserted = true;
      return x.val;
    }
    if (x.key == key) {
      inserted = false;
      return x.val;
    }
  }
}

std::uint32_t* FlatMap::slot(std::uint64_t key) {
  for (std::size_t i = key & mask_;; i = (i + 1) & mask_) {
    if (slots_[i].val == kNone) return nullptr;
    if (slots_[i].key == key) return &slots_[i].val;
  }
}

void FlatMap::erase_at(std::uint32_t* value) {
  std::size_t i = static_cast<std::size_t>(reinterpret_cast<Slot*>(reinterpret_cast<char*>(value) - offsetof(Slot, val)) - slots_.data());
  for (std::size_t j = i;;) {
    j = (j + 1) & mask_;
    if (slots_[j].val == kNone) break;
    const std::size_t home = slots_[j].key & mask_;
    // Move j back to i unless its home lies cyclically in (i, j].
    const bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
    if (!stays) {
      slots_[i] = slots_[j];
      i = j;
    }
  }
  slots_[i].val = kNone;
}

BlockPool::BlockPool(std::uint64_t n, std::size_t groups, bool caching)
    : blocks_(n + 1), group_used_(groups, 0), map_(caching ? n : 1), caching_(caching) {
  sentinel_ = static_cast<std::uint32_t>(n);
  blocks_[sentinel_].prev = blocks_[sentinel_].next = sentinel_;
  for (std::uint32_t i = 0; i < n; ++i) append(i);
  const std::uint32_t null = popleft();  // BlockPool.__init__: null_block = free_block_queue.popleft()
  (void)null;
  blocks_[kNull].ref = 1;
}

void BlockPool::get_new_blocks(std::uint64_t k, std::uint32_t group, std::vector<std::uint32_t>& out) {
  for (std::uint64_t i = 0; i < k; ++i) {
    const std::uint32_t b = popleft();
    if (blocks_[b].has_hash) evict(b);
    blocks_[b].ref = 1;
    blocks_[b].group = group;
    ++group_used_[group];
    out.push_back(b);
  }
}

void BlockPool::touch(std::uint32_t b) {
  if (b == kNull) return;
  if (blocks_[b].ref == 0) {
    unlink(b);
    ++group_used_[blocks_[b].group];
    if (blocks_[b].has_hash) --cached_free_;
  }
  ++blocks_[b].ref;
}

void BlockPool::free_blocks(const std::vector<std::uint32_t>& ordered) {
  std::vector<std::uint32_t>& front = scratch_front_;
  front.clear();
  for (std::uint32_t b : ordered) {
    if (b == kNull) continue;
    if (--blocks_[b].ref != 0) continue;
    --group_used_[blocks_[b].group];
    if (blocks_[b].has_hash) {
      append(b);
      ++cached_free_;
    } else {
      front.push_back(b);
    }
  }
  for (auto it = front.rbegin(); it != front.rend(); ++it) prepend(*it);
}

std::vector<std::uint32_t> BlockPool::free_queue() const {
  std::vector<std::uint32_t> out;
  for (std::uint32_t b = blocks_[sentinel_].next; b != sentinel_; b = blocks_[b].next) out.push_back(b);
  return out;
}

void BlockPool::cache(std::uint32_t b, std::uint64_t key) {
  if (b == kNull || blocks_[b].has_hash) return;
  blocks_[b].has_hash = true;
  blocks_[b].key = key;
  blocks_[b].next_same = kNone;
  bool inserted = false;
  const std::uint32_t head = map_.emplace(key, b, inserted);
  if (!inserted) {
    std::uint32_t t = head;
    while (blocks_[t].next_same != kNone) t = blocks_[t].next_same;
    blocks_[t].next_same = b;
  }
}

void BlockPool::evict(std::uint32_t b) {
  if (std::uint32_t* head = map_.slot(blocks_[b].key)) {
    if (*head == b) {
      if (blocks_[b].next_same == kNone) map_.erase_at(head);
      else *head = blocks_[b].next_same;
    } else {
      std::uint32_t t = *head;
      while (blocks_[t].next_same != kNone && blocks_[t].next_same != b) t = blocks_[t].next_same;
      if (blocks_[t].next_same == b) blocks_[t].next_same = blocks_[b].next_same;
    }
  }
  blocks_[b].has_hash = false;
  blocks_[b].next_same = kNone;
  --cached_free_;
}

void BlockPool::prepend(std::uint32_t b) {
  const std::uint32_t first = blocks_[sentinel_].next;
  blocks_[b].prev = sentinel_;
  blocks_[b].next = first;
  blocks_[first].prev = b;
  blocks_[sentinel_].next = b;
  ++free_;
}

void BlockPool::append(std::uint32_t b) {
  const std::uint32_t last = blocks_[sentinel_].prev;
  blocks_[b].prev = last;
  blocks_[b].next = sentinel_;
  blocks_[last].next = b;
  blocks_[sentinel_].prev = b;
  ++free_;
}

void BlockPool::unlink(std::uint32_t b) {
  blocks_[blocks_[b].prev].next = blocks_[b].next;
  blocks_[blocks_[b].next].prev = blocks_[b].prev;
  blocks_[b].prev = blocks_[b].next = kNone;
  --free_;
}

std::uint32_t BlockPool::popleft() {
  const std::uint32_t b = blocks_[sentinel_].next;
  if (b == sentinel_) throw Error("kvplan simulate: internal error: the free block queue is empty");
  unlink(b);
  return b;
}

}  // namespace kvplan::detail
