// Weight bytes. Expected values are derived by hand from the shapes and the storage rules:
// bf16/fp16 = 2 B per value; fp8 = 1 B per value plus, for DeepSeek, one fp32 scale per
// 128x128 block (rounded up at the edges); mxfp4 = 17 B per 32 values; ggml/nvfp4 blocks
// along each row, rounded up; norms and biases stay in the model dtype.
#include <cstdint>

#include "helpers.h"
#include "kvplan/weights.h"

using kvplan::Dtype;
using kvplan::load_model;
using kvplan::weight_bytes;
using u64 = std::uint64_t;

BOOST_AUTO_TEST_SUITE(weights)

BOOST_AUTO_TEST_CASE(llama_3_1_70b_bf16_is_141_gb) {
  // S4: "weights 141 GB" = 70,553,706,496 parameters x 2 B.
  auto w = weight_bytes(load_model("meta-llama/Llama-3.1-70B"));
  BOOST_TEST(w.total == 141'107'412'992u);
  BOOST_TEST(w.scheme == "bf16");
  BOOST_TEST(w.experts == 0u);
  BOOST_TEST(w.non_experts == w.total);
  // Per token: everything but the untied embedding table, of which one 8192-value row is read.
  BOOST_TEST(w.active == 141'107'412'992u - 2u * 128256 * 8192 + 2u * 8192);
  BOOST_TEST(w.mtp == 0u);
}

BOOST_AUTO_TEST_CASE(qwen3_0_6b_bf16_is_1_2_gb) {
  // S3: "roughly 4x the 1.2 GB of BF16 weights": 596,049,920 x 2 B. Tied: the table is the head
  // and is read whole every token.
  auto w = weight_bytes(load_model("Qwen/Qwen3-0.6B"));
  BOOST_TEST(w.total == 2u * 596'049'920);
  BOOST_TEST(w.active == w.total);
}

BOOST_AUTO_TEST_CASE(fp8_override_halves_the_matrices) {
  // Llama-3.1-70B: norms (2 per layer + final, 8192 each) stay bf16; all else 1 B per value.
  constexpr u64 norms = 80 * 2 * 8192 + 8192;
  constexpr u64 bf16 = 141'107'412'992;
  auto w = weight_bytes(load_model("meta-llama/Llama-3.1-70B"), Dtype::fp8_e4m3);
  BOOST_TEST(w.total == (bf16 - 2 * norms) / 2 + 2 * norms);
  BOOST_TEST(w.scheme == "fp8_e4m3 (norms and biases bf16)");
  // Overriding with the model's own dtype changes nothing.
  BOOST_TEST(weight_bytes(load_model("meta-llama/Llama-3.1-70B"), Dtype::bf16).total == bf16);
}

BOOST_AUTO_TEST_CASE(q4_0_override_uses_whole_blocks_per_row) {
  // Llama-3.1-8B in q4_0 (18 B per 32 values). Rows with 4096 inputs: q 4096, k 1024, v 1024,
  // o 4096, gate 14336, up 14336 per layer, plus embedding and head (128256 each): 4096/32*18 =
  // 2304 B per row. down: 4096 rows of 14336 inputs: 14336/32*18 = 8064 B per row.
  constexpr u64 rows4096 = 4096 + 1024 + 1024 + 4096 + 14336 + 14336;
  constexpr u64 norms = 32 * 2 * 4096 + 4096;
  constexpr u64 expect = 32 * (rows4096 * 2304 + 4096 * 8064) + 2 * 128256 * 2304 + 2 * norms;
  BOOST_TEST(weight_bytes(load_model("meta-llama/Llama-3.1-8B"), Dtype::q4_0).total == expect);
}

BOOST_AUTO_TEST_CASE(block_rows_round_up) {
  // One layer, h 40 (4 heads of 10), MLP 24, vocab 10, untied. nvfp4 blocks hold 16 values in
  // 9 B: a 40-value row takes 3 blocks (27 B), a 24-value row 2 blocks (18 B).
  const std::string cfg = R"({"model_type": "llama", "hidden_size": 40, "num_attention_heads": 4,
      "num_hidden_layers": 1, "intermediate_size": 24, "vocab_size": 10, "torch_dtype": "bfloat16",
      "tie_word_embeddings": false})";
  auto m = kvplan::load_model_from_json(cfg, "tiny.json");
  constexpr u64 rows40 = 40 * 4 /* q k v o */ + 24 * 2 /* gate up */ + 10 + 10 /* embed head */;
  constexpr u64 norms = 3 * 40;
  BOOST_TEST(weight_bytes(m, Dtype::nvfp4).total == rows40 * 27 + 40 * 18 + norms * 2);
  // In bf16 the same model is 2 B per parameter.
  BOOST_TEST(weight_bytes(m).total == 2 * m.params.total);
}

BOOST_AUTO_TEST_CASE(deepseek_v3_fp8_checkpoint) {
  constexpr u64 h = 7168;
  // MLA matrices (rows x cols) and their 128x128 scale grids (ceil(rows/128) x ceil(cols/128)):
  // q_a 1536x7168 (12x56), q_b 24576x1536 (192x12), kv_a 576x7168 (5x56), kv_b 32768x512
  // (256x4), o 7168x16384 (56x128).
  constexpr u64 mla_values = 1536 * h + 24576 * 1536 + 576 * h + 32768 * 512 + h * 16384;
  constexpr u64 mla_scales = 12 * 56 + 192 * 12 + 5 * 56 + 256 * 4 + 56 * 128;
  constexpr u64 mla = mla_values + 4 * mla_scales;
  // One expert: gate/up 2048x7168 (16x56 blocks) and down 7168x2048 (56x16).
  constexpr u64 expert = 3 * 2048 * h + 4 * 3 * (16 * 56);
  // Dense MLP (first 3 layers): 18432x7168 twice and 7168x18432 (144x56 blocks each).
  constexpr u64 dense = 3 * 18432 * h + 4 * 3 * (144 * 56);
  // bf16: per layer input/post norms + q_a/kv_a norms; per MoE layer router 256x7168 + its
  // correction bias; final norm, embedding and head.
  constexpr u64 bf16_params = 61 * (2 * h + 1536 + 512) + 58 * (256 * h + 256) + h + 2 * 129280 * h;
  constexpr u64 total = 61 * mla + 58 * 257 * expert /* 256 routed + 1 shared */ + 3 * dense + 2 * bf16_params;
  auto m = load_model("deepseek-ai/DeepSeek-V3");
  auto w = weight_bytes(m);
  BOOST_TEST(w.total == total);
  BOOST_TEST(w.experts == 58 * 256 * expert);
  BOOST_TEST(w.scheme == "fp8 (128x128 blocks) + bf16");
  // Per token: 8 routed + 1 shared expert per MoE layer, one embedding row.
  constexpr u64 active = 61 * mla + 58 * 9 * expert + 3 * dense +
                         2 * (61 * (2 * h + 1536 + 512) + 58 * (256 * h + 256) + h + 129280 * h + h);
  BOOST_TEST(w.active == active);
  // MTP layer: a MoE layer, eh_proj 7168x14336 in fp8 (56x112 blocks), three norms, and its
  // own bf16 embedding and head.
  constexpr u64 mtp = mla + 257 * expert + 2 * (2 * h + 1536 + 512 + 256 * h + 256) + (h * 2 * h + 4 * 56 * 112) +
                      2 * 3 * h + 2 * 2 * 129280 * h;
  BOOST_TEST(w.mtp == mtp);
  // All in bf16 instead: 2 B per parameter.
  BOOST_TEST(weight_bytes(m, Dtype::bf16).total == 2 * m.params.total);
}

BOOST_AUTO_TEST_CASE(gpt_oss_mxfp4_experts) {
  // Routed experts' matrices in mxfp4: gate_up 5760 rows and down 2880 rows, each of 2880
  // inputs = 90 blocks of 17 B. Everything else (no torch_dtype in the config) bf16.
  constexpr u64 h = 2880;
  constexpr u64 expert_matrix_bytes = (5760 + 2880) * 90 * 17;
  constexpr u64 expert_bias = 5760 + h;
  constexpr u64 attn = (h * 4096 + 4096) + 2 * (h * 512 + 512) + (4096 * h + h) + 64;
  constexpr u64 other_per_layer = attn + 32 * h + 32 /* router */ + 2 * h /* norms */;
  constexpr u64 rest = 24 * other_per_layer + h + 2 * 201088 * h;
  auto w = weight_bytes(load_model("openai/gpt-oss-20b"));
  BOOST_TEST(w.experts == 24 * 32 * (expert_matrix_bytes + 2 * expert_bias));
  BOOST_TEST(w.total == w.experts + 2 * rest);
  BOOST_TEST(w.scheme == "mxfp4 experts + bf16");
  BOOST_TEST(w.active == 24 * 4 * (expert_matrix_bytes + 2 * expert_bias) + 2 * (rest - 201088 * h + h));
  // About 13.8 GB, the size of the published checkpoint.
  BOOST_TEST(w.total > 13'700'000'000u);
  BOOST_TEST(w.total < 13'900'000'000u);
}

BOOST_AUTO_TEST_CASE(every_bundled_model_has_weights) {
  for (const auto& b : kvplan::bundled_models()) {
    BOOST_TEST_CONTEXT(b.id) {
      auto m = load_model(b.id);
      auto w = weight_bytes(m);
      BOOST_TEST(w.total > 0u);
      BOOST_TEST(w.active <= w.total);
      BOOST_TEST(w.experts + w.non_experts == w.total);
      // In a 2-byte model dtype, an explicit 2-byte format costs exactly 2 B per parameter.
      if (kvplan::info(m.dtype).block_bytes == 2)
        BOOST_TEST(weight_bytes(m, Dtype::bf16).total == 2 * m.params.total);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
