// kvplan simulate --engine trtllm: TensorRT-LLM's CapacityScheduler (GUARANTEED_NO_EVICT,
// MAX_UTILIZATION), MicroBatchScheduler and paged pool. Scenarios ported from TensorRT-LLM's own
// tests cite the test (path@commit) and assert its outcomes; the others say what they derive from.
#include <cmath>

#include "helpers.h"
#include "simulate_helpers.h"
#include "kvplan/engines.h"
#include "kvplan/simulate.h"
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
SimOptions trt_options(std::uint64_t tokens_per_block, std::uint64_t max_batch, TrtllmCapacityPolicy policy) {
  SimOptions o;
  o.engine_kind = EngineKind::trtllm;
  o.trtllm.tokens_per_block = tokens_per_block;
  o.trtllm.max_batch_size = max_batch;
  o.trtllm_scheduler.policy = policy;
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

BOOST_AUTO_TEST_SUITE_END()
