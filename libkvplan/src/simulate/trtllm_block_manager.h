#pragma once
// TensorRT-LLM's KV cache block manager as the simulator runs it: one attention window, beam width
// 1, no host (secondary) pool, default retention priority. Private: the public API is kvplan/simulate.h.
//
// After NVIDIA/TensorRT-LLM @002ba6a7cc5eb28f180d45d4a91142d9d927a606
// cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp (WindowBlockManager, KVCacheBlock, KVCacheManager)
// and @05a919198033f5c5d70680da46bb4fe431b7c27e cpp/tensorrt_llm/batch_manager/evictionPolicy.cpp
// (LRUEvictionPolicy):
//  - Blocks form a radix tree keyed by their tokens (KVCacheBlock::mNextBlocks, a map from BlockKey to
//    the child; the root is mCachedBlocksRoot). A key holds the block's token ids; a block whose key
//    is shorter than tokens_per_block is not full (mIsFull).
//  - Free blocks wait in one LRU queue (LRUEvictionPolicy::mFreeQueues at the default priority):
//    all blocks in id order at start; releaseBlock appends at the back, getFreeBlock takes the
//    front, claimBlock takes a block out wherever it is. A free block still in the tree is
//    reusable until it reaches the front and is taken (WindowBlockManager::getFreeBlock, which
//    also unlinks it from its parent: freeChildren / claimLeafBlock / freeLeafBlock).
//  - addSequence (with reuse: loadOrAllocateBlocks) keys the prompt's first inputLength - 1 tokens
//    in blocks (chopVectorIntoBlocks with allowPartial: the last key may be short; an empty key
//    when inputLength % tokens_per_block == 1) and walks the tree from the root: a full-key match
//    (KVCacheBlock::findMatchingBlock) is shared (its reference count grows) and the walk goes on;
//    a partial match (a not-full block with the same key, or with enable_partial_reuse the child
//    sharing the longest leading run of tokens, any child with copy_on_partial_reuse, else only an
//    unreferenced leaf) ends the walk: an unreferenced leaf is claimed as the request's own block,
//    otherwise its tokens are copied into a fresh block. Every other block is a fresh one. The
//    matched tokens are the prepopulated prompt length (LlmRequest::setPrepopulatedPromptLen).
//  - storeContextBlocks (the prompt's full blocks, first promptLen - 1 tokens) and, with reuse,
//    releaseBlocks -> storeBlocksForReuse (every block of the sequence, first numTokens - 1 tokens,
//    the last key possibly short) insert the sequence's blocks into the tree (storeBlocks: matched
//    keys are walked, the first unmatched block and all after it are inserted); releaseBlocks then
//    drops one reference from each block, last block first, and queues those left unreferenced.
//  - Statistics as WindowBlockManager counts them: mReusedBlocks, mMissedBlocks, mAllocTotalBlocks,
//    mAllocNewBlocks, mReusedTokens, mTotalInputTokens (logged by ~WindowBlockManager: "cache hit
//    rate" = reused / (reused + missed), "reused tokens percentage" = reused / input tokens).
// One difference, stated: getFreeBlock's freeChildren claims a taken block's descendants out of the
// free queue; kvplan leaves an unreferenced descendant in the queue (unlinked, no longer reusable),
// so the pool never loses a block. Upstream's queue order makes a taken block a leaf in practice.
#include <cstdint>
#include <list>
#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace kvplan::detail {

class TrtBlockManager {
 public:
  using Tokens = std::span<const std::uint64_t>;

  TrtBlockManager(std::uint64_t num_blocks, std::uint64_t tokens_per_block, bool reuse, bool partial_reuse,
                  bool copy_on_partial_reuse);

  // KVCacheManager::addSequence for sequence `seq`: the blocks of its first `input_length` tokens
  // (tokens: the request's tokens, at least input_length of them with reuse; unread without).
  // Returns the prepopulated prompt length (0 without reuse).
  std::uint64_t add_sequence(std::uint32_t seq, Tokens tokens, std::uint64_t input_length);
  // WindowBlockManager::allocateBlock: one more block for a generation step.
  void allocate_block(std::uint32_t seq);
  // KVCacheManager::storeContextBlocks (with reuse only): `prompt` is the request's prompt.
  void store_context_blocks(std::uint32_t seq, Tokens prompt);
  // KVCacheManager::removeSequence: `tokens` are the request's tokens so far (prompt and generated).
  void remove_sequence(std::uint32_t seq, Tokens tokens);
  // WindowBlockManager::findNewContextBlock: the key of the first full block of `tokens` (chopped
  // without a partial block) that is not in the tree, as a hash of every token up to its end;
  // nullopt when all of them are.
  std::optional<std::uint64_t> find_new_context_block(Tokens tokens) const;

  bool reuse() const { return reuse_; }
  std::uint64_t num_blocks() const { return num_blocks_; }
  std::uint64_t free_blocks() const { return free_.size(); }               // getNumFreeBlocks
  std::uint64_t used_blocks() const { return num_blocks_ - free_.size(); }  // blocks with a reference
  std::uint64_t cached_free_blocks() const { return tree_free_; }         // free and still reusable
  std::uint64_t held(std::uint32_t seq) const { return seq < seqs_.size() ? seqs_[seq].size() : 0; }
  const std::vector<std::uint32_t>& block_ids(std::uint32_t seq) const { return seqs_.at(seq); }
  std::uint32_t ref_count(std::uint32_t block) const { return blocks_.at(block).ref; }
  // The free queue, front (taken next) first.
  std::vector<std::uint32_t> free_queue() const { return {free_.begin(), free_.end()}; }

  // WindowBlockManager's counters.
  std::uint64_t reused_blocks = 0, missed_blocks = 0, alloc_total_blocks = 0, alloc_new_blocks = 0;
  std::uint64_t reused_tokens = 0, total_input_tokens = 0;

 private:
  static constexpr std::uint32_t kNone = UINT32_MAX;
  using ChildKey = std::pair<std::uint64_t, std::uint64_t>;  // (first token, key hash)
  struct Block {
    std::vector<std::uint64_t> key;  // mBlockKey.uniqueTokens
    std::uint64_t key_hash = 0;
    bool full = false;               // mIsFull
    std::uint32_t ref = 0;           // mRefCount
    std::uint32_t parent = kNone;    // mPrevBlock: in the tree when set (the root is index num_blocks_)
    std::map<ChildKey, std::uint32_t> next;  // mNextBlocks
    bool free = false;
    std::list<std::uint32_t>::iterator free_it;
  };
  struct Match {
    bool partial = false;
    std::uint64_t matched = 0;
    std::uint32_t block = kNone;
  };

  static std::uint64_t hash_key(Tokens key);
  std::vector<std::vector<std::uint64_t>> chop(Tokens tokens, std::uint64_t usable, bool allow_partial) const;
  Match find_matching_block(std::uint32_t node, Tokens key, bool partial_reuse, bool copy_on_partial) const;
  std::uint32_t get_free_block();
  void claim(std::uint32_t b);          // LRUEvictionPolicy::claimBlock
  void release(std::uint32_t b);        // LRUEvictionPolicy::releaseBlock (to the back)
  void unlink(std::uint32_t b);         // KVCacheBlock::freeLeafBlock
  void unlink_subtree(std::uint32_t b); // freeChildren's descendants (see above)
  void link(std::uint32_t parent, std::uint32_t b);
  void add_to_seq(std::uint32_t seq, std::uint32_t b);
  void store_blocks(const std::vector<std::vector<std::uint64_t>>& keys, const std::vector<std::uint32_t>& ids);

  std::uint64_t num_blocks_, tpb_;
  bool reuse_, partial_reuse_, copy_on_partial_;
  std::vector<Block> blocks_;  // num_blocks_ blocks, then the root
  std::list<std::uint32_t> free_;
  std::uint64_t tree_free_ = 0;
  std::vector<std::vector<std::uint32_t>> seqs_;
};

}  // namespace kvplan::detail
