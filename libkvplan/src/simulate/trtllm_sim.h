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

namespace kvplan::detail {

struct TrtReq {
  SimRequest in;
  std::uint64_t user = 0, turn = 0;
  std::uint64_t prompt = 0;        // mPromptLen: grows by the generated tokens when paused
  std::uint64_t max_new = 0;       // mMaxNewTokens: what is left to generate
  std::uint64_t generated = 0;     // output tokens so far (all lives)
  std::uint64_t context_done = 0;  // prompt tokens computed in this life
  std::uint64_t kv_tokens = 0;     // tokens whose KV is in the cache
  std::uint64_t blocks = 0;
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

  std::uint64_t last_turn_ = 0, layers_ = 0;

  SimOptions o_;
  TrtllmResult prof_;
  StepTimer timer_;
  std::uint64_t tpb_ = 1, max_batch_ = 1, max_tokens_ = 1;
  std::uint64_t used_ = 0, preemptions_ = 0, preempted_step_ = 0;
  std::vector<TrtReq> reqs_;
  std::vector<std::uint32_t> free_ids_;
  std::vector<std::uint32_t> active_;
};

}  // namespace kvplan::detail
