// Weight bytes. Expected values are derived by hand from the shapes and the storage rules:
// bf16/fp16 = 2 B per value; fp8 = 1 B per value plus, for DeepSeek, one fp32 scale per
// 128x128 block (rounded up at the edges); mxfp4 = 17 B per 32 values; ggml/nvfp4 blocks
// along each row, rounded up; norms and biases stay in the model dtype.
#include <cmath>
#include <cstdint>
#include <string>

#include "helpers.h"
#include "kvplan/weights.h"

using kvplan::Dtype;
using kvplan::load_model;
using kvplan::weight_bytes;
using kvplan::test::HasMessage;
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
  // MTP layer: a MoE layer, eh_proj 7168x14336 in bf16 (vLLM's deepseek_mtp.py loads it as a
  // plain nn.Linear: not quantised in the checkpoint), three norms, and its own bf16 embedding
  // and head.
  constexpr u64 mtp = mla + 257 * expert + 2 * (2 * h + 1536 + 512 + 256 * h + 256) + 2 * (h * 2 * h) +
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
  // The published checkpoint: metadata.total_size of openai/gpt-oss-20b's
  // model.safetensors.index.json is 13,761,264,768 B (docs/formulas.md gives where it is quoted).
  BOOST_TEST(w.total == 13'761'264'768u);
}

// ---- --weight-dtype presets ------------------------------------------------------------------
// Llama-3.1-8B (untied, 32 layers): 224 quantisable matrices holding kLinear = 6,979,321,856
// values; embedding table + head (2 x 128,256 x 4,096) and 266,240 norm values stay bf16 under the
// quantization_config presets (kRestBf16 = 2,101,878,784 B), as the checkpoint rule says.
namespace {
constexpr u64 kLinear = 6'979'321'856, kRestBf16 = 2'101'878'784, kMatrices = 224;
kvplan::WeightFormat preset(const char* name) { return kvplan::parse_weight_format(name); }
}  // namespace

BOOST_AUTO_TEST_CASE(quantization_config_presets_price_like_their_configs) {
  auto m = load_model("meta-llama/Llama-3.1-8B");
  // awq: 4 bits + per 128 values an fp16 scale and a 4-bit zero; the same 5,727,854,592 B the
  // checkpoint test in test_checkpoints.cpp gets from an AutoAWQ quantization_config.
  auto awq = weight_bytes(m, preset("awq"));
  BOOST_TEST(awq.total == kLinear / 2 + kLinear / 128 * 20 / 8 + kRestBf16);
  BOOST_TEST(awq.total == 5'727'854'592u);
  BOOST_TEST(awq.scheme == "awq int4 g128 + bf16 (preset --weight-dtype awq)");
  // gptq: as awq plus g_idx, one int32 per input column (6 x 4,096 + 14,336 per layer).
  BOOST_TEST(weight_bytes(m, preset("GPTQ")).total == 5'727'854'592u + 32u * (6 * 4096 + 14336) * 4);
  // nf4: 4 bits + an fp32 absmax per 64 values + quant_map (64 B) and quant_state (128 B) per matrix.
  BOOST_TEST(weight_bytes(m, preset("nf4")).total == kLinear / 2 + kLinear / 64 * 4 + kMatrices * 192 + kRestBf16);
  // w8a8: int8 + a bf16 scale per output row (43,008 rows a layer); dynamic activations store none.
  BOOST_TEST(weight_bytes(m, preset("w8a8")).total == kLinear + 32u * 43008 * 2 + kRestBf16);
  // fp8: 1 B per value + one fp32 scale per matrix; embeddings and head stay bf16 (the plain
  // dtype fp8_e4m3 still stores every matrix, head and table included, in fp8).
  BOOST_TEST(weight_bytes(m, preset("fp8")).total == kLinear + kMatrices * 4 + kRestBf16);
  BOOST_TEST(weight_bytes(m, preset("fp8_e4m3")).total == kLinear + 2u * 128256 * 4096 + 266240u * 2);
  BOOST_TEST((preset("fp8").dtype == Dtype::fp8_e4m3));
}

BOOST_AUTO_TEST_CASE(mxfp4_preset_is_the_gpt_oss_layout) {
  // Routed experts in mxfp4 (17 B per 32 values), the rest in the serving dtype (bf16: gpt-oss's
  // config names none): on gpt-oss-20b the preset gives what its own quantization_config gives.
  auto oss = load_model("openai/gpt-oss-20b");
  BOOST_TEST(weight_bytes(oss, preset("mxfp4")).total == weight_bytes(oss).total);
  BOOST_TEST(weight_bytes(oss, preset("mxfp4")).experts == weight_bytes(oss).experts);
  // A dense model has no routed experts to quantise: an error, not a silent bf16.
  BOOST_CHECK_EXCEPTION(weight_bytes(load_model("meta-llama/Llama-3.1-8B"), preset("mxfp4")), kvplan::InputError,
                        HasMessage({"--weight-dtype", "mxfp4", "routed experts"}));
}

BOOST_AUTO_TEST_CASE(unknown_weight_format_lists_the_valid_ones) {
  BOOST_CHECK_EXCEPTION(kvplan::parse_weight_format("awq8"), kvplan::InputError,
                        HasMessage({"--weight-dtype", "awq8", "awq gptq nf4 w8a8 fp8 mxfp4", "Q4_K_M", "IQ4_XS",
                                    "bf16", "fp8_e4m3"}));
  BOOST_TEST(preset("q4_k_m").preset == "Q4_K_M");
  BOOST_TEST(preset("bf16").preset.empty());
}

// GGUF file types against llama.cpp's own published table (tools/quantize/README.md, "Quantization"
// for meta-llama/Llama-3.1-8B: bits/weight to 4 decimals over its 8,030,261,312 parameters, i.e.
// bytes = bpw x 8,030,261,312 / 8, the sum of the file's tensor sizes). Exact values derived by hand
// from llama-quantize's type choice: per layer q, o 4096x4096, k 1024x4096, gate, up 14336x4096 in
// the base type; attn_v (1024x4096) and ffn_down (4096x14336) bumped on the use_more_bits layers
// (0-3, 28-31 and 6, 9, ..., 27: 16 of 32); output 128256x4096 in Q6_K; token_embd in the base
// type; norms F32 (65 x 4,096 values). Row bytes per 4,096 values: Q4_K 2,304, Q5_K 2,816, Q6_K
// 3,360, Q8_0 4,352, IQ4_XS 2,176, IQ4_NL 2,304.
BOOST_AUTO_TEST_CASE(gguf_presets_match_llama_cpp_published_sizes) {
  auto m = load_model("meta-llama/Llama-3.1-8B");
  constexpr u64 params = 8'030'261'312;  // llama.cpp's count (the 64 rope_freqs values included)
  struct Case {
    const char* ftype;
    double bpw;       // published bits per weight
    u64 exact;        // derived by hand (above)
  };
  for (const Case c : {Case{"Q4_K_M", 4.8944, 4'912'898'048u}, Case{"Q5_K_M", 5.7036, 5'725'151'232u},
                       Case{"Q4_K_S", 4.6672, 4'684'832'768u}, Case{"Q5_K_S", 5.5704, 5'591'457'792u},
                       Case{"Q6_K", 6.5633, 6'588'170'240u}, Case{"Q8_0", 8.5008, 8'532'934'656u},
                       Case{"IQ4_XS", 4.4597, 4'476'526'592u}, Case{"IQ4_NL", 4.6818, 4'699'512'832u}}) {
    BOOST_TEST_CONTEXT(c.ftype) {
      auto w = weight_bytes(m, preset(c.ftype));
      BOOST_TEST(w.total == c.exact);
      const double published = c.bpw * static_cast<double>(params) / 8;
      BOOST_TEST(std::abs(static_cast<double>(w.total) / published - 1) < 1e-4);  // within 0.01 %
      BOOST_TEST(w.scheme.find(std::string(c.ftype) + " (llama-quantize per-tensor types: ") == 0);
    }
  }
  // Q4_K_M by hand: 32 x (2 x 4096 x 2304 + 1024 x 2304 + 2 x 14336 x 2304) base matrices,
  // 16 layers of attn_v + ffn_down in Q6_K (1024 x 3360 + 4096 x 14336 / 256 x 210) and 16 in Q4_K,
  // embeddings 128256 x 2304, output 128256 x 3360, norms 266,240 x 4.
  const u64 base = 32u * (2 * 4096 * 2304 + 1024 * 2304 + 2 * 14336 * 2304);
  const u64 more = 16u * (1024 * 3360 + 4096u * 56 * 210), less = 16u * (1024 * 2304 + 4096u * 56 * 144);
  BOOST_TEST(weight_bytes(m, preset("Q4_K_M")).total == base + more + less + 128256u * 2304 + 128256u * 3360 + 266240u * 4);
  // A plain 4-bit legacy dtype stores every matrix, the head included, in that dtype; the Q4_0
  // preset keeps llama-quantize's Q6_K head.
  BOOST_TEST(weight_bytes(m, preset("Q4_0")).total > weight_bytes(m, Dtype::q4_0).total);
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
      // Every preset prices every model (mxfp4 only those with routed experts) below its bf16 size.
      for (const auto& p : kvplan::weight_preset_names()) {
        if (p == "mxfp4" && m.params.moe_routed == 0) continue;
        BOOST_TEST_CONTEXT(p) {
          auto q = weight_bytes(m, kvplan::parse_weight_format(p));
          BOOST_TEST(q.total > 0u);
          BOOST_TEST(q.active <= q.total);
          BOOST_TEST(q.total < weight_bytes(m, Dtype::fp32).total);
        }
      }
    }
  }
}

// ---- issue 12 items 5 and 6: weights are never silently zero, weight-only fields never block the cache ----

namespace {
kvplan::ModelSpec config_file(const std::string& rel) {
  return kvplan::load_model_from_json(kvplan::test::read_json(rel).dump(), rel);
}
kvplan::ModelSpec with_quantization(const nlohmann::json& qc) {
  auto cfg = kvplan::test::read_json("model_configs/mistralai__Mistral-7B-v0.1.json");
  cfg["quantization_config"] = qc;
  return kvplan::load_model_from_json(cfg.dump(), "config.json");
}
kvplan::PlanInput h100_plan() {
  kvplan::PlanInput in;
  in.gpu = kvplan::find_accelerator("H100");
  in.context = 4096;
  return in;
}
// Devstral Small 2's quantization_config, verbatim (tests/data/weights/README.md).
const nlohmann::json kDevstralFp8 = {{"activation_scheme", "static"},
                                     {"dequantize", false},
                                     {"modules_to_not_convert", {"model.vision_tower", "model.multi_modal_projector", "lm_head"}},
                                     {"quant_method", "fp8"},
                                     {"weight_block_size", nullptr}};
}  // namespace

BOOST_AUTO_TEST_CASE(nemotron_3_nano_moe_layers_are_counted) {
  // NVIDIA-Nemotron-3-Nano-30B-A3B: published 31.6B total, 3.2B active (3.6B with embeddings).
  // Derived from its config and transformers' NemotronH modules (h = 2688, V = 131072, untied):
  //   Mamba-2 layer: in_proj (2x4096 + 2x8x128 + 64) x h, conv (4096+2048) x 4 + bias 6144,
  //                  dt_bias/A_log/D 3 x 64, norm 4096, out_proj h x 4096      = 38,742,208
  //   attention:     q 4096 x h, k/v 2 x 256 x h, o h x 4096                    = 22,396,352
  //   MoE layer:     router 128 x h + bias 128, 128 experts x (up + down 1856 x h),
  //                  shared expert up + down 3712 x h                          = 1,297,465,472
  //   + 53 RMSNorms of h + embedding and head 2 x V x h.
  const u64 h = 2688, V = 131072;
  const u64 mamba = 10304 * h + 6144 * 4 + 6144 + 3 * 64 + 4096 + h * 4096;
  const u64 attn = 4096 * h + 2 * 256 * h + h * 4096;
  const u64 moe = 128 * h + 128 + 128 * 2 * 1856 * h + 2 * 3712 * h;
  const u64 total = 2 * V * h + 23 * mamba + 6 * attn + 23 * moe + 53 * h;
  BOOST_TEST(mamba == 38'742'208u);
  BOOST_TEST(moe == 1'297'465'472u);
  BOOST_TEST(total == 31'577'940'288u);
  auto m = config_file("tests/data/weights/nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.json");
  BOOST_TEST(m.params.unknown_reason.empty());
  BOOST_TEST(m.params.total == total);
  BOOST_TEST(m.params.total > 31.4e9);  // 31.6B published, within 0.1 %
  BOOST_TEST(m.params.total < 31.7e9);
  const u64 active = total - 23 * 122 * 2 * 1856 * h;  // 6 of 128 experts per token
  BOOST_TEST(m.params.active == active);
  // 3,580,076,352 = "3.6B including embeddings"; without the input table (a lookup) 3.23B = "3.2B".
  BOOST_TEST(m.params.active == 3'580'076'352u);
  BOOST_TEST(m.params.active - m.params.embedding > 3.2e9);
  BOOST_TEST(m.params.active - m.params.embedding < 3.25e9);
  auto w = weight_bytes(m);
  BOOST_TEST(w.unknown.empty());
  BOOST_TEST(w.total == 2 * total);  // bf16
  BOOST_TEST(w.experts == 2u * 23 * 128 * 2 * 1856 * h);
}

BOOST_AUTO_TEST_CASE(unknown_weights_stop_plan_and_sweep) {
  // A model_type with no parameter rule and no intermediate_size: the cache is sized, the weights
  // are unknown, and plan/sweep ask for --weights instead of planning with 0 bytes.
  const std::string bare = R"({"model_type": "brandnew", "hidden_size": 64, "num_attention_heads": 4,
      "num_hidden_layers": 2, "vocab_size": 1000, "torch_dtype": "bfloat16"})";
  kvplan::LoadOptions opts;
  opts.assume = {"dense"};
  auto m = kvplan::load_model_from_json(bare, "bare.json", opts);
  BOOST_TEST(kvplan::cache_size(m, kvplan::Workload{}).bytes_per_token == 2u * 2 * 64 * 2);
  auto w = weight_bytes(m);
  BOOST_TEST(w.total == 0u);
  BOOST_TEST(w.unknown.find("no parameter rule") != std::string::npos);
  BOOST_TEST(weight_bytes(m, Dtype::fp8_e4m3).unknown == w.unknown);  // no inventory to price either
  auto in = h100_plan();
  BOOST_CHECK_EXCEPTION(kvplan::plan(m, in), kvplan::InputError,
                        (kvplan::test::HasMessage{m.name + ": weight bytes unknown (", "no parameter rule",
                                                  "give the checkpoint's size with --weights"}));
  const std::vector<u64> contexts{4096};
  const std::vector<u64> conc{1};
  BOOST_CHECK_EXCEPTION(kvplan::sweep(m, in, contexts, conc), kvplan::InputError,
                        (kvplan::test::HasMessage{"weight bytes unknown", "--weights"}));
  // Given --weights, the plan runs with that figure.
  in.weight_bytes = 1'000'000;
  BOOST_TEST(kvplan::plan(m, in).per_gpu.weights_bytes == 1'000'000u);
}

BOOST_AUTO_TEST_CASE(per_tensor_fp8_is_valid) {
  // weight_block_size null: one fp32 scale per quantised matrix, and with activation_scheme
  // static one fp32 input_scale (vLLM fp8.py). Mistral-7B: 32 layers x 7 matrices of 1 B per
  // value, embedding/head (lm_head not converted) and norms in bf16.
  auto m = with_quantization(kDevstralFp8);
  BOOST_TEST(m.params.unknown_reason.empty());
  BOOST_REQUIRE(m.quantization.has_value());
  BOOST_TEST(m.quantization->block_rows == 0u);
  const u64 h = 4096, i = 14336, kv = 1024, V = 32000;
  const u64 linear = 32 * (2 * h * h + 2 * kv * h + 3 * h * i);
  const auto w = weight_bytes(m);
  BOOST_TEST(w.total == linear + 32u * 7 * 8 + 2 * (2 * V * h + 65 * h));
  BOOST_TEST(w.scheme == "fp8 + bf16");
}

BOOST_AUTO_TEST_CASE(malformed_quantization_config_never_blocks_the_cache) {
  // fmt: null (and any fmt other than e4m3/e5m2) is a ConfigError naming the field, kept for
  // where weights are needed; the cache answer is unchanged.
  auto qc = kDevstralFp8;
  qc["fmt"] = nullptr;
  auto m = with_quantization(qc);
  const auto plain = load_model("mistralai/Mistral-7B-v0.1");
  BOOST_TEST(kvplan::cache_size(m, kvplan::Workload{}).bytes_per_token ==
             kvplan::cache_size(plain, kvplan::Workload{}).bytes_per_token);
  BOOST_TEST(!m.quantization.has_value());
  BOOST_TEST(m.params.unknown_reason == "config.json (/quantization_config/fmt): expected an fp8 format: \"e4m3\", "
                                        "\"e5m2\" or a torch name such as \"float8_e4m3fn\" (or no fmt: e4m3), got null "
                                        "[model_type=mistral]");
  BOOST_TEST(m.params.total == plain.params.total);  // the inventory is still there
  auto w = weight_bytes(m);
  BOOST_TEST(w.total == 0u);
  BOOST_TEST(w.unknown == m.params.unknown_reason);
  // A dtype override needs no quantization_config: priced as usual.
  BOOST_TEST(weight_bytes(m, Dtype::bf16).total == weight_bytes(plain, Dtype::bf16).total);
  BOOST_CHECK_EXCEPTION(kvplan::plan(m, h100_plan()), kvplan::InputError,
                        (kvplan::test::HasMessage{"weight bytes unknown (config.json (/quantization_config/fmt)",
                                                  "--weights"}));
  qc["fmt"] = "e5m2";
  BOOST_TEST((with_quantization(qc).quantization->dtype == Dtype::fp8_e5m2));
  qc["fmt"] = "float8_e4m3fn";  // MiniMax-M2.5's spelling (bundled config)
  BOOST_TEST((with_quantization(qc).quantization->dtype == Dtype::fp8_e4m3));
  qc["fmt"] = "e7m0";
  BOOST_TEST(with_quantization(qc).params.unknown_reason.find("got \"e7m0\"") != std::string::npos);
  // Unknown quant_method: the same path (cache answered, weights refused).
  auto odd = with_quantization({{"quant_method", "made-up"}});
  BOOST_TEST(odd.params.unknown_reason.find("\"made-up\" is not priced") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
