// vLLM V1's scheduler and KV-cache allocator, step by step, over a workload.
//
// What is mirrored, and where it lives in vLLM (vllm-project/vllm, vllm/v1/core/):
//  - BlockPool (block_pool.py): num_blocks blocks, block 0 taken as the null block at start-up;
//    a doubly linked free queue (FreeKVCacheBlockQueue in kv_cache_utils.py) popped from the
//    head (least recently freed first) and appended at the tail; ref counts; the prefix cache
//    map from (block hash, group id) to blocks, entries dropped when a cached free block is
//    reused (_maybe_evict_cached_block); touch() takes a hit block back out of the free queue.
//  - SingleTypeKVCacheManager (single_type_kv_cache_manager.py): per-group block tables;
//    get_num_blocks_to_allocate (required - hit - held, plus hit blocks that sit in the free
//    queue); allocate_new_blocks; cache_blocks (full blocks only); free in reverse order so
//    tail blocks are evicted first. FullAttentionManager (also MLA) and SlidingWindowManager
//    (remove_skipped_blocks nulls and frees blocks wholly outside the window; the right-to-left
//    find_longest_cache_hit needing cdiv(window - 1, block_size) contiguous blocks);
//    ChunkedLocalAttentionManager's skipped blocks and cache hits (null before the current
//    chunk); MambaManager's per-request state blocks.
//  - KVCacheManager.allocate_slots / get_computed_blocks (kv_cache_manager.py) and the hybrid
//    coordinator's fixed-point cache-hit search (kv_cache_coordinator.py).
//  - Scheduler.schedule (sched/scheduler.py): running requests first, in order, with a token
//    budget of max_num_batched_tokens; when allocate_slots fails the LAST running request is
//    preempted (freed, num_computed_tokens = 0, put at the front of the waiting queue) until
//    the current one fits or is itself preempted; waiting requests (FCFS) only when nothing
//    was preempted this step, up to max_num_seqs running, with chunked prefill; a waiting
//    request is admitted only when its whole sequence's blocks fit (scheduler_reserve_full_isl,
//    allocate_slots(full_sequence_must_fit=True), sliding/chunked groups at their admission cap).
//  - update_from_output: a request whose computed tokens reach its length samples one token;
//    it finishes (and frees its blocks) at max_tokens.
// docs/simulate.md lists what is simplified.
#include "simulate/llamacpp_sim.h"
#include "simulate/sglang_sim.h"
#include "simulate/trtllm_sim.h"
#include "simulate/vllm_sim.h"

namespace kvplan {

using detail::Simulator;
using detail::Source;

namespace {
// The engines whose scheduler the simulator runs.
template <class Sim>
SimResult run_with(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o, Source& src, std::uint64_t last_turn) {
  Sim s(m, gpu, o);
  s.last_turn_ = last_turn;
  return s.run(src);
}

SimResult run_engine(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o, Source& src, std::uint64_t last_turn) {
  SimResult r;
  switch (o.engine_kind) {
    case EngineKind::vllm: r = run_with<Simulator>(m, gpu, o, src, last_turn); break;
    case EngineKind::sglang: r = run_with<detail::SglangSimulator>(m, gpu, o, src, last_turn); break;
    case EngineKind::llamacpp: r = run_with<detail::LlamaServerSimulator>(m, gpu, o, src, last_turn); break;
    case EngineKind::trtllm: r = run_with<detail::TrtllmSimulator>(m, gpu, o, src, last_turn); break;
    case EngineKind::ollama: throw InputError::value("--engine", "ollama", "vllm, sglang, llama.cpp or trtllm (Ollama is not simulated)");
  }
  r.model = m.name;
  r.gpu = gpu.name;
  return r;
}
}  // namespace

SimResult simulate(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o, std::vector<SimRequest> requests) {
  for (const auto& q : requests)
    if (!(q.arrival_s >= 0) || !std::isfinite(q.arrival_s))
      throw InputError::value("request arrival_s", std::to_string(q.arrival_s), "a non-negative number of seconds");
  std::stable_sort(requests.begin(), requests.end(), [](const SimRequest& a, const SimRequest& b) { return a.arrival_s < b.arrival_s; });
  Source src(std::move(requests));
  return run_engine(m, gpu, o, src, 0);
}

SimResult simulate(const ModelSpec& m, const Accelerator& gpu, const SimOptions& o, const WorkloadSpec& w) {
  Source src(w);
  return run_engine(m, gpu, o, src, w.turns > 1 ? w.turns : 0);
}

}  // namespace kvplan
