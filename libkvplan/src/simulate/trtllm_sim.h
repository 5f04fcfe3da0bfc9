#pragma once
// TensorRT-LLM's batch manager as the simulator runs it. Private: the public API is kvplan/simulate.h.
//
// What is mirrored, and where it lives in TensorRT-LLM (NVIDIA/TensorRT-LLM @ 02a10fed0dbf5db74c7da035be9c5fbef6d2df7a,
// cpp/tensorrt_llm/batch_manager/; the PyTorch backend, tensorrt_llm/_torch/pyexecutor/scheduler.py, binds
// these same C++ schedulers: BindCapacityScheduler, BindMicroBatchScheduler):
//  - The paged pool (kvCacheManager.cpp): trtllm_profile's blocks of tokens_per_block tokens. A
//    request's first context chunk allocates the blocks of its whole prompt (addSequence); each
//    generation step adds a block when the token whose KV is written starts a new block
//    (getNeededBlocksOneStep); removeSequence frees them all.
//  - CapacityScheduler (capacityScheduler.cpp), at most max_batch_size requests:
//    GUARANTEED_NO_EVICT (GuaranteedNoEvictScheduler::impl): requests in generation first, each
//    reserving its remaining blocks to completion (ceil((prompt + max_new_tokens) / tokens_per_block)
//    minus the blocks it holds; NoEvictScheduledBlocksManager); then requests in context, in order,
//    each admitted only if its remaining blocks fit what is left, stopping at the first that does not.
//    MAX_UTILIZATION (MaxUtilizationScheduler): requests in order, each scheduled if the blocks it
//    needs for one step fit the free blocks; when one does not, the last started request (in
//    generation, or in a later context chunk) is paused (its blocks freed) and the request tried
//    again. A paused request keeps its place; its generated tokens join its prompt and its
//    max_new_tokens shrinks by as many (LlmRequest::pause), so it is recomputed.
//  - MicroBatchScheduler (microBatchScheduler.cpp): over the capacity scheduler's requests, in order,
//    at most max_batch_size; a generation request costs one token, a context request its remaining
//    prompt, stopping at the first that would pass max_num_tokens; with chunked context the context
//    requests share what generation leaves, first come first served, a chunk short of the rest of a
//    prompt rounded down to a multiple of tokens_per_block (setCtxRequestsChunkSize, kFIRST_COME_FIRST_SERVED).
//  - KV block reuse (kv_cache_config.enable_block_reuse, on by default; trtllm_block_manager.h): the
//    blocks a request's first context chunk finds in the radix tree are shared or claimed and its
//    prepopulated prompt length skips their tokens (LlmRequest::setPrepopulatedPromptLen: the context
//    position advances, a chunk that no longer reaches the end of the prompt is cut back to a block
//    boundary); a finished context stores its full blocks (storeContextBlocks), a finished or paused
//    request all of them (removeSequence -> releaseBlocks). The capacity schedulers count free blocks
//    (cached ones included) and a request's blocks as without reuse (getRemainingBlocksToCompletion,
//    getNeededBlocksOneStep), and skip a first context chunk whose first new block another request
//    scheduled this step, or a chunked context still running, is about to write (capacityScheduler.cpp
//    beneficialToSkip, prefillWithChunkedContextsAlreadyExecuting).
// docs/simulate.md lists what is simplified.
#include <algorithm>
#include <deque>
#include <vector>

#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "kvplan/simulate.h"
#include "kvplan/units.h"
#include "simulate/sim_run.h"
#include "simulate/request_content.h"
#include "simulate/source.h"
#include "simulate/trtllm_block_manager.h"

namespace kvplan::detail {

struct TrtReq {
  SimRequest in;
  std::uint64_t user = 0, turn = 0;
  std::uint64_t prompt = 0;        // mPromptLen: grows by the generated tokens when paused
  std::uint64_t max_new = 0;       // mMaxNewTokens: what is left to generate
  std::uint64_t generated = 0;     // output tokens so far (all lives)
  std::uint64_t context_done = 0;  // prompt tokens computed in this life
  std::uint64_t kv_tokens = 0;     // tokens whose KV is in the cache
  std::uint64_t blocks = 0;        // blocks the sequence holds (shared ones included)
  std::vector<std::uint64_t> tokens;  // with block reuse: the request's token ids (prompt and output)
  bool generation = false, queued = false, done = false;
  double first_token = -1;
  bool started() const { return generation || context_done > 0; }
};

class TrtllmSimulator {
 public:
  TrtllmSimulator(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o);
  TrtllmSimulator(TrtllmResult profile, const SimOptions& o, StepTimer timer);

  static TrtllmResult checked_profile(const ModelSpec& m, const TrtllmOptions& e);

  static StepTimer timer_for(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o);

  std::uint64_t blocks_for(std::uint64_t tokens) const { return (tokens + tpb_ - 1) / tpb_; }
  // getRemainingBlocksToCompletion
  std::uint64_t remaining_blocks(const TrtReq& q) const;
  // getNeededBlocksOneStep
  std::uint64_t step_blocks(const TrtReq& q) const;

  void pause(std::uint32_t id);

  // CapacityScheduler: the fitting requests, in the order the policy lists them.
  void capacity(std::vector<std::uint32_t>& fit);

  struct Item {
    std::uint32_t id;
    std::uint64_t tokens;
  };
  // MicroBatchScheduler
  void micro_batch(const std::vector<std::uint32_t>& fit, std::vector<Item>& batch) const;

  SimResult run(Source& src);

  void fill_header(SimResult& r);

  void admit(Source& src, SimResult& r, RunRecorder& rec);

  // The token ids a request has so far (with block reuse).
  TrtBlockManager::Tokens tokens_of(const TrtReq& q, std::uint64_t n) const {
    return {q.tokens.data(), std::min<std::size_t>(n, q.tokens.size())};
  }
  // capacityScheduler.cpp beneficialToSkip for a request's first context chunk: true when its first
  // new context block is one `contributed` already holds (else it is added there).
  bool beneficial_to_skip(const TrtReq& q, std::vector<std::uint64_t>& contributed) const;
  // prefillWithChunkedContextsAlreadyExecuting
  std::vector<std::uint64_t> chunked_contexts_contributing() const;

  std::uint64_t last_turn_ = 0, layers_ = 0;

  SimOptions o_;
  TrtllmResult prof_;
  StepTimer timer_;
  std::uint64_t tpb_ = 1, max_batch_ = 1, max_tokens_ = 1;
  TrtBlockManager bm_;
  std::uint64_t preemptions_ = 0, preempted_step_ = 0, uid_ = 0, skipped_ = 0;
  SessionHistory sessions_;
  std::vector<Seg> segs_;
  std::vector<TrtReq> reqs_;
  std::vector<std::uint32_t> free_ids_;
  std::vector<std::uint32_t> active_;
};

}  // namespace kvplan::detail
