// The reference runtime's buffers against the core library's formula: every bundled config,
// every interesting token count, four cache dtypes, every layer, to the byte.
#include <algorithm>
#include <boost/test/data/test_case.hpp>

#include "helpers.h"
#include "kvplan/runtime/measure.h"

namespace bdata = boost::unit_test::data;
using namespace kvplan;
using namespace kvplan::runtime;

namespace {
std::vector<std::string> bundled_ids() {
  std::vector<std::string> ids;
  for (const auto& b : bundled_models()) ids.push_back(b.id);
  return ids;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(runtime_measure)

// Seed S2: Qwen3-0.6B at 512 tokens. K of each layer is [batch 1, 8 KV heads, 512 tokens,
// head_dim 128]; K and V of the 28 layers hold 28 x 2 x 8 x 512 x 128 = 29,360,128 numbers.
BOOST_AUTO_TEST_CASE(qwen3_0_6b_512_tokens_seed_s2) {
  Workload w = test::workload(512);
  MeasureOptions o;
  Measurement r = measure(load_model("Qwen/Qwen3-0.6B"), w, o);
  BOOST_REQUIRE_EQUAL(r.layers.size(), 28u);
  const auto& k0 = r.layers[0].tensors.at(0);
  BOOST_TEST(k0.name == "k");
  BOOST_TEST(k0.shape == (std::vector<std::uint64_t>{1, 8, 512, 128}), boost::test_tools::per_element());
  BOOST_TEST(r.kv_numbers == 28ull * 2 * 8 * 512 * 128);
  BOOST_TEST(r.kv_numbers == 29360128ull);
  // BF16 (the model dtype): 2 bytes a number, measured from Eigen::bfloat16 buffers.
  BOOST_TEST(k0.element_type == "Eigen::bfloat16");
  BOOST_TEST(k0.element_size == 2u);
  BOOST_TEST(r.measured_total_bytes == 29360128ull * 2);
  BOOST_TEST(r.formula_total_bytes == r.measured_total_bytes);
  BOOST_TEST(r.buffers_stable);
}

// q8_0 packs each 128-number head row into 4 blocks of 34 bytes (ggml's block_q8_0).
BOOST_AUTO_TEST_CASE(q8_0_blocks_per_head_row) {
  Workload w = test::workload(512, 1, Dtype::q8_0);
  Measurement r = measure(load_model("Qwen/Qwen3-0.6B"), w);
  const auto& k0 = r.layers[0].tensors.at(0);
  BOOST_TEST(k0.element_type == "block_q8_0");
  BOOST_TEST(k0.element_size == 34u);
  BOOST_TEST(k0.element_count == 8u * 512 * (128 / 32));
  BOOST_TEST(r.layers[0].measured_bytes == 2ull * 8 * 512 * 4 * 34);
  BOOST_TEST(r.matches());
}

// phi-2's head_dim is 80: a q4_0 row rounds up to 3 blocks (96 numbers, the last 16 padding).
BOOST_AUTO_TEST_CASE(block_rows_round_up) {
  Workload w = test::workload(7, 1, Dtype::q4_0);
  Measurement r = measure(load_model("microsoft/phi-2"), w);
  const auto& k0 = r.layers[0].tensors.at(0);
  BOOST_TEST(k0.shape.back() == 80u);
  BOOST_TEST(k0.element_count == 32u * 7 * 3);  // 32 KV heads x 7 tokens x 3 blocks
  BOOST_TEST(k0.bytes == 32ull * 7 * 3 * 18);
  BOOST_TEST(r.matches());
}

// fp8 keeps one float scale per tensor beside the buffer; it is reported, not counted.
BOOST_AUTO_TEST_CASE(fp8_scales_are_metadata) {
  Workload w = test::workload(16, 1, Dtype::fp8_e4m3);
  Measurement r = measure(load_model("Qwen/Qwen3-0.6B"), w);
  BOOST_TEST(r.scale_bytes == 28u * 2 * sizeof(float));
  BOOST_TEST(r.measured_total_bytes == 28ull * 2 * 8 * 16 * 128 * 1);
  BOOST_TEST(r.matches());
}

// Sliding layers hold a ring of `window` slots however long the sequence (gpt-oss: 128).
BOOST_AUTO_TEST_CASE(sliding_ring_is_window_sized) {
  Workload w = test::workload(300);
  Measurement r = measure(load_model("openai/gpt-oss-20b"), w, MeasureOptions{Options{}, 300});
  BOOST_TEST(r.tokens_run == 300u);
  for (const auto& l : r.layers) {
    const auto& k = l.tensors.at(0);
    BOOST_TEST(k.shape[2] == (l.kind == "sliding_attention" ? 128u : 300u));
  }
  BOOST_TEST(r.buffers_stable);
  BOOST_TEST(r.matches());
}

// DeepSeek-V3: one row of kv_lora_rank + rope = 512 + 64 numbers per token per layer (S6).
BOOST_AUTO_TEST_CASE(mla_latent_rows) {
  Workload w = test::workload(10);
  Measurement r = measure(load_model("deepseek-ai/DeepSeek-V3"), w);
  BOOST_TEST(r.layers[0].tensors.size() == 1u);
  BOOST_TEST(r.layers[0].tensors[0].shape == (std::vector<std::uint64_t>{1, 10, 576}), boost::test_tools::per_element());
  BOOST_TEST(r.measured_total_bytes == 61ull * 10 * 576 * 2);
  // V3.2 adds the indexer key (index_head_dim 128).
  Measurement r2 = measure(load_model("deepseek-ai/DeepSeek-V3.2"), w);
  BOOST_TEST(r2.layers[0].tensors.at(1).name == "indexer_k");
  BOOST_TEST(r2.measured_total_bytes == 61ull * 10 * (576 + 128) * 2);
}

BOOST_AUTO_TEST_CASE(too_many_tokens_is_an_input_error) {
  Model model(load_model("Qwen/Qwen3-0.6B"));
  Cache c = model.allocate(4, resolve_dtypes(model.spec(), Workload{}));
  auto toks = sample_tokens(5, model.dims().vocab);
  BOOST_CHECK_EXCEPTION(model.forward(toks, c), InputError, test::HasMessage({"tokens", "5", "4 tokens"}));
}

// Formula == measured for every layer and every component, exactly (scaled mode).
void check_formula_equals_measured(const ModelSpec& spec, const std::string& id) {
  const Model model(spec);
  std::vector<std::uint64_t> tokens = {1, 7, 512, 4097};
  std::vector<std::uint64_t> window_edges;
  if (auto w = test::smallest_window(spec)) window_edges = {w - 1, w, w + 1};
  tokens.insert(tokens.end(), window_edges.begin(), window_edges.end());
  for (Dtype d : {Dtype::bf16, Dtype::fp8_e4m3, Dtype::q8_0, Dtype::q4_0}) {
    for (std::uint64_t n : tokens) {
      BOOST_TEST_CONTEXT(id << ", " << n << " tokens, " << name(d)) {
        Workload w = test::workload(n, 1, d);
        // A prefill and a decode step run through the allocated cache (the same buffers that
        // were measured) at 1 and 7 tokens and at each window edge, in every dtype. The
        // 512/4097-token caches are allocated by the same Model::allocate and only measured: a
        // 3-token run in them repeats the 7-token one, and each costs a full pass over a wide
        // recurrent state (Nemotron-H: 226M state numbers).
        const bool window_edge = std::find(window_edges.begin(), window_edges.end(), n) != window_edges.end();
        const std::uint64_t run = (n < 512 || window_edge) ? 3 : 0;
        Measurement r = measure(model, w, run);
        const CacheSize formula = cache_size(spec, w);
        BOOST_REQUIRE_EQUAL(r.layers.size(), formula.layers.size());
        for (std::size_t i = 0; i < r.layers.size(); ++i) {
          BOOST_TEST_CONTEXT("layer " << i << " (" << r.layers[i].kind << ")") {
            BOOST_TEST(r.layers[i].measured_bytes == formula.layers[i].bytes);
            BOOST_TEST(r.layers[i].measured_k == formula.layers[i].per_sequence.k_bytes);
            BOOST_TEST(r.layers[i].measured_v == formula.layers[i].per_sequence.v_bytes);
            BOOST_TEST(r.layers[i].measured_conv == formula.layers[i].per_sequence.conv_bytes);
            BOOST_TEST(r.layers[i].measured_ssm == formula.layers[i].per_sequence.ssm_bytes);
          }
        }
        BOOST_TEST(r.measured_total_bytes == formula.total_bytes);
        BOOST_TEST(r.tokens_run == std::min<std::uint64_t>(n, run));
        BOOST_TEST(r.buffers_stable);
      }
    }
  }
}

BOOST_DATA_TEST_CASE(formula_equals_measured, bdata::make(bundled_ids()), id) {
  check_formula_equals_measured(load_model(id), id);
}

// Layers with attention and Mamba-2 side by side (Falcon-H1) or a shared attention block on a
// Mamba-2 layer (Zamba2): every mixer's buffers, summed per layer. Configs: transformers' class
// defaults and the two real configs (tests/data/hybrid_layers/README.md); an Olmo 3 config
// (sliding and full layers from layer_types, tests/data/olmo3/README.md), a Ministral 3 one
// (tests/data/ministral3/README.md) and Step-3's (one KV head of 256 a layer, tests/data/step3/README.md).
BOOST_DATA_TEST_CASE(formula_equals_measured_data_configs,
                     bdata::make(std::vector<std::string>{"hybrid_layers/falcon_h1_transformers_defaults",
                                                          "hybrid_layers/zamba2_transformers_defaults",
                                                          "hybrid_layers/MerlinSafety__HybridIntelligence-0.5B",
                                                          "hybrid_layers/Zyphra__Zamba2-2.7B-Instruct-v2",
                                                          "olmo3/modrill__code-think-o7b-20260908",
                                                          "ministral3/rootlocalghost__ERNIE-Image__pe",
                                                          "step3/stepfun-ai__step3"}),
                     file) {
  const auto cfg = test::read_json("tests/data/" + file + ".json");
  check_formula_equals_measured(load_model_from_json(cfg.dump(), file + ".json"), file);
}

BOOST_AUTO_TEST_SUITE_END()
