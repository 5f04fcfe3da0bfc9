// Seed figures (../shared/spec/seed-figures.md) computed from the bundled configs.
#include "helpers.h"

using namespace kvplan;
using kvplan::test::workload;

namespace {
// A bundled config with some fields changed (S5, S7, S8 ask "the same model, but ...").
ModelSpec variant(const std::string& id, const nlohmann::json& patch) {
  auto b = find_bundled(id);
  BOOST_REQUIRE(b);
  auto j = nlohmann::json::parse(b->json);
  j.merge_patch(patch);
  return load_model_from_json(j.dump(), id + " (modified)");
}
}  // namespace

BOOST_AUTO_TEST_SUITE(seeds)

BOOST_AUTO_TEST_CASE(golden_sizes_from_shared_data) {
  // The same table the Python tests check; each expected value is a hand derivation.
  for (const auto& c : test::golden()["sizes"]) {
    BOOST_TEST_CONTEXT(c["id"].get<std::string>()) {
      auto m = load_model(c["model"].get<std::string>());
      Workload w;
      w.tokens = c["tokens"];
      w.batch = c["batch"];
      auto dt = c["kv_dtype"].get<std::string>();
      if (dt != "auto") w.k_dtype = w.v_dtype = parse_dtype(dt);
      if (c.contains("state_dtype")) w.state_dtype = parse_dtype(c["state_dtype"].get<std::string>());
      auto s = cache_size(m, w);
      auto j = to_json(s);
      BOOST_TEST(j[c["key"].get<std::string>()].get<std::uint64_t>() == c["expected"].get<std::uint64_t>());
      BOOST_TEST(s.total_bytes == s.kv_bytes + s.state_bytes);
    }
  }
}

BOOST_AUTO_TEST_CASE(s1_qwen3_per_token_is_112_kib) {
  auto s = cache_size(load_model("Qwen/Qwen3-0.6B"), workload(1, 1, Dtype::bf16));
  BOOST_TEST(s.bytes_per_token == 28u * 2 * 8 * 128 * 2);
  BOOST_TEST(s.bytes_per_token == 112u * KiB);
}

BOOST_AUTO_TEST_CASE(s2_qwen3_512_tokens_numbers) {
  // 29,360,128 numbers in K and V of all layers; 2 bytes each in bf16.
  auto s = cache_size(load_model("Qwen/Qwen3-0.6B"), workload(512, 1, Dtype::bf16));
  BOOST_TEST(s.kv_bytes / 2 == 29'360'128u);
  BOOST_TEST(s.layers[0].per_sequence.k_bytes / 2 == 1u * 8 * 512 * 128);  // K of layer 0: [1, 8, 512, 128]
}

BOOST_AUTO_TEST_CASE(s3_qwen3_full_context_about_4_7_gb) {
  auto m = load_model("Qwen/Qwen3-0.6B");
  BOOST_TEST(m.dims.max_position_embeddings == 40960u);
  auto s = cache_size(m, workload(m.dims.max_position_embeddings, 1, Dtype::bf16));
  BOOST_TEST(s.total_bytes == 114688ull * 40960);
  BOOST_TEST(format_gb(s.total_bytes, 1) == "4.7 GB");
}

BOOST_AUTO_TEST_CASE(s4_llama70b_128k_is_43_gb) {
  auto s = cache_size(load_model("meta-llama/Llama-3.1-70B"), workload(131072, 1, Dtype::fp16));
  BOOST_TEST(s.bytes_per_token == 327680u);
  BOOST_TEST((s.bytes_per_token + 5000) / 10000 == 33u);  // about 0.33 MB
  BOOST_TEST(format_gb(s.total_bytes, 0) == "43 GB");
  BOOST_TEST(s.total_bytes == 40 * GiB);
}

BOOST_AUTO_TEST_CASE(s5_llama70b_without_gqa_344_gb) {
  auto m = variant("meta-llama/Llama-3.1-70B", {{"num_key_value_heads", 64}});
  auto s = cache_size(m, workload(131072, 1, Dtype::fp16));
  BOOST_TEST(s.total_bytes == 2ull * 80 * 64 * 128 * 2 * 131072);
  BOOST_TEST(format_gb(s.total_bytes, 0) == "344 GB");
}

BOOST_AUTO_TEST_CASE(s6_deepseek_mla_almost_5x_less_than_llama70b) {
  auto ds = cache_size(load_model("deepseek-ai/DeepSeek-V3"), workload(1, 1, Dtype::bf16)).bytes_per_token;
  auto ll = cache_size(load_model("meta-llama/Llama-3.1-70B"), workload(1, 1, Dtype::bf16)).bytes_per_token;
  BOOST_TEST(ds == 61u * 576 * 2);
  BOOST_TEST(ds / 1000 == 70u);  // about 70 KB per token
  const double ratio = static_cast<double>(ll) / static_cast<double>(ds);
  BOOST_TEST(ratio > 4.5);
  BOOST_TEST(ratio < 5.0);
}

BOOST_AUTO_TEST_CASE(s7_deepseek_as_plain_mha_about_70x_more) {
  // kv_lora_rank null: DeepSeek's MHA form caches 128 heads of K (192) and V (128).
  // (Set to null, not removed: merge_patch would delete the key, and an absent kv_lora_rank is
  // refused since transformers would read it as its default 512.)
  auto j = nlohmann::json::parse(find_bundled("deepseek-ai/DeepSeek-V3")->json);
  j["kv_lora_rank"] = nullptr;
  auto mha = load_model_from_json(j.dump(), "deepseek-ai/DeepSeek-V3 (kv_lora_rank null)");
  BOOST_TEST(mha.count_kind("full_attention") == 61u);
  auto per_token = cache_size(mha, workload(1, 1, Dtype::bf16)).bytes_per_token;
  BOOST_TEST(per_token == 61u * 128 * (192 + 128) * 2);
  auto mla = cache_size(load_model("deepseek-ai/DeepSeek-V3"), workload(1, 1, Dtype::bf16)).bytes_per_token;
  const double ratio = static_cast<double>(per_token) / static_cast<double>(mla);
  BOOST_TEST(ratio > 65.0);
  BOOST_TEST(ratio < 75.0);
}

BOOST_AUTO_TEST_CASE(s8_gemma3_sliding_layers_17_percent_at_128k) {
  // Gemma 3's large models: window 1024, pattern 6 (the default), 62 layers (27B).
  auto m = variant("google/gemma-3-1b-it", {{"sliding_window", 1024}, {"num_hidden_layers", 62}});
  BOOST_TEST(m.count_kind("sliding_attention") == 52u);
  BOOST_TEST(m.count_kind("full_attention") == 10u);
  auto all_full = variant("google/gemma-3-1b-it", {{"num_hidden_layers", 62}, {"sliding_window_pattern", 1}});
  BOOST_TEST(all_full.count_kind("full_attention") == 62u);
  auto windowed = cache_size(m, workload(131072, 1, Dtype::bf16)).total_bytes;
  auto full = cache_size(all_full, workload(131072, 1, Dtype::bf16)).total_bytes;
  BOOST_TEST(windowed == 1024ull * (10 * 131072 + 52 * 1024));  // 1 KV head x 256 x 2 x 2 B = 1 KiB/token/layer
  const double share = static_cast<double>(windowed) / static_cast<double>(full);
  BOOST_TEST(share > 0.16);
  BOOST_TEST(share < 0.175);
}

BOOST_AUTO_TEST_CASE(s9_gpt_oss_half_the_layers_capped) {
  auto m = load_model("openai/gpt-oss-20b");
  BOOST_TEST(m.count_kind("sliding_attention") == 12u);
  BOOST_TEST(m.count_kind("full_attention") == 12u);
  auto s = cache_size(m, workload(131072, 1, Dtype::bf16));
  for (const auto& l : s.layers)
    BOOST_TEST(l.per_sequence.tokens_held == (l.kind == "sliding_attention" ? 128u : 131072u));
}

BOOST_AUTO_TEST_CASE(s10_qwen_linear_hybrids_one_in_four) {
  auto next = load_model("Qwen/Qwen3-Next-80B-A3B-Thinking");
  BOOST_TEST(next.dims.num_attention_heads == 16u);
  BOOST_TEST(test::full_attention_of(next.layers[3].cache()).kv_heads == 2u);
  BOOST_TEST(next.count_kind("full_attention") * 4 == next.num_layers());
  auto q35 = load_model("Qwen/Qwen3.5-35B-A3B");
  BOOST_TEST(q35.count_kind("full_attention") * 4 == q35.num_layers());
  BOOST_TEST(q35.count_kind("linear_attention") == 30u);
  // The linear layers' state is constant: the same at 1 and at 100k tokens.
  BOOST_TEST(cache_size(next, workload(1)).state_bytes == cache_size(next, workload(100000)).state_bytes);
}

BOOST_AUTO_TEST_CASE(s14_tp_splits_gqa_heads_but_not_mla) {
  auto llama = load_model("meta-llama/Llama-3.1-70B");
  for (std::uint64_t tp : {1u, 2u, 4u, 8u}) {
    auto w = workload(1, 1, Dtype::bf16);
    w.tp = tp;
    BOOST_TEST(cache_size(llama, w).bytes_per_token == 327680u / tp);
  }
  auto w16 = workload(1, 1, Dtype::bf16);
  w16.tp = 16;  // more ranks than KV heads: each still holds one head
  BOOST_TEST(cache_size(llama, w16).bytes_per_token == 80u * 2 * 1 * 128 * 2);
  auto ds = load_model("deepseek-ai/DeepSeek-V3");
  auto w8 = workload(1, 1, Dtype::bf16);
  w8.tp = 8;
  BOOST_TEST(cache_size(ds, w8).bytes_per_token == 70272u);
}

BOOST_AUTO_TEST_CASE(s15_fp8_and_q8_0_halve_bf16) {
  auto m = load_model("meta-llama/Llama-3.1-8B");
  auto bf16 = cache_size(m, workload(8192, 1, Dtype::bf16)).total_bytes;
  BOOST_TEST(cache_size(m, workload(8192, 1, Dtype::fp8_e4m3)).total_bytes * 2 == bf16);
  BOOST_TEST(cache_size(m, workload(8192, 1, Dtype::int8)).total_bytes * 2 == bf16);
  // q8_0 keeps an fp16 scale per 32 values: 34/64 of bf16.
  BOOST_TEST(cache_size(m, workload(8192, 1, Dtype::q8_0)).total_bytes * 64 == bf16 * 34);
}

// S13: a prompt of 8 tokens, then 16 steps of one. With the cache 8 + 15 = 23 tokens are
// computed; without it step n recomputes 8 + n, sum(8..23) = 248 (the web panel's figures).
BOOST_AUTO_TEST_CASE(s13_generation_loop) {
  const ModelSpec m = load_model("Qwen/Qwen3-0.6B");
  const auto rows = generation_steps(m, test::workload(1, 1, Dtype::bf16), 8, 16);
  BOOST_REQUIRE_EQUAL(rows.size(), 16u);
  BOOST_TEST(rows[0].tokens_computed_with_cache == 8u);
  BOOST_TEST(rows[0].tokens_computed_without_cache == 8u);
  BOOST_TEST(rows[5].tokens_computed_with_cache == 1u);
  BOOST_TEST(rows[5].tokens_computed_without_cache == 13u);
  BOOST_TEST(rows.back().sequence_tokens == 23u);
  BOOST_TEST(rows.back().cumulative_with_cache == 23u);
  BOOST_TEST(rows.back().cumulative_without_cache == 248u);
  // The cache after step n holds 8 + n tokens of 114,688 bytes (28 x 2 x 8 x 128 x 2).
  for (const auto& r : rows) BOOST_TEST(r.cache_bytes == 114688u * (8 + r.step));
  BOOST_CHECK_EXCEPTION(generation_steps(m, Workload{}, 0, 4), InputError, test::HasMessage({"prompt"}));
  BOOST_CHECK_EXCEPTION(generation_steps(m, Workload{}, 8, 0), InputError, test::HasMessage({"steps", "1 to 65536"}));
  BOOST_CHECK_THROW(generation_steps(m, Workload{}, ~0ull, 2), OverflowError);
}

BOOST_AUTO_TEST_SUITE_END()
