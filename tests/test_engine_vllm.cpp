// vLLM (v1) profile: the worked examples of docs/engines.md plus hand-derived cases. Every
// expected value is derived from the rules in the comment next to it.
#include "helpers.h"
#include "kvplan/engines.h"

using namespace kvplan;
using kvplan::test::HasMessage;

namespace {
constexpr std::uint64_t kBudget40GiB = 40ull * 1024 * 1024 * 1024;  // 42,949,672,960 B

VllmOptions budget(std::uint64_t max_len, std::uint64_t avail = kBudget40GiB) {
  VllmOptions o;
  o.max_model_len = max_len;
  o.available_kv_bytes = avail;
  return o;
}
bool has_line(const VllmResult& r, const std::string& line) {
  for (const auto& l : r.log_lines)
    if (l == line) return true;
  BOOST_TEST_MESSAGE("missing log line: " << line);
  for (const auto& l : r.log_lines) BOOST_TEST_MESSAGE("  have: " << l);
  return false;
}
ModelSpec gpt_oss_120b_like() { return load_model(test::source_path("tests/data/engine_cases/gpt-oss-120b-like.json")); }
}  // namespace

BOOST_AUTO_TEST_SUITE(engine_vllm)

BOOST_AUTO_TEST_CASE(llama31_8b_worked_example) {
  auto m = load_model("meta-llama/Llama-3.1-8B");
  auto r = vllm_profile(m, budget(131072));
  BOOST_TEST(r.layout == "uniform");
  BOOST_TEST(r.block_size == 16u);
  BOOST_TEST(r.page_bytes == 16u * 2 * 8 * 128 * 2);                        // 65,536 B
  BOOST_TEST(r.bytes_per_token == 32u * 2 * 8 * 128 * 2);                    // 131,072 B
  BOOST_TEST(r.num_blocks == 42949672960ull / 65536 / 32);                   // 20,480
  BOOST_TEST(r.num_blocks == 20480u);
  BOOST_TEST(r.kv_cache_tokens == 20480u * 16);                              // 327,680
  BOOST_TEST(r.max_concurrency == 20480.0 / (131072 / 16));                  // 2.50
  BOOST_TEST(has_line(r, "GPU KV cache size: 327,680 tokens"));
  BOOST_TEST(has_line(r, "Maximum concurrency for 131,072 tokens per request: 2.50x"));
  BOOST_TEST(has_line(r, "Available KV cache memory: 40.00 GiB"));
  BOOST_TEST(r.starts);
  // M = 8,192: 20,480 / 512 = 40.00x
  auto r8 = vllm_profile(m, budget(8192));
  BOOST_TEST(has_line(r8, "Maximum concurrency for 8,192 tokens per request: 40.00x"));
}

BOOST_AUTO_TEST_CASE(llama31_8b_tensor_parallel_and_replication) {
  auto m = load_model("meta-llama/Llama-3.1-8B");
  for (auto [tp, heads] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{{2, 4}, {4, 2}, {8, 1}, {16, 1}}) {
    auto o = budget(131072);
    o.tensor_parallel_size = tp;
    auto r = vllm_profile(m, o);
    BOOST_TEST(r.kv_heads_per_rank == heads);
    BOOST_TEST(r.bytes_per_token == 32u * 2 * heads * 128 * 2);  // 64 / 32 / 16 / 16 (replicated) KiB
    BOOST_TEST(r.num_blocks == kBudget40GiB / (16 * 2 * heads * 128 * 2) / 32);
  }
}

BOOST_AUTO_TEST_CASE(llama31_8b_fp8) {
  auto o = budget(131072);
  o.kv_cache_dtype = "fp8";
  auto r = vllm_profile(load_model("meta-llama/Llama-3.1-8B"), o);
  BOOST_TEST(r.bytes_per_token == 32u * 2 * 8 * 128 * 1);   // 64 KiB
  BOOST_TEST(r.num_blocks == kBudget40GiB / (16 * 2 * 8 * 128) / 32);  // 40,960
  BOOST_TEST(r.kv_cache_tokens == 40960u * 16);
}

BOOST_AUTO_TEST_CASE(deepseek_v3_worked_example) {
  auto m = load_model("deepseek-ai/DeepSeek-V3");
  auto r = vllm_profile(m, budget(163840));
  BOOST_TEST(r.block_size == 64u);                          // FlashMLA on Hopper
  BOOST_TEST(r.page_bytes == 64u * 576 * 2);                // 73,728 B
  BOOST_TEST(r.bytes_per_token == 61u * 576 * 2);           // 70,272 B
  BOOST_TEST(r.num_blocks == 42949672960ull / 73728 / 61);  // 9,549
  BOOST_TEST(r.num_blocks == 9549u);
  BOOST_TEST(r.kv_cache_tokens == 9549u * 64);              // 611,136
  BOOST_TEST(has_line(r, "GPU KV cache size: 611,136 tokens"));
  // 9,549 / cdiv(163,840, 64) = 9,549 / 2,560 = 3.73
  BOOST_TEST(has_line(r, "Maximum concurrency for 163,840 tokens per request: 3.73x"));
}

BOOST_AUTO_TEST_CASE(deepseek_v3_mla_replicated_under_tp_and_backends) {
  auto m = load_model("deepseek-ai/DeepSeek-V3");
  auto o = budget(163840);
  o.tensor_parallel_size = 8;
  auto r = vllm_profile(m, o);
  BOOST_TEST(r.bytes_per_token == 61u * 576 * 2);  // still 70,272 on every rank
  BOOST_TEST(r.num_blocks == 9549u);
  o.attention_backend = "CUTLASS_MLA";
  auto c = vllm_profile(m, o);
  BOOST_TEST(c.block_size == 128u);
  BOOST_TEST(c.num_blocks == kBudget40GiB / (128 * 1152) / 61);  // 4,774
  o.kv_cache_dtype = "fp8";
  o.attention_backend = "FLASHMLA";
  auto f = vllm_profile(m, o);
  BOOST_TEST(f.bytes_per_token == 61u * 576);     // 35,136 B
  BOOST_TEST(f.num_blocks == kBudget40GiB / (64 * 576) / 61);
  o.kv_cache_dtype = "fp8_ds_mla";
  auto d = vllm_profile(m, o);
  BOOST_TEST(d.bytes_per_token == 656u * 61);    // 40,016 B
}

BOOST_AUTO_TEST_CASE(gpt_oss_hybrid_swa_grouping) {
  auto m = gpt_oss_120b_like();
  auto r = vllm_profile(m, budget(131072));
  BOOST_TEST(r.layout == "hybrid");
  BOOST_TEST(r.page_bytes == 2u * 16 * 8 * 64 * 2);          // 32,768 B
  BOOST_TEST(r.group_size == 18u);
  BOOST_TEST(r.num_groups == 2u);
  BOOST_TEST(r.num_blocks == 42949672960ull / 32768 / 18);   // 72,817
  BOOST_TEST(r.num_blocks == 72817u);
  BOOST_TEST(r.kv_cache_tokens == 72817u / 2 * 16);          // 582,528
  BOOST_TEST(has_line(r, "GPU KV cache size: 582,528 tokens"));
  // full 8,192 blocks + SWA cdiv(127 + 8,192, 16) + 1 = 521 -> 72,817 / 8,713 = 8.36x
  BOOST_TEST(r.groups.size() == 2u);
  std::uint64_t full = 0, swa = 0;
  for (const auto& g : r.groups) (g.kind == VllmGroupKind::sliding_window ? swa : full) = g.blocks_per_request;
  BOOST_TEST(full == 8192u);
  BOOST_TEST(swa == 521u);
  BOOST_TEST(has_line(r, "Maximum concurrency for 131,072 tokens per request: 8.36x"));
}

BOOST_AUTO_TEST_CASE(gpt_oss_20b_uneven_groups_pad) {
  // 12 sliding + 12 full: max 12 < 1.5 * 12, so group_size = 12, 2 groups, no padding.
  // (The bundled config names no dtype, so kvplan reads fp32; vLLM serves it in bf16.)
  auto o = budget(131072);
  o.kv_cache_dtype = "bf16";
  auto r = vllm_profile(load_model("openai/gpt-oss-20b"), o);
  BOOST_TEST(r.group_size == 12u);
  BOOST_TEST(r.num_groups == 2u);
  BOOST_TEST(r.padding_layers == 0u);
  BOOST_TEST(r.num_blocks == kBudget40GiB / 32768 / 12);
}

BOOST_AUTO_TEST_CASE(gemma3_many_sliding_few_full_groups) {
  // gemma-3-1b: 4 full + 22 sliding layers, 1 KV head x 256 -> the same page 16 x 2 x 256 x 2 = 16,384 B.
  // 22 >= 1.5 x 4, so group_size = 4: 1 full group + cdiv(22, 4) = 6 sliding groups (2 padding slots).
  auto r = vllm_profile(load_model("google/gemma-3-1b-it"), budget(32768));
  BOOST_TEST(r.page_bytes == 16u * 2 * 256 * 2);
  BOOST_TEST(r.group_size == 4u);
  BOOST_TEST(r.num_groups == 7u);
  BOOST_TEST(r.padding_layers == 6u * 4 - 22);
  BOOST_TEST(r.num_blocks == kBudget40GiB / 16384 / 4);            // 655,360
  BOOST_TEST(r.kv_cache_tokens == kBudget40GiB / 16384 / 4 / 7 * 16);  // 93,622 x 16
}

BOOST_AUTO_TEST_CASE(disable_hybrid_manager_sizes_swa_for_full_context) {
  auto o = budget(131072);
  o.disable_hybrid_kv_cache_manager = true;
  auto r = vllm_profile(gpt_oss_120b_like(), o);
  BOOST_TEST(r.layout == "uniform");
  BOOST_TEST(r.num_blocks == kBudget40GiB / 32768 / 36);  // 36,408
  BOOST_TEST(r.kv_cache_tokens == 36408u * 16);
}

BOOST_AUTO_TEST_CASE(qwen3_next_544_token_block) {
  auto m = load_model("Qwen/Qwen3-Next-80B-A3B-Thinking");
  auto r = vllm_profile(m, budget(262144));
  // conv (3, 8,192) bf16 = 49,152; temporal (32, 128, 128) bf16 = 1,048,576
  BOOST_TEST(r.mamba_page_bytes == 3u * 8192 * 2 + 32u * 128 * 128 * 2);  // 1,097,728
  BOOST_TEST(r.attention_block_size == 16u * 34);                          // 16 * cdiv(1,097,728, 16 * 2,048) = 544
  BOOST_TEST(r.mamba_page_padded_bytes == 544u * 2 * 2 * 256 * 2);         // 1,114,112
  BOOST_TEST(r.page_bytes == 1114112u);
  BOOST_TEST(r.group_size == 12u);   // 36 >= 1.5 * 12
  BOOST_TEST(r.num_groups == 4u);    // 1 full + 3 GDN
  BOOST_TEST(r.num_blocks == kBudget40GiB / 1114112 / 12);  // 3,212
  BOOST_TEST(r.kv_cache_tokens == (kBudget40GiB / 1114112 / 12) / 4 * 544);
  BOOST_TEST(has_line(r, "Setting attention block size to 544 tokens to ensure that attention page size is >= mamba page size."));
  BOOST_TEST(has_line(r, "Padding mamba page size by 1.49% to ensure that mamba page size and attention page size are exactly equal."));
  // Request at 262,144: full cdiv(262,144, 544) = 482 blocks + 3 GDN groups x 2 (align) = 488
  BOOST_TEST(r.max_concurrency == static_cast<double>(kBudget40GiB / 1114112 / 12) / (482 + 3 * 2));
}

BOOST_AUTO_TEST_CASE(qwen3_next_all_mode_576) {
  auto o = budget(262144);
  o.mamba_cache_mode = "all";
  auto r = vllm_profile(load_model("Qwen/Qwen3-Next-80B-A3B-Thinking"), o);
  BOOST_TEST(r.attention_block_size == 64u * 9);  // 64 * cdiv(cdiv(1,097,728, 2,048) = 536, 64) = 576
}

BOOST_AUTO_TEST_CASE(sliding_window_request_rule) {
  // gemma-2-9b: 21 sliding (W 4,096) + 21 full, 8 heads x 256, bf16 -> page 16*2*8*256*2 = 131,072.
  auto o = budget(8192);
  o.max_num_batched_tokens = 2048;
  auto r = vllm_profile(load_model("google/gemma-2-9b"), o);
  BOOST_TEST(r.page_bytes == 16u * 2 * 8 * 256 * 2);
  std::uint64_t swa = 0;
  for (const auto& g : r.groups)
    if (g.kind == VllmGroupKind::sliding_window) swa = g.blocks_per_request;
  BOOST_TEST(swa == (4095u + 2048 + 15) / 16 + 1);  // cdiv(min(4,095 + 2,048, 8,192), 16) + 1 = 385
}

BOOST_AUTO_TEST_CASE(memory_budget_from_utilisation) {
  // ceil(80 GiB * 0.9) - 16 GiB weights - 2 GiB activations - 1 GiB non-torch - 1 GiB graphs
  VllmOptions o;
  o.max_model_len = 8192;
  o.gpu_memory_bytes = 80ull << 30;
  o.gpu_memory_utilization = 0.9;
  o.weights_bytes = 16ull << 30;
  o.activation_peak_bytes = 2ull << 30;
  o.non_torch_bytes = 1ull << 30;
  o.cudagraph_bytes = 1ull << 30;
  auto r = vllm_profile(load_model("meta-llama/Llama-3.1-8B"), o);
  const std::uint64_t requested = 77309411328ull;  // ceil(85,899,345,920 * 0.9) = 77,309,411,328
  BOOST_TEST(r.available_kv_bytes == requested - (20ull << 30));
  BOOST_TEST(r.num_blocks == (requested - (20ull << 30)) / 65536 / 32);
  // --kv-cache-memory overrides the profile.
  o.kv_cache_memory_bytes = 10ull << 30;
  auto k = vllm_profile(load_model("meta-llama/Llama-3.1-8B"), o);
  BOOST_TEST(k.num_blocks == (10ull << 30) / 65536 / 32);  // 5,120
}

BOOST_AUTO_TEST_CASE(startup_failure_and_largest_fitting_len) {
  // 2 GiB for Llama-3.1-8B at 131,072: needs 8,192 blocks x 32 x 65,536 = 16 GiB.
  auto r = vllm_profile(load_model("meta-llama/Llama-3.1-8B"), budget(131072, 2ull << 30));
  BOOST_TEST(!r.starts);
  BOOST_TEST(r.max_fitting_len == (2ull << 30) / 131072);  // 16,384 tokens = 1,024 whole blocks
  BOOST_TEST(r.error.find("(131072), (16.00 GiB KV cache is needed") != std::string::npos);
  BOOST_TEST(r.error.find("estimated maximum model length is 16384") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(no_memory_at_all) {
  VllmOptions o;
  o.max_model_len = 4096;
  o.gpu_memory_bytes = 16ull << 30;
  o.weights_bytes = 16ull << 30;
  auto r = vllm_profile(load_model("meta-llama/Llama-3.1-8B"), o);
  BOOST_TEST(!r.starts);
  BOOST_TEST(r.available_kv_bytes == 0u);
  BOOST_TEST(r.error.find("No available memory for the cache blocks") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(pipeline_parallel_minimum_over_stages) {
  // Llama-3.1-8B PP=3: stages of 10, 11, 11 layers (the remainder goes to the stages before the last).
  auto o = budget(131072);
  o.pipeline_parallel_size = 3;
  auto r = vllm_profile(load_model("meta-llama/Llama-3.1-8B"), o);
  BOOST_TEST(r.num_blocks == kBudget40GiB / 65536 / 11);  // the 11-layer stage: 59,578
  BOOST_TEST(r.kv_cache_tokens == kBudget40GiB / 65536 / 11 * 16);
}

BOOST_AUTO_TEST_CASE(explicit_block_size_and_override) {
  auto o = budget(131072);
  o.block_size = 32;
  auto r = vllm_profile(load_model("meta-llama/Llama-3.1-8B"), o);
  BOOST_TEST(r.page_bytes == 32u * 4096);
  BOOST_TEST(r.num_blocks == kBudget40GiB / (32 * 4096) / 32);  // 10,240
  o.num_gpu_blocks_override = 1000;
  auto ov = vllm_profile(load_model("meta-llama/Llama-3.1-8B"), o);
  BOOST_TEST(ov.num_blocks == 1000u);
  BOOST_TEST(ov.kv_cache_tokens == 32000u);
}

BOOST_AUTO_TEST_CASE(bad_inputs) {
  auto m = load_model("meta-llama/Llama-3.1-8B");
  auto o = budget(4096);
  o.block_size = 24;
  BOOST_CHECK_EXCEPTION(vllm_profile(m, o), InputError, HasMessage({"--block-size", "24"}));
  o = budget(4096);
  o.kv_cache_dtype = "int3";
  BOOST_CHECK_EXCEPTION(vllm_profile(m, o), InputError, HasMessage({"--kv-cache-dtype", "int3"}));
  o = budget(4096);
  o.kv_cache_dtype = "fp8_ds_mla";
  BOOST_CHECK_EXCEPTION(vllm_profile(m, o), InputError, HasMessage({"fp8_ds_mla"}));
  VllmOptions none;
  BOOST_CHECK_EXCEPTION(vllm_profile(m, none), InputError, HasMessage({"--kv-cache-memory"}));
}

BOOST_AUTO_TEST_SUITE_END()
