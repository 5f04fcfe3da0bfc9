// kvplan simulate --engine trtllm: TensorRT-LLM's CapacityScheduler (GUARANTEED_NO_EVICT,
// MAX_UTILIZATION), MicroBatchScheduler and paged pool. Scenarios ported from TensorRT-LLM's own
// tests cite the test (path@commit) and assert its outcomes; the others say what they derive from.
#include <cmath>

#include "helpers.h"
#include "simulate_helpers.h"
#include "kvplan/engines.h"
#include "kvplan/simulate.h"
#include "simulate/trtllm_block_manager.h"
#include "simulate/trtllm_sim.h"

using namespace kvplan;
using kvplan::test::HasMessage;

namespace sim_trtllm_test {  // named: the tests are a unity build
using kvplan::test::h100;
using kvplan::test::unit_steps;

// The pool a test states (kvCacheMaxNumTokens / tokensPerBlock blocks, kvCacheMaxNumTokensPerSeq),
// built by hand as getKvCacheManager builds it in capacitySchedulerTest.cpp.
TrtllmResult pool(std::uint64_t max_num_tokens, std::uint64_t tokens_per_block, std::uint64_t max_tokens_per_seq) {
  TrtllmResult r;
  r.blocks = max_num_tokens / tokens_per_block;
  r.max_tokens = r.blocks * tokens_per_block;
  r.max_seq_len = max_tokens_per_seq;
  r.max_concurrency = static_cast<double>(r.blocks) / static_cast<double>((max_tokens_per_seq + tokens_per_block - 1) / tokens_per_block);
  return r;
}
// Block reuse as the test's KV cache manager has it: getKvCacheManager's enableReuse (false unless
// the test passes true).
SimOptions trt_options(std::uint64_t tokens_per_block, std::uint64_t max_batch, TrtllmCapacityPolicy policy,
                       bool reuse = false) {
  SimOptions o;
  o.engine_kind = EngineKind::trtllm;
  o.trtllm.tokens_per_block = tokens_per_block;
  o.trtllm.max_batch_size = max_batch;
  o.trtllm_scheduler.policy = policy;
  o.trtllm_scheduler.enable_block_reuse = reuse;
  o.step_time = unit_steps();
  return o;
}
using kvplan::test::sim_request;
struct Run {
  SimResult r;
  std::vector<SimStep> steps;
};
Run run(const TrtllmResult& p, SimOptions o, std::vector<SimRequest> reqs) {
  Run out;
  o.on_step = [&](const SimStep& s) { out.steps.push_back(s); };
  detail::TrtllmSimulator s(p, o, detail::StepTimer(o.step_time));
  detail::Source src(std::move(reqs));
  out.r = s.run(src);
  return out;
}
// Llama-3.1-8B (bf16, 32 layers x 8 KV heads x 128 x 2 x 2 bytes = 131072 bytes per token) with a
// KV budget of exactly `blocks` blocks of 32 tokens, max_seq_len 4096.
SimOptions llama_options(std::uint64_t blocks, TrtllmCapacityPolicy policy = TrtllmCapacityPolicy::guaranteed_no_evict) {
  SimOptions o;
  o.engine_kind = EngineKind::trtllm;
  o.trtllm.max_seq_len = 4096;
  o.trtllm.kv_memory_bytes = blocks * 32 * 131072;
  o.trtllm_scheduler.policy = policy;
  o.step_time = unit_steps();
  return o;
}
using Tok = std::vector<std::uint64_t>;
Tok iota_tokens(std::uint64_t n, std::uint64_t from = 0) {
  Tok t(n);
  for (std::uint64_t i = 0; i < n; ++i) t[i] = from + i;
  return t;
}
std::vector<std::uint32_t> ids(std::initializer_list<std::uint32_t> l) { return l; }
}  // namespace sim_trtllm_test
namespace T = sim_trtllm_test;

BOOST_AUTO_TEST_SUITE(simulate_trtllm)

using Policy = TrtllmCapacityPolicy;

// ---- NVIDIA/TensorRT-LLM cpp/tests/unit_tests/batch_manager/capacitySchedulerTest.cpp
//      @02a10fed0dbf5db74c7da035be9c5fbef6d2df7a (runTest: one iteration = one step; a request's
//      context step yields its first token).

// SimpleShouldFit: 200 tokens in blocks of 10, 90 tokens per sequence, maxNumRequests 2; two
// requests of prompt 10 and 80 new tokens run together from iteration 0 to 80, under
// GUARANTEED_NO_EVICT and MAX_UTILIZATION alike; 80 iterations.
BOOST_AUTO_TEST_CASE(trtllm_simple_should_fit) {
  for (Policy p : {Policy::guaranteed_no_evict, Policy::max_utilization}) {
    BOOST_TEST_CONTEXT("policy " << static_cast<int>(p)) {
      const T::Run x = T::run(T::pool(200, 10, 90), T::trt_options(10, 2, p), {T::sim_request(10, 80), T::sim_request(10, 80)});
      BOOST_TEST(x.r.steps == 80u);
      BOOST_TEST(x.r.finished == 2u);
      BOOST_TEST(x.r.preemptions == 0u);
      for (const SimStep& s : x.steps) BOOST_TEST(s.scheduled_requests == 2u);
      // 10 + 79 tokens in the cache at the last step: 9 blocks each.
      BOOST_TEST(x.r.peak_blocks == 18u);
      BOOST_TEST(x.r.num_blocks == 20u);
    }
  }
}

// SimpleDoesntFitMaxUtilization: 100 tokens (10 blocks), same requests. Up to iteration 41 both
// run; at 41 the pool is out of blocks and request 1 is paused, request 0 runs alone until 80;
// request 1 resumes with prompt 51 (10 + its 41 tokens) and 39 new tokens; 119 iterations.
BOOST_AUTO_TEST_CASE(trtllm_simple_doesnt_fit_max_utilization) {
  const T::Run x = T::run(T::pool(100, 10, 90), T::trt_options(10, 2, Policy::max_utilization),
                          {T::sim_request(10, 80), T::sim_request(10, 80)});
  BOOST_TEST(x.r.steps == 119u);
  BOOST_REQUIRE(x.steps.size() == 119u);
  for (std::size_t i = 0; i < 41; ++i) BOOST_TEST(x.steps[i].scheduled_requests == 2u);
  BOOST_TEST(x.steps[40].blocks_used == 10u);  // 2 x ceil(50 / 10)
  BOOST_TEST(x.steps[41].preemptions == 1u);
  for (std::size_t i = 41; i < 119; ++i) BOOST_TEST(x.steps[i].scheduled_requests == 1u);
  BOOST_TEST(x.steps[80].prefill_tokens == 51u);  // request 1's recomputed context
  BOOST_TEST(x.r.preemptions == 1u);
  BOOST_TEST(x.r.finished == 2u);
  BOOST_TEST(x.r.output_tokens == 160u);
  BOOST_TEST(x.r.e2e_s.max == 119.0);
}

// The same pool under GUARANTEED_NO_EVICT (derived from GuaranteedNoEvictScheduler::impl, not a
// ported test): each request reserves ceil(90 / 10) = 9 of the 10 blocks to completion, so the
// second waits for the first: 80 + 80 steps, one running, nothing paused.
BOOST_AUTO_TEST_CASE(trtllm_guaranteed_no_evict_waits_instead) {
  const T::Run x = T::run(T::pool(100, 10, 90), T::trt_options(10, 2, Policy::guaranteed_no_evict),
                          {T::sim_request(10, 80), T::sim_request(10, 80)});
  BOOST_TEST(x.r.steps == 160u);
  BOOST_TEST(x.r.peak_running == 1u);
  BOOST_TEST(x.r.preemptions == 0u);
  BOOST_TEST(x.r.peak_blocks == 9u);
}

// ---- NVIDIA/TensorRT-LLM cpp/tests/unit_tests/batch_manager/microBatchSchedulerTest.cpp
//      @02a10fed0dbf5db74c7da035be9c5fbef6d2df7a (forward: one iteration = one step), with a pool
//      large enough that the capacity scheduler never limits.

// SimpleNoOverlap: maxBatchSize 2, four requests of prompt 10 and 80 new tokens: requests 0 and 1
// in iterations 0-79, requests 2 and 3 in 80-159, nothing after.
BOOST_AUTO_TEST_CASE(trtllm_micro_batch_simple_no_overlap) {
  const T::Run x = T::run(T::pool(10000, 10, 1000), T::trt_options(10, 2, Policy::guaranteed_no_evict),
                          std::vector<SimRequest>(4, T::sim_request(10, 80)));
  BOOST_TEST(x.r.steps == 160u);
  for (const SimStep& s : x.steps) BOOST_TEST(s.scheduled_requests == 2u);
  BOOST_TEST(x.steps[0].prefill_tokens == 20u);
  BOOST_TEST(x.steps[80].prefill_tokens == 20u);  // 2 and 3 start when 0 and 1 are done
  BOOST_TEST(x.steps[79].decode_tokens == 2u);
  BOOST_TEST(x.r.e2e_s.max == 160.0);
}

// SimpleMaxNumTokensBW1: maxNumTokens 12, maxBatchSize 4, four requests of prompt 10 and 10 new
// tokens: 1, 2, 3 requests in iterations 0-2; 3 in 3-9 (1 context + 3 generation would be 13
// tokens); at 10 request 0 is done and 3 enters (3 requests); at 11 request 1 is done (2); all done
// by iteration 20.
BOOST_AUTO_TEST_CASE(trtllm_micro_batch_simple_max_num_tokens_bw1) {
  SimOptions o = T::trt_options(10, 4, Policy::guaranteed_no_evict);
  o.trtllm_scheduler.max_num_tokens = 12;
  const T::Run x = T::run(T::pool(10000, 10, 1000), o, std::vector<SimRequest>(4, T::sim_request(10, 10)));
  BOOST_REQUIRE(x.steps.size() >= 12u);
  for (std::size_t it = 0; it < 3; ++it) BOOST_TEST(x.steps[it].scheduled_requests == it + 1);
  for (std::size_t it = 3; it < 10; ++it) BOOST_TEST(x.steps[it].scheduled_requests == 3u);
  BOOST_TEST(x.steps[3].prefill_tokens == 0u);
  BOOST_TEST(x.steps[10].scheduled_requests == 3u);
  BOOST_TEST(x.steps[10].prefill_tokens == 10u);  // request 3's context
  BOOST_TEST(x.steps[11].scheduled_requests == 2u);
  BOOST_TEST(x.r.steps == 20u);  // iterations 0-19
  BOOST_TEST(x.r.finished == 4u);
}

// MicroBatchScheduler (derived from microBatchScheduler.cpp, not a ported test): without chunked
// context a context request costs its whole prompt and the batch stops at the first that would
// pass max_num_tokens; with it, contexts share what is left first come first served, a partial
// chunk rounded down to a multiple of tokens_per_block (8192 - 6000 = 2192 -> 2176).
BOOST_AUTO_TEST_CASE(trtllm_max_num_tokens_per_step) {
  SimOptions o = T::trt_options(32, 64, Policy::guaranteed_no_evict);
  const TrtllmResult p = T::pool(1 << 20, 32, 16384);
  const std::vector<SimRequest> three(3, T::sim_request(3000, 4));
  const T::Run plain = T::run(p, o, three);
  BOOST_TEST(plain.steps[0].prefill_tokens == 6000u);
  BOOST_TEST(plain.steps[1].prefill_tokens == 3000u);
  BOOST_TEST(plain.steps[1].decode_tokens == 2u);
  o.trtllm_scheduler.enable_chunked_context = true;
  const T::Run chunked = T::run(p, o, three);
  BOOST_TEST(chunked.steps[0].prefill_tokens == 8176u);
  BOOST_TEST(chunked.steps[1].prefill_tokens == 824u);
  BOOST_TEST(chunked.steps[1].decode_tokens == 2u);
  // A prompt over max_num_tokens is refused when chunked context is off.
  o.trtllm_scheduler.enable_chunked_context = false;
  BOOST_TEST(T::run(p, o, {T::sim_request(8193, 4)}).r.rejected == 1u);
  // max_batch_size bounds the batch.
  o.trtllm.max_batch_size = 1;
  BOOST_TEST(T::run(p, o, three).r.peak_running == 1u);
}

// Consistency: N identical requests of prompt + output = max_seq_len reach exactly `kvplan engine
// trtllm`'s max concurrency (blocks / ceil(max_seq_len / tokens_per_block)) under
// GUARANTEED_NO_EVICT, which reserves exactly that; one token more is refused.
BOOST_AUTO_TEST_CASE(trtllm_identical_requests_reach_the_engine_concurrency) {
  const ModelSpec m = load_model("meta-llama/Llama-3.1-8B");
  const SimOptions o = T::llama_options(1280);
  const TrtllmResult prof = trtllm_profile(m, o.trtllm);
  BOOST_TEST(prof.blocks == 1280u);
  BOOST_TEST(prof.max_concurrency == 10.0);
  const SimResult r = kvplan::simulate(m, T::h100(), o, std::vector<SimRequest>(11, T::sim_request(1000, 3096)));
  BOOST_TEST(r.engine == "trtllm");
  BOOST_TEST(r.rejected == 0u);
  BOOST_TEST(r.peak_running == 10u);
  BOOST_TEST(r.preemptions == 0u);
  BOOST_TEST(r.finished == 11u);
  BOOST_TEST(r.peak_blocks <= r.num_blocks);
  BOOST_TEST(r.num_blocks == 1280u);
  BOOST_TEST(kvplan::simulate(m, T::h100(), o, std::vector<SimRequest>{T::sim_request(1000, 3097)}).rejected == 1u);
  // MAX_UTILIZATION admits all 11 on their prompts' blocks and pauses when the pool runs out.
  const SimResult mu = kvplan::simulate(m, T::h100(), T::llama_options(1280, Policy::max_utilization),
                                        std::vector<SimRequest>(11, T::sim_request(1000, 3096)));
  BOOST_TEST(mu.peak_running == 11u);
  BOOST_TEST(mu.preemptions > 0u);
  BOOST_TEST(mu.finished == 11u);
  BOOST_TEST(mu.peak_blocks <= mu.num_blocks);
}

// Without a GPU or a KV budget the engine profile's own error, not a guess.
BOOST_AUTO_TEST_CASE(trtllm_without_memory_is_one_clear_error) {
  const ModelSpec m = load_model("meta-llama/Llama-3.1-8B");
  SimOptions o;
  o.engine_kind = EngineKind::trtllm;
  o.step_time = T::unit_steps();
  BOOST_CHECK_EXCEPTION(kvplan::simulate(m, T::h100(), o, std::vector<SimRequest>{T::sim_request(10, 1)}), InputError,
                        HasMessage({"TensorRT-LLM memory"}));
}

BOOST_AUTO_TEST_CASE(trtllm_deterministic_for_a_seed) {
  const ModelSpec m = load_model("meta-llama/Llama-3.1-8B");
  for (Policy p : {Policy::guaranteed_no_evict, Policy::max_utilization}) {
    SimOptions o = T::llama_options(2000, p);
    o.step_time = StepTimeModel{};
    const std::string spec = "rate=4 requests=200 prompt=uniform:100:2000 output=normal:200:50 system_prompt=300 turns=2 think=1";
    const auto a = to_json(kvplan::simulate(m, T::h100(), o, parse_workload_spec(spec + " seed=1")));
    const auto b = to_json(kvplan::simulate(m, T::h100(), o, parse_workload_spec(spec + " seed=1")));
    const auto c = to_json(kvplan::simulate(m, T::h100(), o, parse_workload_spec(spec + " seed=2")));
    BOOST_TEST(a.dump() == b.dump());
    BOOST_TEST(a.dump() != c.dump());
    BOOST_TEST(a["engine"] == "trtllm");
  }
}

// Little's law L = lambda x W on long steady runs, both policies: within 1 %.
BOOST_AUTO_TEST_CASE(trtllm_littles_law) {
  const ModelSpec m = load_model("meta-llama/Llama-3.1-8B");
  for (Policy p : {Policy::guaranteed_no_evict, Policy::max_utilization}) {
    BOOST_TEST_CONTEXT("policy " << static_cast<int>(p)) {
      SimOptions o = T::llama_options(2000, p);
      o.step_time = StepTimeModel{};
      const WorkloadSpec w = parse_workload_spec("rate=8 requests=3000 prompt=lognormal:512:0.6 output=lognormal:128:0.6 seed=3");
      const SimResult r = kvplan::simulate(m, T::h100(), o, w);
      BOOST_TEST(r.finished + r.rejected == 3000u);
      const double lambda_w = r.arrival_rate_per_s * r.e2e_s.mean;
      BOOST_TEST(std::fabs(r.mean_in_system - lambda_w) / lambda_w < 0.01);
      BOOST_TEST(r.peak_blocks <= r.num_blocks);
    }
  }
}

// NVIDIA/TensorRT-LLM cpp/tests/unit_tests/batch_manager/microBatchSchedulerTest.cpp
// @02a10fed0dbf5db74c7da035be9c5fbef6d2df7a runs its context-chunking cases under both
// ContextChunkingPolicy values; kvplan simulates kFIRST_COME_FIRST_SERVED only, so
// scheduler_config.context_chunking_policy: EQUAL_PROGRESS is refused naming the setting (it used to
// run as first come first served), and FIRST_COME_FIRST_SERVED runs.
BOOST_AUTO_TEST_CASE(trtllm_equal_progress_is_refused) {
  SimOptions o = T::trt_options(10, 4, Policy::guaranteed_no_evict);
  o.trtllm_scheduler.enable_chunked_context = true;
  const TrtllmResult p = T::pool(200, 10, 90);
  BOOST_TEST(T::run(p, o, {T::sim_request(20, 5)}).r.finished == 1u);
  o.trtllm_scheduler.context_chunking = TrtllmSchedulerOptions::ContextChunking::equal_progress;
  BOOST_CHECK_EXCEPTION(T::run(p, o, {T::sim_request(20, 5)}), InputError, HasMessage({"context_chunking_policy", "EQUAL_PROGRESS"}));
}

// ---- KV block reuse (kv_cache_config.enable_block_reuse, TensorRT-LLM's default): the block
//      manager of trtllm_block_manager.h, after kvCacheManager.cpp @002ba6a7cc5eb28f180d45d4a91142d9d927a606.


// NVIDIA/TensorRT-LLM cpp/tests/unit_tests/batch_manager/kvCacheManagerTest.cpp
// @000a01de66f0eab4ab05640711f0253f50f5209c, KVCacheManagerTest.BlockManagerReuseTest: 8 blocks of 4
// tokens, partial reuse and copy on partial reuse on (BlockManager's defaults). Each stage's block
// ids, context position (the prepopulated prompt length) and free blocks are upstream's.
BOOST_AUTO_TEST_CASE(trtllm_block_manager_reuse_test) {
  using T::Tok;
  detail::TrtBlockManager bm(8, 4, true, true, true);
  BOOST_TEST(bm.free_blocks() == 8u);
  // [0..8]: nothing to reuse; blocks 0, 1, 2; two tokens generated, then stored and released.
  const Tok in0 = T::iota_tokens(9);
  BOOST_TEST(bm.add_sequence(0, in0, 9) == 0u);
  BOOST_TEST(bm.block_ids(0) == T::ids({0, 1, 2}));
  BOOST_TEST(bm.free_blocks() == 5u);
  bm.remove_sequence(0, T::iota_tokens(11));
  BOOST_TEST(bm.free_blocks() == 8u);
  // The same prompt: blocks 0 and 1 reused (position 8), a new block 3; block 3 matches block 2 on
  // release and is freed.
  BOOST_TEST(bm.add_sequence(1, in0, 9) == 8u);
  BOOST_TEST(bm.block_ids(1) == T::ids({0, 1, 3}));
  BOOST_TEST(bm.free_blocks() == 5u);
  bm.remove_sequence(1, T::iota_tokens(11));
  BOOST_TEST(bm.free_blocks() == 8u);
  // [0..9]: 0, 1 and 2 partially ([8] of [8, 9]): position 9 = promptLen - 1.
  BOOST_TEST(bm.add_sequence(0, T::iota_tokens(10), 10) == 9u);
  BOOST_TEST(bm.block_ids(0) == T::ids({0, 1, 2}));
  BOOST_TEST(bm.free_blocks() == 5u);
  // [0..10] meanwhile: 0 and 1 shared, a new block 4.
  BOOST_TEST(bm.add_sequence(1, T::iota_tokens(11), 11) == 8u);
  BOOST_TEST(bm.block_ids(1) == T::ids({0, 1, 4}));
  BOOST_TEST(bm.free_blocks() == 4u);
  BOOST_TEST(bm.ref_count(0) == 2u);
  bm.remove_sequence(0, T::iota_tokens(10));
  BOOST_TEST(bm.free_blocks() == 5u);
  Tok t1 = T::iota_tokens(11);
  t1.push_back(10);
  bm.remove_sequence(1, t1);
  BOOST_TEST(bm.free_blocks() == 8u);
  // [0..4]: block 0, a new block 5 (the empty key of the separated last token).
  BOOST_TEST(bm.add_sequence(2, T::iota_tokens(5), 5) == 4u);
  BOOST_TEST(bm.block_ids(2) == T::ids({0, 5}));
  BOOST_TEST(bm.free_blocks() == 6u);
  // [0..9, 11]: 0, 1 and 4 ([8, 9], not full): position 10; block 0 shared with the request above.
  Tok in3 = T::iota_tokens(10);
  in3.push_back(11);
  BOOST_TEST(bm.add_sequence(3, in3, 11) == 10u);
  BOOST_TEST(bm.block_ids(3) == T::ids({0, 1, 4}));
  BOOST_TEST(bm.free_blocks() == 4u);
  Tok t2 = T::iota_tokens(5);
  t2.push_back(5);
  bm.remove_sequence(2, t2);
  Tok t3 = in3;
  t3.push_back(11);
  bm.remove_sequence(3, t3);
  BOOST_TEST(bm.free_blocks() == 8u);
  // [0..9, 12]: 0, 1, 4 (position 10); released as [0..8]: blocks 0 and 1 stay stored, block 4 is freed.
  Tok in4 = T::iota_tokens(10);
  in4.push_back(12);
  BOOST_TEST(bm.add_sequence(4, in4, 11) == 10u);
  BOOST_TEST(bm.block_ids(4) == T::ids({0, 1, 4}));
  BOOST_TEST(bm.free_blocks() == 5u);
  bm.remove_sequence(4, T::iota_tokens(9));
  BOOST_TEST(bm.free_blocks() == 8u);
  // Again: no discarded token is reused; 0, 1, 2 ([8] of block 2), position promptLen - 2 = 9.
  BOOST_TEST(bm.add_sequence(4, in4, 11) == 9u);
  BOOST_TEST(bm.block_ids(4) == T::ids({0, 1, 2}));
  BOOST_TEST(bm.free_blocks() == 5u);
  bm.remove_sequence(4, in4);
  BOOST_TEST(bm.free_blocks() == 8u);
  // 31 zeros: the first token matches block 0's first token (copied: block 0 is not a leaf), so
  // position 1; every block of the pool is taken.
  const Tok zeros(31, 0);
  BOOST_TEST(bm.add_sequence(5, zeros, 31) == 1u);
  BOOST_TEST(bm.free_blocks() == 0u);
  bm.remove_sequence(5, Tok(32, 0));
  BOOST_TEST(bm.free_blocks() == 8u);
  // One token: the last input token is never reused.
  BOOST_TEST(bm.add_sequence(6, Tok{0}, 1) == 0u);
  BOOST_TEST(bm.free_blocks() == 7u);
  bm.remove_sequence(6, Tok{0, 0});
  BOOST_TEST(bm.free_blocks() == 8u);
}

// Without reuse (enable_block_reuse: false) nothing is stored or matched: the same prompt takes
// fresh blocks from the front of the queue (the LRU order), and the prepopulated length is 0.
BOOST_AUTO_TEST_CASE(trtllm_block_manager_without_reuse) {
  detail::TrtBlockManager bm(8, 4, false, true, true);
  const T::Tok in = T::iota_tokens(9);
  BOOST_TEST(bm.add_sequence(0, in, 9) == 0u);
  bm.remove_sequence(0, T::iota_tokens(11));
  BOOST_TEST(bm.add_sequence(1, in, 9) == 0u);
  BOOST_TEST(bm.block_ids(1) == T::ids({3, 4, 5}));
  BOOST_TEST(bm.reused_blocks == 0u);
  BOOST_TEST(bm.cached_free_blocks() == 0u);
}

// NVIDIA/TensorRT-LLM cpp/tests/unit_tests/batch_manager/capacitySchedulerTest.cpp
// @08c2acfa25d0fa1c9a06c008cdc6f03cf92a71c4, CapacitySchedulerTest.DelayDuplicateRequest: 200 tokens
// in blocks of 10, 50 per sequence, 3 requests at most, reuse on; three requests with the same
// 21-token prompt and 2 new tokens. Under MAX_UTILIZATION and GUARANTEED_NO_EVICT only request 0
// runs in iteration 0 (the others would write the block it is writing: beneficialToSkip); in 1 the
// two others reuse its 2 full blocks; 3 iterations; getNumReusedBlocks() == 21 / 10 x 2 = 4.
// (Derived, not asserted upstream: each of the two computes 21 - 20 = 1 prompt token.)
BOOST_AUTO_TEST_CASE(trtllm_delay_duplicate_request) {
  for (Policy p : {Policy::max_utilization, Policy::guaranteed_no_evict}) {
    BOOST_TEST_CONTEXT("policy " << static_cast<int>(p)) {
      const std::vector<SimRequest> three(3, T::sim_request(21, 2, 0, 1));
      const T::Run x = T::run(T::pool(200, 10, 50), T::trt_options(10, 3, p, true), three);
      BOOST_TEST(x.r.steps == 3u);
      BOOST_REQUIRE(x.steps.size() == 3u);
      BOOST_TEST(x.steps[0].scheduled_requests == 1u);
      BOOST_TEST(x.steps[0].prefill_tokens == 21u);
      BOOST_TEST(x.steps[1].scheduled_requests == 3u);
      BOOST_TEST(x.steps[1].prefill_tokens == 2u);
      BOOST_TEST(x.steps[1].decode_tokens == 1u);
      BOOST_TEST(x.steps[2].scheduled_requests == 2u);
      BOOST_TEST(x.r.reused_blocks == 4u);
      BOOST_TEST(x.r.missed_blocks == 5u);  // request 0's 3 blocks, one fresh last block each for 1 and 2
      BOOST_TEST(x.r.prefix_hit_tokens == 40u);
      BOOST_TEST(x.r.prefix_query_tokens == 63u);
      BOOST_TEST(x.r.prefix_caching);
      BOOST_TEST(x.r.finished == 3u);
    }
  }
  // Reuse off: all three start at once and compute their whole prompts (2 iterations).
  const T::Run off = T::run(T::pool(200, 10, 50), T::trt_options(10, 3, Policy::guaranteed_no_evict, false),
                            std::vector<SimRequest>(3, T::sim_request(21, 2, 0, 1)));
  BOOST_TEST(off.r.steps == 2u);
  BOOST_TEST(off.steps[0].scheduled_requests == 3u);
  BOOST_TEST(off.steps[0].prefill_tokens == 63u);
  BOOST_TEST(off.r.reused_blocks == 0u);
  BOOST_TEST(off.r.prefix_query_tokens == 0u);
  BOOST_TEST(!off.r.prefix_caching);
}

// capacitySchedulerTest.cpp @08c2acfa25d0fa1c9a06c008cdc6f03cf92a71c4,
// CapacitySchedulerTest.DelayDuplicateRequestChunked: 200 tokens in blocks of 10, 90 per sequence,
// 2 requests; two identical 50-token prompts, 40 new tokens, context chunks of 20 (here: chunked
// context with max_num_tokens 20). Request 1 waits while request 0's chunked context runs
// (iterations 0-2: prefillWithChunkedContextsAlreadyExecuting), joins in 3 reusing 4 blocks and
// finishes its context in that step; 43 iterations; getNumReusedBlocks() == 4.
BOOST_AUTO_TEST_CASE(trtllm_delay_duplicate_request_chunked) {
  for (Policy p : {Policy::guaranteed_no_evict, Policy::max_utilization}) {
    BOOST_TEST_CONTEXT("policy " << static_cast<int>(p)) {
      SimOptions o = T::trt_options(10, 2, p, true);
      o.trtllm_scheduler.enable_chunked_context = true;
      o.trtllm_scheduler.max_num_tokens = 20;
      const T::Run x = T::run(T::pool(200, 10, 90), o, std::vector<SimRequest>(2, T::sim_request(50, 40, 0, 1)));
      BOOST_TEST(x.r.steps == 43u);
      BOOST_REQUIRE(x.steps.size() == 43u);
      for (std::size_t i = 0; i < 3; ++i) BOOST_TEST(x.steps[i].scheduled_requests == 1u);
      BOOST_TEST(x.steps[0].prefill_tokens == 20u);
      BOOST_TEST(x.steps[2].prefill_tokens == 10u);
      BOOST_TEST(x.steps[3].scheduled_requests == 2u);
      BOOST_TEST(x.steps[3].prefill_tokens == 10u);  // 50 - 40 reused
      for (std::size_t i = 4; i < 42; ++i) BOOST_TEST(x.steps[i].decode_tokens == 2u);
      BOOST_TEST(x.steps[42].scheduled_requests == 1u);
      BOOST_TEST(x.r.reused_blocks == 4u);
    }
  }
}

// capacitySchedulerTest.cpp @08c2acfa25d0fa1c9a06c008cdc6f03cf92a71c4,
// CapacitySchedulerTest.DelayFiveRequestsComplicated: 1000 tokens in blocks of 10, 150 per
// sequence, 5 requests; two with prompts of their own (11 and 21 tokens), three sharing a system
// prompt (11, 21 and 31 tokens of one stream), 80 new tokens each. Iteration 0 runs 0, 1, 2; 1 adds
// 3; 2-79 all five; 80 requests 3 and 4; 81 request 4; 82 iterations; getNumReusedBlocks() == 3.
BOOST_AUTO_TEST_CASE(trtllm_delay_five_requests_complicated) {
  for (Policy p : {Policy::max_utilization, Policy::guaranteed_no_evict}) {
    BOOST_TEST_CONTEXT("policy " << static_cast<int>(p)) {
      const std::vector<SimRequest> reqs = {T::sim_request(11, 80), T::sim_request(21, 80), T::sim_request(11, 80, 0, 7),
                                            T::sim_request(21, 80, 0, 7), T::sim_request(31, 80, 0, 7)};
      const T::Run x = T::run(T::pool(1000, 10, 150), T::trt_options(10, 5, p, true), reqs);
      BOOST_TEST(x.r.steps == 82u);
      BOOST_REQUIRE(x.steps.size() == 82u);
      BOOST_TEST(x.steps[0].scheduled_requests == 3u);
      BOOST_TEST(x.steps[1].scheduled_requests == 4u);
      for (std::size_t i = 2; i < 80; ++i) BOOST_TEST(x.steps[i].scheduled_requests == 5u);
      BOOST_TEST(x.steps[80].scheduled_requests == 2u);
      BOOST_TEST(x.steps[81].scheduled_requests == 1u);
      BOOST_TEST(x.r.reused_blocks == 3u);
    }
  }
}

// Partial reuse, derived from loadOrAllocateBlocks / storeBlocksForReuse: a 1000-token prompt in
// blocks of 32 finishes with 10 output tokens; 1009 tokens are stored (31 full blocks and a
// 17-token block: 8 prompt, 9 output tokens). The same prompt again keys 999 tokens: 31 full blocks
// and [992, 999), 7 tokens that lead the stored 17-token block, an unreferenced leaf it takes over:
// 999 tokens reused, 1 computed, 32 blocks reused. Without partial reuse the 7 tokens find no
// block of their own: 992 reused, 31 blocks.
BOOST_AUTO_TEST_CASE(trtllm_partial_block_reuse) {
  const std::vector<SimRequest> two = {T::sim_request(1000, 10, 0, 1), T::sim_request(1000, 10, 100, 1)};
  const T::Run on = T::run(T::pool(32 * 100, 32, 2000), T::trt_options(32, 4, Policy::guaranteed_no_evict, true), two);
  BOOST_TEST(on.r.prefix_hit_tokens == 999u);
  BOOST_TEST(on.r.prefix_query_tokens == 2000u);
  BOOST_TEST(on.r.reused_blocks == 32u);
  BOOST_TEST(on.r.missed_blocks == 32u);
  BOOST_TEST(on.r.block_hit_rate == 0.5);
  BOOST_TEST(on.r.computed_prompt_tokens == 1001u);
  SimOptions o = T::trt_options(32, 4, Policy::guaranteed_no_evict, true);
  o.trtllm_scheduler.enable_partial_reuse = false;
  const T::Run whole = T::run(T::pool(32 * 100, 32, 2000), o, two);
  BOOST_TEST(whole.r.prefix_hit_tokens == 992u);
  BOOST_TEST(whole.r.reused_blocks == 31u);
  BOOST_TEST(whole.r.missed_blocks == 33u);
  BOOST_TEST(whole.r.computed_prompt_tokens == 1008u);
}

// LRU eviction (LRUEvictionPolicy), derived from getFreeBlock / loadOrAllocateBlocks: a free block
// keeps its tokens until it reaches the front of the queue. 10 blocks of 10 tokens; request A
// (prompt 40, 5 new tokens) ends holding blocks 0-4, stored and queued last block first behind the
// 5 never used ([5..9, 4, 3, 2, 1, 0]); then B (its own 50, 60 or 70 tokens, 1 new) takes the
// front 5, 6 or 7 of them, then C asks for A's prompt again: blocks 0-2 match and [30, 39) leads
// block 3's [30, 40). B = 50: block 3 still has a child (block 4), so its 9 tokens are copied into
// a fresh block: 39 reused. B = 60 took block 4: block 3 is an unreferenced leaf and is claimed:
// 39. B = 70 took block 3 too: 30.
BOOST_AUTO_TEST_CASE(trtllm_lru_eviction_of_free_blocks) {
  auto reused = [](std::uint64_t b_prompt) {
    const std::vector<SimRequest> reqs = {T::sim_request(40, 5, 0, 1), T::sim_request(b_prompt, 1, 10), T::sim_request(40, 1, 20, 1)};
    return T::run(T::pool(100, 10, 100), T::trt_options(10, 4, Policy::max_utilization, true), reqs).r.prefix_hit_tokens;
  };
  BOOST_TEST(reused(50) == 39u);
  BOOST_TEST(reused(60) == 39u);
  BOOST_TEST(reused(70) == 30u);
}

// Consistency: with reuse on, a shared system prompt is reused, never more blocks than the pool
// are held, and the hit counters agree with the prefill work saved (input tokens = computed +
// reused); reuse off computes more.
BOOST_AUTO_TEST_CASE(trtllm_reuse_accounting) {
  const ModelSpec m = load_model("meta-llama/Llama-3.1-8B");
  for (Policy p : {Policy::guaranteed_no_evict, Policy::max_utilization}) {
    BOOST_TEST_CONTEXT("policy " << static_cast<int>(p)) {
      SimOptions o = T::llama_options(600, p);
      o.trtllm_scheduler.enable_chunked_context = true;
      const WorkloadSpec w = parse_workload_spec("rate=20 requests=300 prompt=uniform:100:1500 output=uniform:10:200 system_prompt=640 seed=4");
      const SimResult r = kvplan::simulate(m, T::h100(), o, w);
      BOOST_TEST(r.finished + r.rejected == 300u);
      BOOST_TEST(r.peak_blocks <= r.num_blocks);
      BOOST_TEST(r.reused_blocks > 0u);
      // Each admission's input tokens are reused or computed; a context paused between chunks
      // (MAX_UTILIZATION) loses what it computed, and its re-admission counts its tokens again.
      if (p == Policy::guaranteed_no_evict) {
        BOOST_TEST(r.prefix_query_tokens == r.prompt_tokens);
        BOOST_TEST(r.prefix_hit_tokens + r.computed_prompt_tokens == r.prompt_tokens);
      } else {
        BOOST_TEST(r.prefix_hit_tokens + r.computed_prompt_tokens <= r.prefix_query_tokens);
      }
      o.trtllm_scheduler.enable_block_reuse = false;
      const SimResult off = kvplan::simulate(m, T::h100(), o, w);
      BOOST_TEST(off.prefix_hit_tokens == 0u);
      BOOST_TEST(off.computed_prompt_tokens > r.computed_prompt_tokens);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
