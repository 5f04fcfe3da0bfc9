// SGLang profile: docs/engines.md's worked examples and hand-derived cases.
#include "helpers.h"
#include "kvplan/engines.h"

using namespace kvplan;
using kvplan::test::HasMessage;

namespace {
SglangOptions rest(std::uint64_t bytes, std::uint64_t ctx = 131072) {
  SglangOptions o;
  o.rest_bytes = bytes;
  o.context_length = ctx;
  return o;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(engine_sglang)

BOOST_AUTO_TEST_CASE(llama8b_h100_worked_example) {
  SglangOptions o;
  o.gpu_memory_bytes = 81559ull * 1024 * 1024;  // H100-80GB reports 81,559 MiB
  o.free_before_bytes = static_cast<std::uint64_t>(79.1 * GiB);
  o.weights_bytes = 15 * GiB;                     // free after weights: 64.1 GiB
  o.context_length = 131072;
  auto r = sglang_profile(load_model("meta-llama/Llama-3.1-8B"), o);
  // reserved = max(512 + 1.5 x 8,192 + 2 x 256 + 1,024 x 1/8, 10,240) = 13,440 MiB
  BOOST_TEST(r.reserved_mib == 13440u);
  BOOST_TEST(r.mem_fraction_static == 0.835);   // round((81,559 - 13,440) / 81,559, 3)
  BOOST_TEST(r.cell_size == 8u * (128 + 128) * 32 * 2);  // 131,072
  // rest = 64.1 - 79.1 x 0.165 = 51.0485 GiB -> int(51.0485 x 2^30) // 131,072 = 418,189
  BOOST_TEST(r.max_total_num_tokens == 418189u);
  BOOST_TEST(r.rows_allocated == 418190u);      // + one dummy page of 1
  BOOST_TEST(r.k_bytes == 418190ull * 32 * 8 * 128 * 2);
  BOOST_TEST(r.max_running_requests == 2048u); // min(max(int(418,189 / 131,072 x 512) = 1,633, 2,048), 4,096)
  BOOST_TEST(r.log_lines[0].rfind("KV Cache is allocated. #tokens: 418189, K size: ", 0) == 0);
}

BOOST_AUTO_TEST_CASE(default_fraction_tiers) {
  auto m = load_model("meta-llama/Llama-3.1-8B");
  auto frac = [&](std::uint64_t mib, std::uint64_t tp) {
    SglangOptions o;
    o.gpu_memory_bytes = mib * 1024 * 1024;
    o.free_before_bytes = o.gpu_memory_bytes;
    o.weights_bytes = 1 * GiB;
    o.tp_size = tp;
    o.context_length = 8192;
    return sglang_profile(m, o);
  };
  // 40 GiB (tier < 60 GiB: 4k prefill, graph bs 32): 512 + 6,144 + 64 + 128 = 6,848 -> 34,112 / 40,960 = 0.833
  auto a = frac(40960, 1);
  BOOST_TEST(a.reserved_mib == 6848u);
  BOOST_TEST(a.mem_fraction_static == 0.833);
  // TP 4: graph bs 160, 1,024 x 4 / 8 = 512 -> 7,488 -> 0.817
  BOOST_TEST(frac(40960, 4).mem_fraction_static == 0.817);
  // 24 GiB (tier < 35 GiB: 2k, 24): 512 + 3,072 + 48 + 128 = 3,760 -> 20,816 / 24,576 = 0.847
  BOOST_TEST(frac(24576, 1).mem_fraction_static == 0.847);
  // 140 GiB (tier < 160 GiB: 8k, 256): 13,440 -> 129,920 / 143,360 = 0.90625 -> 0.906
  BOOST_TEST(frac(143360, 1).mem_fraction_static == 0.906);
}

BOOST_AUTO_TEST_CASE(page_rounding_and_cap) {
  auto m = load_model("meta-llama/Llama-3.1-8B");
  auto o = rest(10 * GiB + 100 * 131072);  // 82,020 tokens
  o.attention_backend = "trtllm_mha";      // page 64
  auto r = sglang_profile(m, o);
  BOOST_TEST(r.page_size == 64u);
  BOOST_TEST(r.max_total_num_tokens == 82020u / 64 * 64);  // 81,984
  BOOST_TEST(r.rows_allocated == 81984u + 64);
  o.max_total_tokens = 50000;
  BOOST_TEST(sglang_profile(m, o).max_total_num_tokens == 50000u / 64 * 64);  // 49,984
}

BOOST_AUTO_TEST_CASE(deepseek_v3_cells) {
  auto m = load_model("deepseek-ai/DeepSeek-V3");
  auto o = rest(40 * GiB, 163840);
  o.tp_size = 8;
  auto r = sglang_profile(m, o);
  BOOST_TEST(r.cell_size == 576u * 61 * 2);  // 70,272, replicated on every rank
  BOOST_TEST(r.max_total_num_tokens == 40 * GiB / 70272);
  BOOST_TEST(r.v_bytes == 0u);
  o.kv_cache_dtype = "fp8_e4m3";
  BOOST_TEST(sglang_profile(m, o).cell_size == 576u * 61);  // 35,136
  o.attention_backend = "flashmla";
  BOOST_TEST(sglang_profile(m, o).page_size == 64u);
}

// DeepSeek-V3.2 (model_configs/deepseek-ai__DeepSeek-V3.2.json: 61 layers, kv_lora_rank 512,
// qk_rope_head_dim 64, index_head_dim 128). SGLang's python/sglang/srt/server_args.py,
// ServerArgs._set_default_nsa_kv_cache_dtype (main, v0.5.x): `--kv-cache-dtype auto` becomes
// `"fp8_e4m3" if major >= 10 else "bfloat16"` for DeepSeek DSA/NSA, before the checkpoint is read.
// mem_cache/memory_pool.py NSATokenToKVPool: the fp8 row is kv_cache_dim = 512 fp8 + 512 / 128 x 4
// scale bytes + 64 bf16 rope = 656 B; the indexer key is always uint8 with scales, 128 + 4 = 132 B.
BOOST_AUTO_TEST_CASE(deepseek_v32_nsa_default_dtype) {
  auto m = load_model("deepseek-ai/DeepSeek-V3.2");
  auto o = rest(40 * GiB, 163840);
  o.blackwell = true;  // SM100: fp8 cells by default
  auto b = sglang_profile(m, o);
  BOOST_TEST(b.cell_size == 61u * (656 + 132));     // 48,068
  BOOST_TEST(b.max_total_num_tokens == 893519u);    // 40 GiB // 48,068 (page 1)
  o.blackwell = false;  // Hopper: bfloat16
  BOOST_TEST(sglang_profile(m, o).cell_size == 61u * ((512 + 64) * 2 + 132));  // 78,324
  o.kv_cache_dtype = "fp8_e4m3";  // an explicit dtype is kept on any GPU
  BOOST_TEST(sglang_profile(m, o).cell_size == 48068u);
  o.kv_cache_dtype = "bf16";
  o.blackwell = true;
  BOOST_TEST(sglang_profile(m, o).cell_size == 78324u);
  // DeepSeek-V3 (no indexer) keeps the model dtype on Blackwell.
  auto v3 = rest(40 * GiB, 163840);
  v3.blackwell = true;
  BOOST_TEST(sglang_profile(load_model("deepseek-ai/DeepSeek-V3"), v3).cell_size == 576u * 61 * 2);
}

BOOST_AUTO_TEST_CASE(gqa_replication_under_tp) {
  auto m = load_model("meta-llama/Llama-3.1-8B");
  auto o = rest(10 * GiB);
  o.tp_size = 16;  // 8 heads / 16 -> still 1 head per rank
  BOOST_TEST(sglang_profile(m, o).cell_size == 1u * 256 * 32 * 2);
}

BOOST_AUTO_TEST_CASE(qwen3_next_mamba_split) {
  auto m = load_model("Qwen/Qwen3-Next-80B-A3B-Thinking");
  auto r = sglang_profile(m, rest(100 * GiB, 262144));
  BOOST_TEST(r.mamba_cache_per_req == (3u * 8192 * 2 + 32u * 128 * 128 * 4) * 36);  // 77,266,944
  // slots = floor(100 GiB x 0.9 / 1.9 / 77,266,944) = floor(658.26) = 658
  BOOST_TEST(r.mamba_slots == 658u);
  // KV: 12 layers x 2 heads x (256 + 256) x 2 = 24,576 B/token from what the slots leave
  BOOST_TEST(r.cell_size == 12u * 2 * 512 * 2);
  BOOST_TEST(r.max_total_num_tokens == (100 * GiB - 658ull * 77266944) / 24576);
  BOOST_TEST(r.max_running_requests == 658u / 3);  // radix cache on: ratio 3
}

BOOST_AUTO_TEST_CASE(hybrid_swa_ratio) {
  auto m = load_model(test::source_path("tests/data/engine_cases/gpt-oss-120b-like.json"));
  auto r = sglang_profile(m, rest(10 * GiB));
  // F = S = 18 x 2,048 = 36,864; total = 10 GiB // 73,728 = 145,635
  // full = int(145,635 x 73,728 / (36,864 + 0.8 x 36,864)) = 161,816; swa = int(0.8 x 161,816) = 129,452
  BOOST_TEST(r.full_tokens == 161816u);
  BOOST_TEST(r.swa_tokens == 129452u);
  BOOST_TEST(r.max_total_num_tokens == 161816u);
  auto o = rest(10 * GiB);
  o.disable_hybrid_swa_memory = true;
  BOOST_TEST(sglang_profile(m, o).max_total_num_tokens == 145635u);
}

BOOST_AUTO_TEST_CASE(not_enough_memory) {
  SglangOptions o;
  o.gpu_memory_bytes = 24 * GiB;
  o.free_before_bytes = 24 * GiB;
  o.weights_bytes = 23 * GiB;  // rest = 1 - 24 x 0.153 < 0
  o.context_length = 8192;
  auto r = sglang_profile(load_model("meta-llama/Llama-3.1-8B"), o);
  BOOST_TEST(!r.starts);
  BOOST_TEST(r.error.find("--mem-fraction-static") != std::string::npos);
  auto bad = rest(GiB);
  bad.mem_fraction_static = 1.5;
  BOOST_CHECK_EXCEPTION(sglang_profile(load_model("meta-llama/Llama-3.1-8B"), bad), InputError,
                        HasMessage({"--mem-fraction-static"}));
}

BOOST_AUTO_TEST_SUITE_END()
