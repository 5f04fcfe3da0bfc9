// TensorRT-LLM profile: docs/engines.md's worked examples and hand-derived cases.
#include "helpers.h"
#include "kvplan/engines.h"

using namespace kvplan;
using kvplan::test::HasMessage;

namespace {
TrtllmOptions kv(std::uint64_t bytes, std::uint64_t seq = 131072) {
  TrtllmOptions o;
  o.kv_memory_bytes = bytes;
  o.max_seq_len = seq;
  return o;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(engine_trtllm)

BOOST_AUTO_TEST_CASE(llama8b_worked_example) {
  TrtllmOptions o;
  o.gpu_memory_bytes = static_cast<std::uint64_t>(79.6 * GiB);
  o.peak_bytes = static_cast<std::uint64_t>(17.6 * GiB);
  o.temp_kv_bytes = 1 * GiB;
  o.max_seq_len = 131072;
  auto r = trtllm_profile(load_model("meta-llama/Llama-3.1-8B"), o);
  BOOST_TEST(r.bytes_per_token == 2u * 32 * (128 * 8) * 2);  // 131,072
  BOOST_TEST(r.block_bytes == 4u * 1024 * 1024);             // 32 tokens = 4 MiB
  // (79.6 - 17.6 + 1.0) x 0.9 = 56.7 GiB -> 464,486 tokens -> 14,515 blocks of 32
  BOOST_TEST(r.max_tokens == 464486u);
  BOOST_TEST(r.blocks == 14515u);
  BOOST_TEST(r.max_concurrency == 14515.0 / (131072 / 32));
}

BOOST_AUTO_TEST_CASE(deepseek_v3_bytes) {
  auto m = load_model("deepseek-ai/DeepSeek-V3");
  auto r = trtllm_profile(m, kv(40 * GiB, 163840));
  BOOST_TEST(r.bytes_per_token == 1u * 61 * 576 * 2);  // 70,272
  BOOST_TEST(r.block_bytes == 2248704u);               // x 32
  BOOST_TEST(r.max_tokens == 40 * GiB / 70272);
  auto o = kv(40 * GiB, 163840);
  o.kv_cache_dtype = "fp8";
  o.tp_size = 8;  // replicated: no TP split
  BOOST_TEST(trtllm_profile(m, o).bytes_per_token == 35136u);
}

BOOST_AUTO_TEST_CASE(tp_estimator_and_attention_dp) {
  auto m = load_model("meta-llama/Llama-3.1-8B");
  auto o = kv(10 * GiB);
  o.tp_size = 2;
  BOOST_TEST(trtllm_profile(m, o).bytes_per_token == 2u * 32 * (128 * 8 / 2) * 2);  // 65,536
  o.tp_size = 16;  // 8 KV heads over 16 ranks: one whole head per rank (ceil(8 / 16)), not the estimator's half
  BOOST_TEST(trtllm_profile(m, o).bytes_per_token == 2u * 32 * 128 * 2);
  o.enable_attention_dp = true;  // tp taken as 1
  BOOST_TEST(trtllm_profile(m, o).bytes_per_token == 131072u);
}

// TensorRT-LLM's pool replicates a KV head when tp exceeds the KV heads.
// NVIDIA/TensorRT-LLM@001541bad83b84ae4c5c4a279e464572d5f690f7,
// tensorrt_llm/_torch/pyexecutor/resource_manager.py: KVCacheManager.__init__ (lines 233-237)
// sets num_kv_heads_per_layer = (num_kv_heads + tp_size - 1) // tp_size; get_cache_bytes_per_token
// is kv_factor * sum(num_kv_heads_per_layer) * head_dim, and calculate_max_num_blocks divides the
// memory by it. Only the static estimator get_cache_size_per_token uses the flat
// head_dim * num_key_value_heads // tp_size (half a head here).
// Qwen3-235B-A22B-FP8 (model_configs/Qwen__Qwen3-235B-A22B-FP8.json): 94 layers, 4 KV heads,
// head_dim 128, no kv_cache_scheme (bf16 cache).
BOOST_AUTO_TEST_CASE(kv_head_replication_tp_above_kv_heads) {
  auto m = load_model("Qwen/Qwen3-235B-A22B-FP8");
  auto o = kv(40 * GiB, 32768);
  o.tp_size = 4;  // one head per rank
  const auto r4 = trtllm_profile(m, o);
  BOOST_TEST(r4.bytes_per_token == 2u * 94 * 128 * 2);  // 48,128
  BOOST_TEST(r4.max_tokens == 892405u);                 // 40 GiB // 48,128
  o.tp_size = 8;  // still one whole head per rank: the same bytes and tokens as tp 4
  const auto r8 = trtllm_profile(m, o);
  BOOST_TEST(r8.bytes_per_token == 48128u);        // not the estimator's 2 x 94 x (128 x 4 // 8) x 2 = 24,064
  BOOST_TEST(r8.max_tokens == 892405u);            // not 1,784,810
  BOOST_TEST(r8.block_bytes == 48128u * 32);
  bool noted = false;
  for (const auto& n : r8.notes) noted = noted || n.find("24,064") != std::string::npos;
  BOOST_TEST(noted);
  for (const auto& n : r4.notes) BOOST_TEST(n.find("estimator counts") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(max_tokens_and_rounding) {
  auto m = load_model("meta-llama/Llama-3.1-8B");
  auto o = kv(40 * GiB);
  o.max_tokens = 100000;
  auto r = trtllm_profile(m, o);
  BOOST_TEST(r.max_tokens == 100000u);
  BOOST_TEST(r.blocks == 100000u / 32);  // 3,125 (floor)
  o.max_tokens = 100010;
  BOOST_TEST(trtllm_profile(m, o).blocks == 3125u);  // floor(100,010 / 32)
  o.cpp_rounding = true;
  BOOST_TEST(trtllm_profile(m, o).blocks == 3126u);  // ceil
  o = kv(40 * GiB);
  o.free_gpu_memory_fraction = 0.5;  // applies to total - peak only (kv_memory given is already final)
  BOOST_TEST(trtllm_profile(m, o).max_tokens == 40 * GiB / 131072);
}

BOOST_AUTO_TEST_CASE(pipeline_parallel_stage_layers) {
  auto o = kv(10 * GiB);
  o.pp_size = 4;  // 32 / 4 = 8 layers per stage
  BOOST_TEST(trtllm_profile(load_model("meta-llama/Llama-3.1-8B"), o).bytes_per_token == 2u * 8 * 1024 * 2);
}

BOOST_AUTO_TEST_CASE(vswa_equal_and_window_weighted_shares) {
  auto m = load_model(test::source_path("tests/data/engine_cases/gpt-oss-120b-like.json"));
  auto o = kv(10 * GiB);
  o.max_attention_window = {128, 131072};
  auto r = trtllm_profile(m, o);
  BOOST_TEST(r.vswa);
  BOOST_REQUIRE(r.windows.size() == 2u);
  // 18 layers per window x 8 heads x 64 x 2 x 2 = 36,864 B/token; equal shares:
  // floor(10 GiB x 0.5 / 36,864 / 32) = 4,551 blocks each
  BOOST_TEST(r.windows[0].window == 128u);
  BOOST_TEST(r.windows[0].bytes_per_token == 36864u);
  BOOST_TEST(r.windows[0].blocks == 4551u);
  BOOST_TEST(r.windows[1].blocks == 4551u);
  BOOST_TEST(r.log_lines[0] == "[windowSize=128] {.primaryBlocks=4551, .secondayBlocks=0}");
  // C++ policy: share proportional to window x bytes: 128 / (128 + 131,072) -> floor(8.88) = 8 blocks
  o.cpp_share_policy = true;
  BOOST_TEST(trtllm_profile(m, o).windows[0].blocks == 8u);
}

BOOST_AUTO_TEST_CASE(pool_smaller_than_max_seq_len) {
  // 1 GiB / 131,072 = 8,192 tokens = 256 blocks: max_seq_len 131,072 is lowered to 8,192.
  auto r = trtllm_profile(load_model("meta-llama/Llama-3.1-8B"), kv(1 * GiB));
  BOOST_TEST(r.max_seq_len == 8192u);
  BOOST_TEST(r.max_concurrency == 256.0 / 4096);
  auto z = trtllm_profile(load_model("meta-llama/Llama-3.1-8B"), kv(1000));
  BOOST_TEST(!z.starts);
}

BOOST_AUTO_TEST_CASE(bad_options) {
  auto m = load_model("meta-llama/Llama-3.1-8B");
  auto o = kv(GiB);
  o.free_gpu_memory_fraction = 0;
  BOOST_CHECK_EXCEPTION(trtllm_profile(m, o), InputError, HasMessage({"free_gpu_memory_fraction"}));
  o = kv(GiB);
  o.kv_cache_dtype = "int2";
  BOOST_CHECK_EXCEPTION(trtllm_profile(m, o), InputError, HasMessage({"dtype", "int2"}));
}

BOOST_AUTO_TEST_SUITE_END()
