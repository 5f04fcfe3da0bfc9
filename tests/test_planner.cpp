// The planner: every expected value is derived by hand in the test (layers x heads x dims x bytes,
// the H100's 81,559 MiB, the seeds' figures), never copied from kvplan's output.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "helpers.h"
#include "kvplan/planner.h"
#include "kvplan/step_time.h"
#include "kvplan/request.h"
#include "kvplan/weights.h"

using namespace kvplan;
using kvplan::test::HasMessage;

namespace {

const ModelSpec& model(const std::string& id) {
  static std::map<std::string, ModelSpec> cache;
  auto it = cache.find(id);
  if (it == cache.end()) it = cache.emplace(id, load_model(id)).first;
  return it->second;
}

// The H100 SXM as nvidia-smi reports it: 81,559 MiB.
constexpr std::uint64_t kH100 = 81'559ull * 1024 * 1024;  // 85,520,809,984
// floor(kH100 x 0.9): usable memory at the default utilisation.
constexpr std::uint64_t kH100Usable = kH100 * 9 / 10;       // 76,968,728,985

PlanInput h100(std::uint64_t context, std::uint64_t concurrency) {
  PlanInput in;
  in.gpu = find_accelerator("H100");
  in.context = context;
  in.concurrency = concurrency;
  return in;
}

// Llama 3.1 8B with the seeds' illustrative weights (16 GB) and no reserved memory, so that
// free memory is exactly usable - 16e9.
PlanInput llama8b_simple(std::uint64_t context, std::uint64_t concurrency) {
  PlanInput in = h100(context, concurrency);
  in.weight_bytes = 16'000'000'000ull;
  in.reserved.override_bytes = 0;
  return in;
}

// Llama 3.1 70B parameters from its config (hidden 8192, 80 layers, 64/8 heads x 128, MLP
// 28672, vocab 128256, untied head): the seeds' "141 GB for the weights alone" in bf16.
constexpr std::uint64_t kLlama70bParams =
    2ull * 128256 * 8192 +                                                              // embedding + lm_head
    80ull * (8192ull * 8192 * 2 + 8192ull * 1024 * 2 + 3ull * 8192 * 28672 + 2 * 8192) +  // q,o + k,v + MLP + norms
    8192;                                                                               // final norm
// Llama 3.1 8B: hidden 4096, 32 layers, 32/8 heads x 128, MLP 14336.
constexpr std::uint64_t kLlama8bParams =
    2ull * 128256 * 4096 + 32ull * (4096ull * 4096 * 2 + 4096ull * 1024 * 2 + 3ull * 4096 * 14336 + 2 * 4096) + 4096;

}  // namespace

BOOST_AUTO_TEST_SUITE(planner)

BOOST_AUTO_TEST_CASE(seed_s4_llama70b_cache_and_weights) {
  const auto& m = model("meta-llama/Llama-3.1-70B");
  PlanInput in = h100(131072, 1);
  in.reserved.override_bytes = 2'000'000'000ull;
  const Plan p = plan(m, in);
  BOOST_TEST(p.cache_bytes_per_token == 2ull * 80 * 8 * 128 * 2);  // 327,680 B, "about 0.33 MB"
  BOOST_TEST(p.per_gpu.kv_bytes == 2ull * 80 * 8 * 128 * 2 * 131072);
  BOOST_TEST(std::llround(static_cast<double>(p.per_gpu.kv_bytes) / 1e9) == 43);  // "128k tokens = 43 GB"
  BOOST_TEST(kLlama70bParams == 70'553'706'496ull);
  BOOST_TEST(p.weights_total_bytes == kLlama70bParams * 2);           // 141.1 GB
  BOOST_TEST(std::llround(static_cast<double>(p.weights_total_bytes) / 1e9) == 141);
  // Cannot fit: weights 141.11 GB > usable minus 2 GB reserved; two shards would hold them.
  BOOST_TEST(!p.fits);
  const std::uint64_t room = kH100Usable - 2'000'000'000ull;  // 74.97 GB
  BOOST_TEST(ceil_div(kLlama70bParams * 2, room) == 2u);
  BOOST_TEST(p.reason.find("weights alone need 141.11 GB > " + format_gb(room) + " usable on H100-SXM-80GB") !=
             std::string::npos, p.reason);
  BOOST_TEST(p.reason.find("use at least 2 GPUs") != std::string::npos, p.reason);
  BOOST_TEST(p.per_gpu.shortfall_bytes == kLlama70bParams * 2 + 2'000'000'000ull + 2ull * 80 * 8 * 128 * 2 * 131072 - kH100Usable);
}

BOOST_AUTO_TEST_CASE(seed_s5_llama70b_without_gqa) {
  auto cfg = kvplan::test::read_json("model_configs/meta-llama__Llama-3.1-70B.json");
  cfg["num_key_value_heads"] = 64;
  const ModelSpec m = load_model_from_json(cfg.dump(), "llama70b-mha.json");
  PlanInput in = h100(131072, 1);
  const Plan p = plan(m, in);
  BOOST_TEST(p.cache_total_bytes == 2ull * 80 * 64 * 128 * 2 * 131072);  // 343,597,383,680 B
  BOOST_TEST(std::llround(static_cast<double>(p.cache_total_bytes) / 1e9) == 344);  // "344 GB"
  BOOST_TEST(p.cache_only_gpus_marketing == 5u);  // ceil(343.6 / 80)
}

BOOST_AUTO_TEST_CASE(seed_s11_roofline_crossover) {
  // 8B FP16 model, 16 GB of weights, 128 KiB of cache per token, one H100 at 3.35 TB/s.
  const auto& m = model("meta-llama/Llama-3.1-8B");
  const std::uint64_t per_token = 32ull * 2 * 8 * 128 * 2;  // 131,072 B
  Plan p = plan(m, llama8b_simple(4096, 1));
  BOOST_TEST(p.cache_bytes_per_token == per_token);
  // The calibrated step (kvplan/step_time.h, data/step_time.json): overheads + the memory term,
  // which outweighs the compute term at batch 1.
  const StepCalibration& c = default_step_calibration();
  const double overhead1 = c.step_overhead_s + 32 * c.layer_overhead_s + 1 * (c.token_overhead_s + c.seq_overhead_s);
  const double bw = c.bandwidth_fraction * 3.35e12;
  BOOST_TEST(p.decode_compute_seconds < p.decode_weight_seconds + p.decode_kv_seconds);
  BOOST_TEST(p.decode_step_seconds == overhead1 + (16e9 + 4096.0 * per_token) / bw, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(p.decode_tokens_per_second == 1 / (overhead1 + (16e9 + 4096.0 * per_token) / bw), boost::test_tools::tolerance(1e-12));
  BOOST_TEST(p.decode_step_seconds_slow == p.decode_step_seconds * c.slow_factor, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(p.decode_step_seconds_fast == p.decode_step_seconds * c.fast_factor, boost::test_tools::tolerance(1e-12));
  // 16e9 / 131,072 = 122,070.3 tokens: the 122,071st cached token is the first whose reads reach the weights'.
  BOOST_TEST(p.crossover_tokens == 122'071u);
  BOOST_TEST((p.crossover_tokens - 1) * per_token < 16'000'000'000ull);
  BOOST_TEST(p.crossover_tokens * per_token >= 16'000'000'000ull);
  // At 4,096 tokens each, the 30th conversation tips the balance: 29 x 4096 x 131072 < 16e9 < 30 x ...
  BOOST_TEST(29ull * 4096 * per_token < 16'000'000'000ull);
  BOOST_TEST(30ull * 4096 * per_token > 16'000'000'000ull);
  BOOST_TEST(p.crossover_concurrency == 30u);
  p = plan(m, llama8b_simple(4096, 30));
  BOOST_TEST(p.kv_bytes_read_per_step == 30ull * 4096 * per_token);
  BOOST_TEST(p.kv_bytes_read_per_step > p.weight_bytes_read_per_step);
  BOOST_TEST(p.decode_compute_seconds < p.decode_weight_seconds + p.decode_kv_seconds);
  BOOST_TEST(p.decode_step_seconds == c.step_overhead_s + 32 * c.layer_overhead_s + 30 * (c.token_overhead_s + c.seq_overhead_s) +
                                          (16e9 + 30.0 * 4096 * per_token) / bw,
             boost::test_tools::tolerance(1e-12));
  BOOST_TEST(p.decode_tokens_per_second_aggregate == 30.0 / p.decode_step_seconds, boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(seed_s12_gpus_the_cache_alone_takes) {
  // Llama 3.1 70B, 128k tokens, 15 conversations: 15 x 42,949,672,960 B = 644.2 GB.
  const auto& m = model("meta-llama/Llama-3.1-70B");
  const Plan p = plan(m, h100(131072, 15));
  const std::uint64_t cache = 15ull * 2 * 80 * 8 * 128 * 2 * 131072;
  BOOST_TEST(p.cache_total_bytes == cache);
  BOOST_TEST(p.cache_only_gpus_marketing == (cache + 80'000'000'000ull - 1) / 80'000'000'000ull);  // 9 at 80 GB
  BOOST_TEST(p.cache_only_gpus_marketing == 9u);
  BOOST_TEST(p.cache_only_gpus_device == 8u);  // 644.2 / 85.52 = 7.53
}

BOOST_AUTO_TEST_CASE(seed_s14_tp_splits_gqa_replicates_mla) {
  const auto& llama = model("meta-llama/Llama-3.1-70B");
  auto at_tp = [](const ModelSpec& m, std::uint64_t tp) {
    PlanInput in = h100(4096, 1);
    in.tp = tp;
    return plan(m, in);
  };
  BOOST_TEST(at_tp(llama, 1).cache_bytes_per_token == 2ull * 80 * 8 * 128 * 2);
  BOOST_TEST(at_tp(llama, 8).cache_bytes_per_token == 2ull * 80 * 1 * 128 * 2);   // one KV head per GPU
  BOOST_TEST(at_tp(llama, 16).cache_bytes_per_token == 2ull * 80 * 1 * 128 * 2);  // still one: replicated
  const auto& ds = model("deepseek-ai/DeepSeek-V3");
  BOOST_TEST(at_tp(ds, 1).cache_bytes_per_token == 61ull * (512 + 64) * 2);  // 70,272 B
  BOOST_TEST(at_tp(ds, 8).cache_bytes_per_token == 61ull * (512 + 64) * 2);  // every GPU holds all of it
}

BOOST_AUTO_TEST_CASE(tp_replication_llama8b_tp16_one_head_per_gpu) {
  const auto& m = model("meta-llama/Llama-3.1-8B");
  PlanInput in = h100(8192, 3);
  in.tp = 16;
  const Plan p = plan(m, in);
  BOOST_TEST(p.gpus == 16u);
  BOOST_TEST(p.cache_bytes_per_token == 32ull * 2 * 1 * 128 * 2);  // 16,384: 8 heads cannot split 16 ways
  BOOST_TEST(p.per_gpu.kv_bytes == 3ull * 8192 * 32 * 2 * 1 * 128 * 2);
  BOOST_TEST(p.per_gpu.weights_bytes == ceil_div(kLlama8bParams * 2, 16));
}

BOOST_AUTO_TEST_CASE(mla_replication_deepseek_v3_tp8) {
  const auto& m = model("deepseek-ai/DeepSeek-V3");
  PlanInput in = h100(4096, 2);
  in.gpu = find_accelerator("H200");
  in.tp = 8;
  const Plan p = plan(m, in);
  BOOST_TEST(p.per_gpu.kv_bytes == 2ull * 4096 * 61 * 576 * 2);  // 70,272 B/token on every GPU
  BOOST_TEST(p.per_gpu.state_bytes == 0u);
}

BOOST_AUTO_TEST_CASE(pp_uneven_default_split_busiest_stage_decides) {
  // vLLM's split puts the remainder on the stages before the last: 80 / 3 -> 27, 27, 26.
  BOOST_TEST(default_pp_split(80, 3) == (std::vector<std::uint64_t>{27, 27, 26}), boost::test_tools::per_element());
  BOOST_TEST(default_pp_split(61, 4) == (std::vector<std::uint64_t>{15, 15, 16, 15}), boost::test_tools::per_element());
  const auto& m = model("meta-llama/Llama-3.1-70B");
  PlanInput in = h100(32768, 4);
  in.pp = 3;
  Plan p = plan(m, in);
  BOOST_TEST(p.gpus == 3u);
  BOOST_TEST(p.busiest_stage == 0u);
  BOOST_TEST(p.per_gpu.kv_bytes == 27ull * (2 * 8 * 128 * 2) * 32768 * 4);
  BOOST_TEST(p.per_gpu.weights_bytes == ceil_div(kLlama70bParams * 2, 3));
  // DeepSeek-V3: 61 layers over 4 stages, the third holds 16.
  PlanInput ds = h100(4096, 1);
  ds.pp = 4;
  p = plan(model("deepseek-ai/DeepSeek-V3"), ds);
  BOOST_TEST(p.busiest_stage == 2u);
  BOOST_TEST(p.per_gpu.kv_bytes == 16ull * 576 * 2 * 4096);
}

BOOST_AUTO_TEST_CASE(pp_custom_split) {
  const auto& m = model("meta-llama/Llama-3.1-70B");
  PlanInput in = h100(16384, 2);
  in.pp = 3;
  in.pp_layers = {20, 30, 30};
  const Plan p = plan(m, in);
  BOOST_TEST(p.busiest_stage == 1u);
  BOOST_TEST(p.per_gpu.kv_bytes == 30ull * 4096 * 16384 * 2);
  in.pp_layers = {20, 30, 29};
  BOOST_CHECK_EXCEPTION(plan(m, in), InputError, HasMessage({"--pp-layers", "79 layers", "80 layers"}));
}

BOOST_AUTO_TEST_CASE(gpt_oss_128k_sliding_windows_hold_128) {
  // 24 layers alternate sliding (window 128) and full attention, 8 KV heads x 64.
  const auto& m = model("openai/gpt-oss-20b");
  PlanInput in = h100(131072, 1);
  in.k_dtype = in.v_dtype = Dtype::bf16;
  const Plan p = plan(m, in);
  const std::uint64_t row = 2ull * 8 * 64 * 2;  // 2,048 B per layer per token
  BOOST_TEST(p.per_gpu.kv_bytes == 12 * row * 131072 + 12 * row * 128);
  BOOST_TEST(p.cache_bytes_per_token == 24 * row);
}

BOOST_AUTO_TEST_CASE(qwen3_next_256_sequences_of_state) {
  // 36 gated-delta-net layers (16 K / 32 V heads x 128, conv 4) and 12 full layers (2 KV x 256).
  const auto& m = model("Qwen/Qwen3-Next-80B-A3B-Thinking");
  const std::uint64_t conv = 3ull * (2 * 16 * 128 + 32 * 128) * 2;  // 49,152 B
  const std::uint64_t ssm = 32ull * 128 * 128 * 2;                  // 1,048,576 B
  PlanInput in = h100(4096, 256);
  in.gpu = find_accelerator("B200");
  Plan p = plan(m, in);
  BOOST_TEST(p.per_gpu.state_bytes == 256ull * 36 * (conv + ssm));
  BOOST_TEST(p.per_gpu.kv_bytes == 256ull * 4096 * 12 * (2 * 2 * 256 * 2));
  in.tp = 2;  // heads split: half the state, one KV head each
  p = plan(m, in);
  BOOST_TEST(p.per_gpu.state_bytes == 256ull * 36 * (conv + ssm) / 2);
  BOOST_TEST(p.per_gpu.kv_bytes == 256ull * 4096 * 12 * (2 * 1 * 256 * 2));
}

BOOST_AUTO_TEST_CASE(prefix_sharing_stores_the_prefix_once) {
  const auto& m = model("meta-llama/Llama-3.1-8B");
  const std::uint64_t per_token = 32ull * 2 * 8 * 128 * 2;
  PlanInput in = llama8b_simple(4096, 10);
  in.shared_prefix_tokens = 1024;
  const Plan p = plan(m, in);
  BOOST_TEST(p.per_gpu.kv_bytes == per_token * (1024 + 10 * 3072));
  const std::uint64_t cache_budget = kH100Usable - 16'000'000'000ull;
  BOOST_TEST(p.max_concurrency == (cache_budget - per_token * 1024) / (per_token * 3072));
  // Each sequence still reads the prefix when it decodes.
  BOOST_TEST(p.kv_bytes_read_per_step == 10 * per_token * 4096);
}

BOOST_AUTO_TEST_CASE(prefix_sharing_outside_a_sliding_window_saves_nothing) {
  // gpt-oss at 4,096 tokens with a 1,024-token prefix: the full layers share it; the 128-token
  // windows hold positions 3968..4095, none of them in the prefix.
  const auto& m = model("openai/gpt-oss-20b");
  PlanInput in = h100(4096, 5);
  in.k_dtype = in.v_dtype = Dtype::bf16;
  in.shared_prefix_tokens = 1024;
  const Plan p = plan(m, in);
  const std::uint64_t row = 2ull * 8 * 64 * 2;
  BOOST_TEST(p.per_gpu.kv_bytes == 12 * row * (1024 + 5 * 3072) + 12 * row * 5 * 128);
}

BOOST_AUTO_TEST_CASE(fp8_halves_bf16) {
  const auto& m = model("meta-llama/Llama-3.1-70B");
  PlanInput in = h100(65536, 2);
  in.tp = 4;
  const Plan bf = plan(m, in);
  in.k_dtype = in.v_dtype = Dtype::fp8_e4m3;
  const Plan f8 = plan(m, in);
  BOOST_TEST(bf.per_gpu.kv_bytes == 2ull * 65536 * 80 * 2 * 2 * 128 * 2);
  BOOST_TEST(f8.per_gpu.kv_bytes == 2ull * 65536 * 80 * 2 * 2 * 128 * 1);
  BOOST_TEST(f8.max_concurrency >= 2 * bf.max_concurrency);
}

BOOST_AUTO_TEST_CASE(min_gpus_search_goes_across_nodes_at_full_tp) {
  // 16 x 128k tokens of Llama 3.1 70B cache (687.2 GB), no weights, all of each H100. One 8-GPU
  // node does not hold it (tp 8: 80 layers x 512 B x 131,072 x 16 = 85.9 GB > 85.5 GB a GPU), so
  // the layout is tp 8 within each node and one pipeline stage per node: 2 nodes, 40 layers a
  // stage, 42.9 GB a GPU. (Fewest GPUs would be tp 1 x pp 9, a pipeline inside one node.)
  const auto& m = model("meta-llama/Llama-3.1-70B");
  PlanInput in = h100(131072, 16);
  in.weight_bytes = 0;
  in.reserved.override_bytes = 0;
  in.utilization = 1.0;
  const std::uint64_t per_layer_tp8 = 2ull * 8 * 128 * 2 / 8;  // K+V, 8 KV heads split over 8 ranks
  BOOST_TEST(80ull * per_layer_tp8 * 131072 * 16 > kH100);
  BOOST_TEST(40ull * per_layer_tp8 * 131072 * 16 <= kH100);
  const Plan p = plan(m, in);
  BOOST_TEST(!p.fits);
  BOOST_TEST(p.min_gpus == 16u);
  BOOST_TEST(p.min_gpus_tp == 8u);
  BOOST_TEST(p.min_gpus_pp == 2u);
  BOOST_TEST(p.reason.find("it fits on 16 GPUs (tp 8, pp 2)") != std::string::npos, p.reason);
  BOOST_TEST(p.min_gpus_reason.find("pp 2 across 2 nodes") != std::string::npos, p.min_gpus_reason);
}

BOOST_AUTO_TEST_CASE(max_concurrency_and_max_context) {
  const auto& m = model("meta-llama/Llama-3.1-8B");
  const std::uint64_t per_token = 131072;
  const std::uint64_t budget = kH100Usable - 16'000'000'000ull;  // 60,968,728,985 B
  Plan p = plan(m, llama8b_simple(4096, 8));
  BOOST_TEST(p.fits);
  BOOST_TEST(p.max_concurrency == budget / (per_token * 4096));  // 113
  BOOST_TEST(p.max_concurrency == 113u);
  BOOST_TEST(p.max_context == budget / (per_token * 8));  // 58,144 tokens each
  BOOST_TEST(p.kv_capacity_tokens == budget / per_token);
  BOOST_TEST(p.per_gpu.free_bytes == budget - 8 * 4096 * per_token);
  p = plan(m, llama8b_simple(4096, 114));
  BOOST_TEST(!p.fits);
  BOOST_TEST(p.reason.find("at most 113 sequences fit") != std::string::npos, p.reason);
}

BOOST_AUTO_TEST_CASE(cheapest_kv_dtype_that_fits) {
  // 200 x 4,096 tokens: bf16 needs 131,072 B/token (107 GB) > 61.0 GB; q8_0 stores 128 values in
  // 4 blocks of 34 B: 2 x 32 x 8 x 136 = 69,632 B/token -> 57.0 GB fits.
  const auto& m = model("meta-llama/Llama-3.1-8B");
  const std::uint64_t budget = kH100Usable - 16'000'000'000ull;
  BOOST_TEST(200ull * 4096 * 131072 > budget);
  BOOST_TEST(200ull * 4096 * (2 * 32 * 8 * 4 * 34) <= budget);
  Plan p = plan(m, llama8b_simple(4096, 200));
  BOOST_TEST(!p.fits);
  BOOST_REQUIRE(p.kv_dtype_to_fit.has_value());
  BOOST_TEST(name(*p.kv_dtype_to_fit) == "q8_0");
  // 230 sequences: q8_0 (65.6 GB) and fp8 (61.7 GB) are too big; q4_0 (4 blocks of 18 B) fits.
  BOOST_TEST(230ull * 4096 * (2 * 32 * 8 * 128) > budget);
  p = plan(m, llama8b_simple(4096, 230));
  BOOST_REQUIRE(p.kv_dtype_to_fit.has_value());
  BOOST_TEST(name(*p.kv_dtype_to_fit) == "q4_0");
}

BOOST_AUTO_TEST_CASE(data_parallel_replicas_split_the_sequences) {
  const auto& m = model("meta-llama/Llama-3.1-8B");
  PlanInput in = llama8b_simple(4096, 10);
  in.dp = 2;
  in.gpus = 2;
  const Plan p = plan(m, in);
  BOOST_TEST(p.tp == 1u);
  BOOST_TEST(p.per_gpu.kv_bytes == 5ull * 4096 * 131072);
  BOOST_TEST(p.max_concurrency == 2u * 113u);
}

BOOST_AUTO_TEST_CASE(reserved_memory_estimate_formula) {
  // 1 GiB runtime + 8,192 tokens x (4 x hidden + 2 x MLP width / tp) x 2 B.
  const auto& m = model("meta-llama/Llama-3.1-8B");
  BOOST_TEST(reserved_bytes(m, {}, 1) == (1ull << 30) + 8192ull * (4 * 4096 + 2 * 14336) * 2);
  BOOST_TEST(reserved_bytes(m, {}, 2) == (1ull << 30) + 8192ull * (4 * 4096 + 2 * 7168) * 2);
  ReservedMemory r;
  r.prefill_chunk_tokens = 2048;
  r.runtime_bytes = 512ull << 20;
  BOOST_TEST(reserved_bytes(m, r, 1) == (512ull << 20) + 2048ull * (4 * 4096 + 2 * 14336) * 2);
  r.override_bytes = 123;
  BOOST_TEST(reserved_bytes(m, r, 1) == 123u);
  // MoE: the routed width is top-k x expert width (Qwen3-30B-A3B: 8 x 768).
  const auto& moe = model("Qwen/Qwen3-30B-A3B");
  BOOST_TEST(reserved_bytes(moe, {}, 1) == (1ull << 30) + 8192ull * (4 * 2048 + 2 * 8 * 768) * 2);
}

BOOST_AUTO_TEST_CASE(weights_shard_by_tp_times_pp) {
  const auto& m = model("meta-llama/Llama-3.1-8B");
  BOOST_TEST(kLlama8bParams == 8'030'261'248ull);
  PlanInput in = h100(4096, 1);
  in.tp = 2;
  in.pp = 2;
  const Plan p = plan(m, in);
  BOOST_TEST(p.weights_total_bytes == kLlama8bParams * 2);
  BOOST_TEST(p.per_gpu.weights_bytes == kLlama8bParams * 2 / 4);  // 4,015,130,624 B
}

BOOST_AUTO_TEST_CASE(ttft_from_prefill_flops) {
  // 2 x active params x tokens + per layer 2 x 32 heads x (128 + 128) x 4096 x 4097 / 2 pairs.
  const auto& m = model("meta-llama/Llama-3.1-8B");
  const Plan p = plan(m, h100(4096, 1));
  const double attention = 32.0 * 2 * 32 * (128 + 128) * (4096.0 * 4097 / 2);
  const double expected = 2.0 * static_cast<double>(kLlama8bParams) * 4096 + attention;
  BOOST_TEST(p.prefill_flops == expected, boost::test_tools::tolerance(1e-9));
  // One 4096-token step, compute-bound: overheads + FLOPs / (compute fraction x the BF16 peak).
  const StepCalibration& c = default_step_calibration();
  BOOST_TEST(p.ttft_known);
  BOOST_TEST(p.ttft_seconds == c.step_overhead_s + 32 * c.layer_overhead_s + 4096 * c.token_overhead_s + c.seq_overhead_s +
                                   expected / (989.4e12 * c.compute_fraction),
             boost::test_tools::tolerance(1e-9));
  // No FLOP/s figure: unknown, not 0.
  PlanInput none = h100(4096, 1);
  none.gpu.bf16_flops = none.gpu.fp8_flops = 0;
  const Plan q = plan(m, none);
  BOOST_TEST(!q.ttft_known);
  BOOST_TEST(std::any_of(q.notes.begin(), q.notes.end(), [](const std::string& n) {
    return n.find("TTFT unknown") != std::string::npos && n.find("bf16_flops") != std::string::npos;
  }));
}

BOOST_AUTO_TEST_CASE(moe_weight_reads_grow_with_the_batch) {
  // 128 experts, top-8: one token reads 8/128 of the experts; many tokens touch nearly all.
  const std::uint64_t experts = 1'000'000'000, active = 100'000'000 + experts / 16;
  BOOST_TEST(weight_bytes_read(active, experts, 128, 8, 1) == 100e6 + 1e9 / 16, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(weight_bytes_read(active, experts, 128, 8, 2) == 100e6 + 1e9 * (1 - (120.0 / 128) * (120.0 / 128)),
             boost::test_tools::tolerance(1e-12));
  BOOST_TEST(weight_bytes_read(active, experts, 128, 8, 10000) == 100e6 + 1e9, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(weight_bytes_read(5000, 0, 0, 0, 64) == 5000.0);  // dense
}

BOOST_AUTO_TEST_CASE(vllm_preset_rounds_to_16_token_blocks) {
  const auto& m = model("meta-llama/Llama-3.1-8B");
  PlanInput in = llama8b_simple(4100, 2);
  const EnginePreset v = engine_preset("vllm");
  in.block_tokens = v.block_tokens;
  in.utilization = v.utilization;
  const Plan p = plan(m, in);
  BOOST_TEST(p.per_gpu.kv_bytes == 2ull * 4112 * 131072);  // 4,100 tokens use 257 blocks of 16
  BOOST_CHECK_EXCEPTION(engine_preset("tgi"), InputError, HasMessage({"--engine", "tgi"}));
}

BOOST_AUTO_TEST_CASE(offload_tier_takes_the_spill) {
  const auto& m = model("meta-llama/Llama-3.1-8B");
  const std::uint64_t budget = kH100Usable - 16'000'000'000ull;
  const std::uint64_t need = 120ull * 4096 * 131072;  // 64.4 GB > 61.0 GB
  PlanInput in = llama8b_simple(4096, 120);
  BOOST_TEST(!plan(m, in).fits);
  in.offload_bytes = 10'000'000'000ull;
  in.offload_bytes_per_s = 50e9;
  const Plan p = plan(m, in);
  BOOST_TEST(p.fits);
  BOOST_TEST(p.per_gpu.offloaded_bytes == need - budget);
  const StepCalibration& c = default_step_calibration();
  BOOST_TEST(p.decode_compute_seconds < p.decode_weight_seconds + p.decode_kv_seconds);
  BOOST_TEST(p.decode_step_seconds == c.step_overhead_s + 32 * c.layer_overhead_s + 120 * (c.token_overhead_s + c.seq_overhead_s) +
                                          (16e9 + static_cast<double>(need)) / (c.bandwidth_fraction * 3.35e12) +
                                          static_cast<double>(need - budget) / 50e9,
             boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(bad_inputs_are_input_errors) {
  const auto& m = model("meta-llama/Llama-3.1-8B");
  PlanInput in = h100(4096, 1);
  in.tp = 3;
  BOOST_CHECK_EXCEPTION(plan(m, in), InputError, HasMessage({"--tp", "divisor", "32 attention heads", "\"3\""}));
  in = h100(4096, 1);
  in.gpus = 0;
  BOOST_CHECK_EXCEPTION(plan(m, in), InputError, HasMessage({"--gpus", "positive", "\"0\""}));
  in = h100(4096, 1);
  in.utilization = 1.5;
  BOOST_CHECK_EXCEPTION(plan(m, in), InputError, HasMessage({"--utilization", "(0, 1]", "1.5"}));
  in.utilization = 0;
  BOOST_CHECK_EXCEPTION(plan(m, in), InputError, HasMessage({"--utilization"}));
  in = h100(4096, 1);
  in.gpus = 3;
  in.tp = 2;
  BOOST_CHECK_EXCEPTION(plan(m, in), InputError, HasMessage({"--gpus", "tp x pp x dp = 2 x 1 x 1 = 2"}));
  in = h100(4096, 1);
  in.shared_prefix_tokens = 5000;
  BOOST_CHECK_EXCEPTION(plan(m, in), InputError, HasMessage({"--shared-prefix", "4096"}));
  in = h100(4096, 1);
  in.pp = 33;
  BOOST_CHECK_EXCEPTION(plan(m, in), InputError, HasMessage({"--pp", "32 layers"}));
  in = h100(0, 1);
  BOOST_CHECK_EXCEPTION(plan(m, in), InputError, HasMessage({"--context"}));
  in = h100(4096, 0);
  BOOST_CHECK_EXCEPTION(plan(m, in), InputError, HasMessage({"--concurrency"}));
  BOOST_CHECK_EXCEPTION(find_accelerator("H1OO"), InputError, HasMessage({"unknown GPU", "did you mean", "H100-SXM-80GB"}));
}

BOOST_AUTO_TEST_CASE(sweep_cells_equal_plans) {
  const auto& m = model("meta-llama/Llama-3.1-70B");
  PlanInput base = h100(1024, 1);
  base.pp = 3;
  base.tp = 2;
  base.dp = 2;
  base.shared_prefix_tokens = 512;
  base.gpu = find_accelerator("H200");
  const std::vector<std::uint64_t> contexts{1024, 5000, 32768, 131072};
  const std::vector<std::uint64_t> conc{1, 3, 16, 64};
  const SweepResult s = sweep(m, base, contexts, conc);
  BOOST_REQUIRE(s.cache_bytes.size() == 16u);
  for (std::size_t i = 0; i < contexts.size(); ++i)
    for (std::size_t j = 0; j < conc.size(); ++j) {
      PlanInput in = base;
      in.context = contexts[i];
      in.concurrency = conc[j];
      const Plan p = plan(m, in);
      const std::size_t k = i * conc.size() + j;
      BOOST_TEST(s.cache_bytes[k] == p.per_gpu.kv_bytes + p.per_gpu.state_bytes);
      BOOST_TEST((s.fits[k] != 0) == p.fits);
      BOOST_TEST(s.decode_step_seconds[k] == p.decode_step_seconds, boost::test_tools::tolerance(1e-12));
    }
  // A hand-checked cell: 131,072 tokens, 64 sequences over 2 replicas, tp 2 (4 KV heads per
  // GPU), busiest stage 27 layers, 512-token prefix stored once.
  const std::uint64_t row = 27ull * 2 * 4 * 128 * 2;
  BOOST_TEST(s.cache_bytes[3 * 4 + 3] == row * (512 + 32 * (131072 - 512)));
}

BOOST_AUTO_TEST_CASE(absurd_grids_overflow_instead_of_wrapping) {
  // 2^40 tokens x 2^40 sequences x 131,072 B is far beyond 64 bits: an error, never a wrapped number.
  const auto& m = model("meta-llama/Llama-3.1-8B");
  const std::vector<std::uint64_t> contexts{1ull << 40}, conc{1, 1ull << 40};
  BOOST_CHECK_THROW(sweep(m, h100(4096, 1), contexts, conc), OverflowError);
  BOOST_CHECK_THROW(plan(m, h100(1ull << 40, 1ull << 40)), OverflowError);
}

BOOST_AUTO_TEST_CASE(planner_memory_matches_cache_size_for_every_bundled_model) {
  // The planner's compressed profile must agree with the per-layer sizer everywhere.
  for (const auto& b : bundled_models()) {
    const ModelSpec m = load_model(b.id);
    for (std::uint64_t tp : {1, 2}) {
      if (m.dims.num_attention_heads && m.dims.num_attention_heads % tp) continue;
      PlanInput in = h100(5000, 3);
      in.tp = tp;
      in.gpu = find_accelerator("B200");
      Workload w;
      w.tokens = 5000;
      w.batch = 3;
      w.tp = tp;
      std::uint64_t expected = 0;
      try {
        expected = cache_size(m, w).total_bytes;
      } catch (const InputError&) {
        continue;  // a tp the layer kinds reject (Mamba-2 groups)
      }
      const Plan p = plan(m, in);
      BOOST_TEST(p.per_gpu.kv_bytes + p.per_gpu.state_bytes == expected, b.id << " tp " << tp);
    }
  }
}

BOOST_AUTO_TEST_CASE(compare_row_cache_next_to_weights) {
  const CompareRow r = compare_row(model("meta-llama/Llama-3.1-70B"), 131072);
  BOOST_TEST(r.bytes_per_token == 327680u);
  BOOST_TEST(r.cache_bytes == 327680ull * 131072);
  BOOST_TEST(r.weights_bytes == kLlama70bParams * 2);
  BOOST_TEST(r.share_of_weights == 327680.0 * 131072 / (kLlama70bParams * 2.0), boost::test_tools::tolerance(1e-12));
  BOOST_TEST(r.kinds == "80 full_attention");
}

BOOST_AUTO_TEST_CASE(plan_json_has_the_interface_keys) {
  const nlohmann::json j = to_json(plan(model("meta-llama/Llama-3.1-8B"), h100(4096, 4)));
  for (const char* k : {"fits", "gpus", "tp", "pp", "context", "concurrency", "per_gpu", "max_concurrency", "max_context",
                        "kv_capacity_tokens", "min_gpus", "decode_step_seconds", "decode_tokens_per_second", "reason"})
    BOOST_TEST(j.contains(k), k);
  for (const char* k : {"memory_bytes", "weights_bytes", "kv_bytes", "state_bytes", "reserved_bytes", "free_bytes"})
    BOOST_TEST(j["per_gpu"][k].is_number_unsigned(), k);
  BOOST_TEST(j["per_gpu"]["kv_bytes"].get<std::uint64_t>() == 4ull * 4096 * 131072);
  BOOST_TEST(j["per_gpu"]["memory_bytes"].get<std::uint64_t>() == kH100);
}


// Issue 15: one serving default for every verb. gpt2's config names float32: it is served in bf16
// (vLLM/SGLang/TensorRT-LLM --dtype auto) by size, plan and the engines alike, reported as an
// assumption; --assume dtype=fp32 keeps float32.
BOOST_AUTO_TEST_CASE(fp32_config_is_served_in_bf16_everywhere) {
  const ModelSpec m = load_model("openai-community/gpt2");
  BOOST_TEST(name(m.dtype) == "bf16");
  BOOST_TEST(name(serving_dtype(m)) == "bf16");
  bool reported = false;
  for (const auto& a : m.assumptions) reported |= a.find("served in bf16") != std::string::npos;
  BOOST_TEST(reported);
  // 12 layers x 2 (K, V) x 768 x 2 B = 36,864 B per token.
  Workload w;
  BOOST_TEST(cache_size(m, w).bytes_per_token == 12u * 2 * 768 * 2);
  BOOST_TEST(name(plan(m, h100(4096, 1)).dtypes.k) == "bf16");
  LoadOptions fp32;
  fp32.assume = {"dtype=fp32"};
  const ModelSpec f = load_model_from_json(R"({"model_type": "gpt2", "n_layer": 12, "n_head": 12, "n_embd": 768,
    "vocab_size": 50257, "n_positions": 1024, "torch_dtype": "float32"})", "gpt2.json", fp32);
  BOOST_TEST(name(f.dtype) == "fp32");
  BOOST_TEST(cache_size(f, w).bytes_per_token == 12u * 2 * 768 * 4);
}

// Issue 15: `plan --engine vllm` advises only dtypes vLLM's --kv-cache-dtype has (no q8_0, q4_0).
BOOST_AUTO_TEST_CASE(vllm_advice_uses_only_vllm_kv_dtypes) {
  const auto& m = model("meta-llama/Llama-3.1-8B");
  const EnginePreset v = engine_preset("vllm");
  const auto ladder = kv_dtype_ladder(m, v.kv_dtypes);
  BOOST_REQUIRE(ladder.size() == 2u);
  BOOST_TEST(name(ladder[0]) == "bf16");
  BOOST_TEST(name(ladder[1]) == "fp8_e4m3");
  // 200 x 4,096 tokens: without an engine q8_0 is advised (cheapest_kv_dtype_that_fits); for vLLM
  // fp8 (65,536 B/token: 53.7 GB <= 61.0 GB).
  PlanInput in = llama8b_simple(4096, 200);
  in.kv_dtypes = v.kv_dtypes;
  const Plan p = plan(m, in);
  BOOST_REQUIRE(p.kv_dtype_to_fit.has_value());
  BOOST_TEST(name(*p.kv_dtype_to_fit) == "fp8_e4m3");
  // 230 sequences: q4_0 would fit, but vLLM has no q4_0 and fp8 (61.7 GB) does not: no advice.
  in.concurrency = 230;
  BOOST_TEST(!plan(m, in).kv_dtype_to_fit.has_value());
}

// Issue 15: the min-GPU layout takes tensor parallelism within a node before pipeline stages.
BOOST_AUTO_TEST_CASE(min_gpus_prefers_tensor_parallel_within_a_node) {
  // Qwen3-8B (32 query heads) on RTX 4090s, 8 x 32k sequences: more than one card's worth, and
  // every count up to 8 that divides 32 can be pure TP.
  const auto& q = model("Qwen/Qwen3-8B");
  PlanInput in = h100(32768, 8);
  in.gpu = find_accelerator("RTX4090");
  const Plan p = plan(q, in);
  BOOST_TEST(p.min_gpus > 1u);
  BOOST_TEST(p.min_gpus_pp == 1u, "tp " << p.min_gpus_tp << " pp " << p.min_gpus_pp);
  BOOST_TEST(p.min_gpus_tp == p.min_gpus);
  // DeepSeek-V3 on H200s, the issue's `plan --gpus 8 --engine vllm`: no tp 1 x pp N layout while a
  // wider TP degree divides the count (128 heads: 2, 4, 8).
  const auto& d = model("deepseek-ai/DeepSeek-V3");
  PlanInput dv = h100(4096, 1);
  dv.gpu = find_accelerator("H200");
  dv.gpus = 8;
  const EnginePreset v = engine_preset("vllm");
  dv.block_tokens = v.block_tokens;
  dv.kv_dtypes = v.kv_dtypes;
  const Plan pd = plan(d, dv);
  // Its weights (about 690 GB) need more than 4 H200s (4 x 126 GiB usable), so within one node the
  // smallest TP degree dividing the 128 heads that holds them is 8: tp 8, pp 1. It used to say
  // tp 2 x pp 3 (6 GPUs is the fewest that hold the weights, and 6 does not divide 128 heads).
  BOOST_TEST(pd.weights_total_bytes > 4 * pd.per_gpu.usable_bytes);
  BOOST_TEST(pd.min_gpus == 8u);
  BOOST_TEST(pd.min_gpus_tp == 8u, "min " << pd.min_gpus << ": tp " << pd.min_gpus_tp << " pp " << pd.min_gpus_pp);
  BOOST_TEST(pd.min_gpus_pp == 1u);
  BOOST_TEST(pd.min_gpus_reason.find("within one 8-GPU node") != std::string::npos, pd.min_gpus_reason);
  if (pd.kv_dtype_to_fit) BOOST_TEST(name(*pd.kv_dtype_to_fit) != "q8_0");
}

// The request field tables (kvplan/request.h): one entry per name, the flag spelled from the name,
// defaults that parse as their type, and the size table sharing plan's dtype entries.
BOOST_AUTO_TEST_CASE(request_field_tables) {
  for (const char* verb : {"plan", "size"}) {
    std::set<std::string_view> seen;
    for (const auto& f : request_fields(verb)) {
      BOOST_TEST_CONTEXT(verb << " " << f.name) {
        BOOST_TEST(seen.insert(f.name).second);
        std::string flag = "--" + std::string(f.name);
        std::replace(flag.begin(), flag.end(), '_', '-');
        BOOST_TEST(f.cli_flag == flag);
        BOOST_TEST(!f.help.empty());
        if (f.default_value.empty()) continue;
        switch (f.type) {
          case FieldType::tokens: BOOST_CHECK_NO_THROW(parse_tokens(f.default_value)); break;
          case FieldType::bytes: BOOST_CHECK_NO_THROW(parse_bytes(f.default_value)); break;
          case FieldType::memory: BOOST_CHECK_NO_THROW(parse_memory_size(f.default_value, f.name)); break;
          case FieldType::count: BOOST_TEST(std::stoull(std::string(f.default_value)) > 0u); break;
          case FieldType::fraction: BOOST_TEST((std::stod(std::string(f.default_value)) > 0 && std::stod(std::string(f.default_value)) <= 1)); break;
          case FieldType::rate: BOOST_TEST(std::stod(std::string(f.default_value)) >= 0); break;
          case FieldType::dtype: case FieldType::weight_format: BOOST_TEST(f.default_value == "auto"); break;
          case FieldType::name: BOOST_TEST(f.default_value == "none"); break;
          case FieldType::count_list: BOOST_FAIL("a list has no default"); break;
        }
      }
    }
  }
  // The defaults the table states are PlanInput's own.
  const PlanInput d;
  BOOST_TEST(parse_tokens(plan_request_field("context").default_value) == d.context);
  BOOST_TEST(std::stod(std::string(plan_request_field("utilization").default_value)) == d.utilization);
  // No stated default: unset means the calibrated compute fraction (data/step_time.json).
  BOOST_TEST(plan_request_field("prefill_efficiency").default_value.empty());
  BOOST_TEST(d.prefill_efficiency == 0.0);
  BOOST_TEST(parse_bytes(plan_request_field("runtime_overhead").default_value) == d.reserved.runtime_bytes);
  BOOST_TEST(parse_tokens(plan_request_field("prefill_chunk").default_value) == d.reserved.prefill_chunk_tokens);
  BOOST_TEST(std::stoull(std::string(plan_request_field("block_tokens").default_value)) == d.block_tokens);
  BOOST_TEST(request_field("size", "kv_dtype").help == plan_request_field("kv_dtype").help);
  BOOST_CHECK_THROW(request_fields("engine"), InputError);
  BOOST_CHECK_THROW(plan_request_field("tokens"), InputError);
}

BOOST_AUTO_TEST_SUITE_END()
