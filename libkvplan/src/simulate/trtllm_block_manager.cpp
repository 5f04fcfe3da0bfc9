// TensorRT-LLM's KV cache block manager (trtllm_block_manager.h).
#include "simulate/trtllm_block_manager.h"

#include <algorithm>

#include "kvplan/error.h"
#include "simulate/rng.h"

namespace kvplan::detail {

TrtBlockManager::TrtBlockManager(std::uint64_t num_blocks, std::uint64_t tokens_per_block, bool reuse, bool partial_reuse,
                                 bool copy_on_partial_reuse)
    : num_blocks_(num_blocks), tpb_(tokens_per_block), reuse_(reuse), partial_reuse_(partial_reuse),
      copy_on_partial_(copy_on_partial_reuse) {
  if (num_blocks_ >= kNone) throw Error("kvplan simulate: internal error: TensorRT-LLM pool too large to simulate");
  if (tpb_ == 0) throw Error("kvplan simulate: internal error: tokens_per_block 0");
  blocks_.resize(num_blocks_ + 1);
  // LRUEvictionPolicy::initialize: every block, in id order, in the default-priority queue.
  for (std::uint32_t b = 0; b < num_blocks_; ++b) {
    blocks_[b].free = true;
    blocks_[b].free_it = free_.insert(free_.end(), b);
  }
}

std::uint64_t TrtBlockManager::hash_key(Tokens key) {
  std::uint64_t h = hash_mix(0x626c6b6bULL, key.size());
  for (std::uint64_t t : key) h = hash_mix(h, t);
  return h;
}

// chopVectorIntoBlocks(vec, usableSize, tokensPerBlock, allowPartial)
std::vector<std::vector<std::uint64_t>> TrtBlockManager::chop(Tokens tokens, std::uint64_t usable, bool allow_partial) const {
  std::vector<std::vector<std::uint64_t>> out;
  usable = std::min<std::uint64_t>(usable, tokens.size());
  for (std::uint64_t begin = 0; begin < usable; begin += tpb_) {
    const std::uint64_t n = std::min(tpb_, usable - begin);
    if (n == tpb_ || allow_partial) out.emplace_back(tokens.begin() + begin, tokens.begin() + begin + n);
  }
  return out;
}

// KVCacheBlock::findMatchingBlock(blockKey, enablePartialReuse, copyOnPartialReuse). Children are
// kept ordered by (first token, key hash), so among equally long partial matches the first in that
// order wins (upstream: the first in its hash map's order).
TrtBlockManager::Match TrtBlockManager::find_matching_block(std::uint32_t node, Tokens key, bool partial_reuse,
                                                            bool copy_on_partial) const {
  const Block& n = blocks_[node];
  if (key.empty() || n.next.empty()) return {};
  const auto it = n.next.find({key[0], hash_key(key)});
  if (it != n.next.end() && std::equal(key.begin(), key.end(), blocks_[it->second].key.begin(), blocks_[it->second].key.end())) {
    const Block& b = blocks_[it->second];
    return {!b.full, key.size(), it->second};
  }
  if (partial_reuse) {
    std::uint64_t best = 0;
    std::uint32_t best_block = kNone;
    // BlockKey::partialMatch: the leading tokens both keys share (0 unless the first token agrees).
    for (auto c = n.next.lower_bound({key[0], 0}); c != n.next.end() && c->first.first == key[0]; ++c) {
      const Block& b = blocks_[c->second];
      if (!(copy_on_partial || (b.ref == 0 && b.next.empty()))) continue;
      const auto mm = std::mismatch(b.key.begin(), b.key.end(), key.begin(), key.end());
      const auto matched = static_cast<std::uint64_t>(mm.first - b.key.begin());
      if (matched > best) {
        best = matched;
        best_block = c->second;
      }
    }
    if (best > 0) return {true, best, best_block};
  }
  return {};
}

void TrtBlockManager::claim(std::uint32_t b) {
  Block& k = blocks_[b];
  if (!k.free) return;
  free_.erase(k.free_it);
  k.free = false;
  if (k.parent != kNone) --tree_free_;
}

void TrtBlockManager::release(std::uint32_t b) {
  Block& k = blocks_[b];
  k.free = true;
  k.free_it = free_.insert(free_.end(), b);
  if (k.parent != kNone) ++tree_free_;
}

void TrtBlockManager::unlink(std::uint32_t b) {
  Block& k = blocks_[b];
  if (k.parent == kNone) return;
  blocks_[k.parent].next.erase({k.key.empty() ? 0 : k.key[0], k.key_hash});
  k.parent = kNone;
  if (k.free) --tree_free_;
}

void TrtBlockManager::unlink_subtree(std::uint32_t b) {
  Block& k = blocks_[b];
  while (!k.next.empty()) {
    const std::uint32_t c = k.next.begin()->second;
    unlink_subtree(c);
    unlink(c);
  }
}

void TrtBlockManager::link(std::uint32_t parent, std::uint32_t b) {
  Block& k = blocks_[b];
  if (k.parent != kNone) unlink(b);
  // KVCacheBlock::addNextBlock keeps an existing child of the same key.
  const auto [it, added] = blocks_[parent].next.emplace(ChildKey{k.key.empty() ? 0 : k.key[0], k.key_hash}, b);
  if (!added) return;
  k.parent = parent;
  if (k.free) ++tree_free_;
}

// WindowBlockManager::getFreeBlock (primary pool, no offload): the front of the queue, unlinked
// from the tree with its descendants.
std::uint32_t TrtBlockManager::get_free_block() {
  if (free_.empty()) throw Error("kvplan simulate: internal error: no free TensorRT-LLM block");
  const std::uint32_t b = free_.front();
  claim(b);
  if (blocks_[b].key.empty()) ++alloc_new_blocks;
  ++alloc_total_blocks;
  unlink_subtree(b);
  unlink(b);
  return b;
}

void TrtBlockManager::add_to_seq(std::uint32_t seq, std::uint32_t b) {
  if (seq >= seqs_.size()) seqs_.resize(seq + 1);
  ++blocks_[b].ref;
  seqs_[seq].push_back(b);
}

std::uint64_t TrtBlockManager::add_sequence(std::uint32_t seq, Tokens tokens, std::uint64_t input_length) {
  if (seq < seqs_.size() && !seqs_[seq].empty()) throw Error("kvplan simulate: internal error: TensorRT-LLM sequence added twice");
  const std::uint64_t num_context_blocks = (input_length + tpb_ - 1) / tpb_;
  if (!reuse_) {
    // BlockManager::addSequence(sequence, numBlocks, unsharedBlockIdx): fresh blocks only.
    for (std::uint64_t i = 0; i < num_context_blocks; ++i) add_to_seq(seq, get_free_block());
    return 0;
  }
  if (tokens.size() < input_length) throw Error("kvplan simulate: internal error: TensorRT-LLM request without its tokens");
  // WindowBlockManager::addSequence: the last input token is never reused.
  auto keys = chop(tokens, input_length - 1, true);
  if (input_length % tpb_ == 1) keys.emplace_back();
  // loadOrAllocateBlocks
  std::uint64_t matched_tokens = 0;
  std::uint32_t search = static_cast<std::uint32_t>(num_blocks_);  // mCachedBlocksRoot
  for (std::uint64_t bi = 0; bi < num_context_blocks; ++bi) {
    const bool has_key = bi < keys.size();
    const Match m = search != kNone && has_key ? find_matching_block(search, keys[bi], partial_reuse_, copy_on_partial_) : Match{};
    if (m.block != kNone) {
      std::uint32_t b = m.block;
      matched_tokens += m.matched > 0 ? m.matched : keys[bi].size();
      if (m.partial) {
        if (blocks_[b].ref > 0 || !blocks_[b].next.empty()) {
          b = get_free_block();  // somebody else uses it, or it is not a leaf: copy the reusable tokens
        } else {
          claim(b);  // claimLeafBlock: an unused leaf becomes the request's own block
          unlink(b);
        }
        search = kNone;
      } else {
        claim(b);
        search = b;
      }
      add_to_seq(seq, b);
      ++reused_blocks;
    } else {
      const std::uint32_t b = get_free_block();
      add_to_seq(seq, b);
      search = kNone;
      if (has_key) {  // setBlockKey: keyed, but not in the tree until stored
        blocks_[b].key = keys[bi];
        blocks_[b].key_hash = hash_key(keys[bi]);
        blocks_[b].full = keys[bi].size() == tpb_;
      }
      ++missed_blocks;
    }
  }
  reused_tokens += matched_tokens;
  total_input_tokens += input_length;
  return matched_tokens;
}

void TrtBlockManager::allocate_block(std::uint32_t seq) { add_to_seq(seq, get_free_block()); }

// WindowBlockManager::storeBlocks
void TrtBlockManager::store_blocks(const std::vector<std::vector<std::uint64_t>>& keys, const std::vector<std::uint32_t>& ids) {
  std::uint32_t search = static_cast<std::uint32_t>(num_blocks_);
  bool need_match = true;
  const std::size_t n = std::min(keys.size(), ids.size());
  for (std::size_t i = 0; i < n; ++i) {
    const Match m = need_match ? find_matching_block(search, keys[i], false, false) : Match{};
    if (m.block != kNone) {
      search = m.block;
      continue;
    }
    need_match = false;
    const std::uint32_t b = ids[i];
    if (blocks_[b].parent != kNone) unlink(b);
    blocks_[b].key = keys[i];
    blocks_[b].key_hash = hash_key(keys[i]);
    blocks_[b].full = keys[i].size() == tpb_;
    link(search, b);
    search = b;
  }
}

void TrtBlockManager::store_context_blocks(std::uint32_t seq, Tokens prompt) {
  if (!reuse_ || seq >= seqs_.size() || prompt.empty()) return;
  store_blocks(chop(prompt, prompt.size() - 1, false), seqs_[seq]);
}

void TrtBlockManager::remove_sequence(std::uint32_t seq, Tokens tokens) {
  if (seq >= seqs_.size()) return;
  std::vector<std::uint32_t>& ids = seqs_[seq];
  // storeBlocksForReuse: only numTokens - 1 tokens have their KV in the cache.
  if (reuse_ && !tokens.empty()) store_blocks(chop(tokens, tokens.size() - 1, true), ids);
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
    Block& k = blocks_[*it];
    if (k.ref == 0) throw Error("kvplan simulate: internal error: TensorRT-LLM block released twice");
    if (--k.ref == 0) release(*it);
  }
  ids.clear();
}

std::optional<std::uint64_t> TrtBlockManager::find_new_context_block(Tokens tokens) const {
  const auto keys = chop(tokens, tokens.size(), false);
  std::uint64_t h = 0x6e657762ULL;
  std::uint32_t search = static_cast<std::uint32_t>(num_blocks_);
  for (const auto& key : keys) {
    h = hash_mix(h, hash_key(key));
    const Match m = search != kNone ? find_matching_block(search, key, false, false) : Match{};
    if (m.block == kNone) return h;
    search = m.block;
  }
  return std::nullopt;
}

}  // namespace kvplan::detail
