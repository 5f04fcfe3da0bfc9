// Per-family layer layouts on the real bundled configs, plus the transformers defaults.
#include <set>

#include "util/config_view.h"
#include "helpers.h"

using namespace kvplan;
using kvplan::test::workload;

namespace {
std::vector<std::string> kinds(const ModelSpec& m) {
  std::vector<std::string> k;
  for (const auto& l : m.layers) k.emplace_back(kind_name(l.cache()));
  return k;
}
ModelSpec patched(const std::string& id, const nlohmann::json& patch) {
  auto j = nlohmann::json::parse(find_bundled(id)->json);
  j.merge_patch(patch);
  return load_model_from_json(j.dump(), "patched.json");
}
}  // namespace

BOOST_AUTO_TEST_SUITE(layouts)

BOOST_AUTO_TEST_CASE(every_bundled_config_loads_and_has_no_unknown_kind) {
  auto all = bundled_models();
  BOOST_TEST(all.size() == 83u);
  for (const auto& b : all) {
    BOOST_TEST_CONTEXT(b.id) {
      auto m = load_model(b.id);
      BOOST_TEST(m.num_layers() > 0u);
      BOOST_TEST(m.name == b.id);
      BOOST_TEST(cache_size(m, workload(4096)).total_bytes > 0u);
    }
  }
}

BOOST_AUTO_TEST_CASE(lookup_is_case_insensitive_and_suggests) {
  BOOST_TEST(load_model("qwen/QWEN3-0.6b").name == "Qwen/Qwen3-0.6B");
  BOOST_CHECK_EXCEPTION(load_model("Qwen/Qwen3-0.7B"), InputError, test::HasMessage({"did you mean", "Qwen/Qwen3-0.6B"}));
}

BOOST_AUTO_TEST_CASE(gqa_mha_mqa_heads) {
  BOOST_TEST(test::full_attention_of(load_model("meta-llama/Llama-2-7b-hf").layers[0].cache()).kv_heads == 32u);
  BOOST_TEST(test::full_attention_of(load_model("Qwen/Qwen3-30B-A3B").layers[0].cache()).kv_heads == 4u);
  // Qwen3: head_dim 128 is explicit and differs from hidden/heads = 64.
  BOOST_TEST(test::full_attention_of(load_model("Qwen/Qwen3-0.6B").layers[0].cache()).k_head_dim == 128u);
  // Llama 3.1: no head_dim field; hidden/heads = 128.
  BOOST_TEST(test::full_attention_of(load_model("meta-llama/Llama-3.1-8B").layers[0].cache()).k_head_dim == 128u);
  // gpt2 keys (n_head, n_embd, n_layer): MHA.
  auto gpt2 = load_model("openai-community/gpt2");
  BOOST_TEST(gpt2.num_layers() == 12u);
  BOOST_TEST(test::full_attention_of(gpt2.layers[0].cache()).kv_heads == 12u);
  // gpt_bigcode multi_query: one KV head.
  BOOST_TEST(test::full_attention_of(load_model("bigcode/gpt_bigcode-santacoder").layers[0].cache()).kv_heads == 1u);
  // Falcon-7B (RefinedWebModel schema): multi_query with the old architecture means 1 KV head.
  auto falcon = load_model("tiiuae/falcon-7b");
  BOOST_TEST(test::full_attention_of(falcon.layers[0].cache()).kv_heads == 1u);
  BOOST_TEST(test::full_attention_of(falcon.layers[0].cache()).k_head_dim == 64u);
  // transformers >= 4.35 re-saves of it add num_kv_heads 71 (e.g. the falcon-7b fine-tune
  // ramdhanfirdaus/falcon-7b-finetuned-aings-instructed-delimiter-2): still 1 KV head, said aloud.
  auto resaved = patched("tiiuae/falcon-7b", {{"num_kv_heads", 71}});
  BOOST_TEST(test::full_attention_of(resaved.layers[0].cache()).kv_heads == 1u);
  BOOST_TEST(!resaved.assumptions.empty());
  // Falcon with the new decoder architecture reads num_kv_heads.
  auto f40 = patched("tiiuae/falcon-7b", {{"new_decoder_architecture", true}, {"num_kv_heads", 71}});
  BOOST_TEST(test::full_attention_of(f40.layers[0].cache()).kv_heads == 71u);
  // Old phi-2 remote-code schema: n_head_kv null means MHA.
  BOOST_TEST(test::full_attention_of(load_model("microsoft/phi-2").layers[0].cache()).kv_heads == 32u);
}

BOOST_AUTO_TEST_CASE(uniform_sliding_windows) {
  for (auto [id, window] : std::vector<std::pair<std::string, std::uint64_t>>{
           {"mistralai/Mistral-7B-v0.1", 4096}, {"microsoft/Phi-3-mini-4k-instruct", 2047}, {"bigcode/starcoder2-7b", 4096}}) {
    auto m = load_model(id);
    BOOST_TEST_CONTEXT(id) {
      BOOST_TEST(m.count_kind("sliding_attention") == m.num_layers());
      BOOST_TEST(span_tokens(test::sliding_attention_of(m.layers[0].cache()).span) == window);
    }
  }
  // Mixtral: sliding_window null -> full attention.
  BOOST_TEST(load_model("mistralai/Mixtral-8x7B-v0.1").count_kind("full_attention") == 32u);
}

BOOST_AUTO_TEST_CASE(qwen2_use_sliding_window_and_max_window_layers) {
  // Qwen2.5 sets sliding_window but use_sliding_window false: all full.
  BOOST_TEST(load_model("Qwen/Qwen2.5-7B-Instruct").count_kind("full_attention") == 28u);
  // Enabled: layers from max_window_layers on slide (transformers' rule).
  auto m = patched("Qwen/Qwen2.5-7B-Instruct", {{"use_sliding_window", true}, {"max_window_layers", 20}, {"sliding_window", 4096}});
  auto k = kinds(m);
  for (std::size_t i = 0; i < k.size(); ++i) BOOST_TEST(k[i] == (i >= 20 ? "sliding_attention" : "full_attention"));
}

BOOST_AUTO_TEST_CASE(interleaved_windows) {
  // gpt-oss: layer_types alternates, sliding first.
  auto oss = kinds(load_model("openai/gpt-oss-20b"));
  for (std::size_t i = 0; i < oss.size(); ++i) BOOST_TEST(oss[i] == (i % 2 == 0 ? "sliding_attention" : "full_attention"));
  // Gemma 2: alternating without layer_types (transformers: sliding when (i+1) % 2).
  auto g2 = kinds(load_model("google/gemma-2-9b"));
  for (std::size_t i = 0; i < g2.size(); ++i) BOOST_TEST(g2[i] == (i % 2 == 0 ? "sliding_attention" : "full_attention"));
  // Gemma 3: pattern 6 -> layers 5, 11, 17, 23 full.
  auto g3 = kinds(load_model("google/gemma-3-1b-it"));
  for (std::size_t i = 0; i < g3.size(); ++i) BOOST_TEST(g3[i] == ((i + 1) % 6 == 0 ? "full_attention" : "sliding_attention"));
  // Gemma 3 without the pattern field: transformers' default 6, reported as an assumption.
  auto g3d = load_model_from_json(
      [] {
        auto j = nlohmann::json::parse(find_bundled("google/gemma-3-1b-it")->json);
        j.erase("sliding_window_pattern");
        return j.dump();
      }(),
      "gemma3-no-pattern.json");
  BOOST_TEST(kinds(g3d) == g3);
  BOOST_TEST(g3d.assumptions.size() == 1u);
  // Cohere2: pattern 4 -> 3 local : 1 global.
  auto c2 = load_model("huihui-ai/c4ai-command-r7b-12-2024-abliterated");
  BOOST_TEST(c2.count_kind("sliding_attention") == 24u);
  BOOST_TEST(kinds(c2)[3] == "full_attention");
}

BOOST_AUTO_TEST_CASE(gemma4_per_type_heads) {
  auto m = load_model("google/gemma-4-26B-A4B");
  BOOST_TEST(m.count_kind("sliding_attention") == 25u);
  BOOST_TEST(m.count_kind("full_attention") == 5u);
  auto full = test::full_attention_of(m.layers[5].cache());
  BOOST_TEST(full.kv_heads == 2u);     // num_global_key_value_heads
  BOOST_TEST(full.k_head_dim == 512u); // global_head_dim
  auto swa = test::sliding_attention_of(m.layers[0].cache());
  BOOST_TEST(swa.kv_heads == 8u);
  BOOST_TEST(swa.k_head_dim == 256u);
  BOOST_TEST(span_tokens(swa.span) == 1024u);
}

BOOST_AUTO_TEST_CASE(llama4_chunked_local_attention) {
  auto m = load_model("meta-llama/Llama-4-Scout-17B-16E-Instruct");
  BOOST_TEST(m.model_type == "llama4_text");
  auto k = kinds(m);
  // Every 4th layer is NoPE with global attention; the rest chunked (8192).
  for (std::size_t i = 0; i < k.size(); ++i) BOOST_TEST(k[i] == ((i + 1) % 4 == 0 ? "full_attention" : "chunked_attention"));
  BOOST_TEST(span_tokens(test::chunked_attention_of(m.layers[0].cache()).span) == 8192u);
  auto s = cache_size(m, workload(20000));
  BOOST_TEST(s.layers[0].per_sequence.tokens_held == 8192u);
  BOOST_TEST(s.layers[3].per_sequence.tokens_held == 20000u);
}

BOOST_AUTO_TEST_CASE(mla_families) {
  auto v3 = load_model("deepseek-ai/DeepSeek-V3");
  BOOST_TEST(v3.count_kind("mla") == 61u);
  auto mla = std::get<Mla>(v3.layers[0].cache());
  BOOST_TEST(mla.kv_lora_rank == 512u);
  BOOST_TEST(mla.rope_dim == 64u);
  BOOST_TEST(mla.index_head_dim == 0u);
  BOOST_TEST(std::get<Mla>(load_model("deepseek-ai/DeepSeek-V3.2").layers[0].cache()).index_head_dim == 128u);
}

BOOST_AUTO_TEST_CASE(hybrid_ssm_layouts) {
  auto jamba = load_model("ai21labs/Jamba-v0.1");
  auto jk = kinds(jamba);
  BOOST_TEST(jamba.count_kind("full_attention") == 4u);
  for (std::size_t i = 0; i < jk.size(); ++i) BOOST_TEST(jk[i] == (i % 8 == 4 ? "full_attention" : "mamba"));
  BOOST_REQUIRE(std::holds_alternative<Mamba1>(jamba.layers[0].cache()));
  auto mj = std::get<Mamba1>(jamba.layers[0].cache());
  BOOST_TEST(mj.d_inner == 2u * 4096);

  // Nemotron-H: exactly the '*' positions of hybrid_override_pattern are attention.
  auto nj = detail::parse_config_text(find_bundled("nvidia/Nemotron-H-56B-Base-8K")->json, "nemotron");
  auto pattern = nj["hybrid_override_pattern"].get<std::string>();
  auto nem = load_model("nvidia/Nemotron-H-56B-Base-8K");
  auto nk = kinds(nem);
  BOOST_TEST(nk.size() == pattern.size());
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char* want = pattern[i] == '*' ? "full_attention" : pattern[i] == 'M' ? "mamba" : "none";
    BOOST_TEST(nk[i] == want);
  }
  BOOST_TEST(nem.count_kind("full_attention") == static_cast<std::size_t>(std::count(pattern.begin(), pattern.end(), '*')));
  BOOST_TEST(test::full_attention_of(nem.layers[pattern.find('*')].cache()).k_head_dim == 128u);  // attention_head_dim

  auto mamba = load_model("ArthurZ/mamba-2.8b");
  BOOST_TEST(mamba.count_kind("mamba") == 64u);
  BOOST_TEST(cache_size(mamba, workload(100000)).kv_bytes == 0u);
}

BOOST_AUTO_TEST_CASE(linear_attention_layouts) {
  auto next = load_model("Qwen/Qwen3-Next-80B-A3B-Thinking");
  BOOST_TEST(next.count_kind("full_attention") == 12u);
  BOOST_TEST(next.count_kind("linear_attention") == 36u);
  auto k = kinds(next);
  for (std::size_t i = 0; i < k.size(); ++i) BOOST_TEST(k[i] == ((i + 1) % 4 == 0 ? "full_attention" : "linear_attention"));
  // Qwen3.5 keeps the state dtype its config names (mamba_ssm_dtype float32).
  auto q35 = load_model("Qwen/Qwen3.5-35B-A3B");
  BOOST_TEST(q35.ssm_state_dtype.has_value());
  BOOST_TEST(name(resolve_dtypes(q35, {}).ssm) == "fp32");
  // MiniMax: attn_type_list, 1 = softmax every 8th layer.
  auto mm = load_model("MiniMaxAI/MiniMax-M1");
  BOOST_TEST(mm.count_kind("full_attention") == 10u);
  BOOST_TEST(mm.count_kind("linear_attention") == 70u);
  // LFM2: full_attn_idxs (old schema); the rest short convolutions.
  auto lfm = load_model("LiquidAI/LFM2-700M");
  std::set<std::size_t> full{2, 5, 8, 10, 12, 14};
  auto lk = kinds(lfm);
  for (std::size_t i = 0; i < lk.size(); ++i) BOOST_TEST(lk[i] == (full.count(i) ? "full_attention" : "short_conv"));
}

BOOST_AUTO_TEST_CASE(kimi_linear_kda_and_mla) {
  // linear_attn_config lists 1-based layer ids; full layers are MLA, the rest KDA with fp32 state.
  nlohmann::json cfg = {{"model_type", "kimi_linear"}, {"hidden_size", 2304}, {"num_attention_heads", 32},
                        {"num_hidden_layers", 8}, {"kv_lora_rank", 512}, {"qk_rope_head_dim", 64},
                        {"qk_nope_head_dim", 128}, {"v_head_dim", 128}, {"dtype", "bfloat16"},
                        {"linear_attn_config", {{"kda_layers", {1, 2, 3, 5, 6, 7}}, {"full_attn_layers", {4, 8}},
                                                {"num_heads", 32}, {"head_dim", 128}, {"short_conv_kernel_size", 4}}}};
  auto m = load_model_from_json(cfg.dump(), "kimi.json");
  auto k = kinds(m);
  for (std::size_t i = 0; i < 8; ++i) BOOST_TEST(k[i] == (i == 3 || i == 7 ? "mla" : "linear_attention"));
  auto s = cache_size(m, test::workload(1000, 1, Dtype::bf16));
  // MLA: 2 layers x 1000 x 576 x 2 B; KDA: 6 x (3 x 3*32*128 x 2 B + 32 x 128 x 128 x 4 B).
  BOOST_TEST(s.kv_bytes == 2u * 1000 * 576 * 2);
  BOOST_TEST(s.state_bytes == 6u * (3 * 3 * 32 * 128 * 2 + 32 * 128 * 128 * 4));
  cfg["linear_attn_config"]["full_attn_layers"] = {4, 9};
  BOOST_CHECK_EXCEPTION(load_model_from_json(cfg.dump(), "kimi.json"), ConfigError,
                        test::HasMessage({"/linear_attn_config/full_attn_layers/1", "1-based"}));
}

BOOST_AUTO_TEST_CASE(cross_layer_kv_sharing) {
  // Gemma 3n-style: the last num_kv_shared_layers read the last earlier layer of their kind.
  nlohmann::json cfg = {{"model_type", "gemma3n_text"}, {"hidden_size", 2048}, {"num_attention_heads", 8},
                        {"num_key_value_heads", 2},     {"head_dim", 256},     {"num_hidden_layers", 10},
                        {"sliding_window", 512},        {"num_kv_shared_layers", 4}, {"torch_dtype", "bfloat16"}};
  auto m = load_model_from_json(cfg.dump(), "gemma3n.json");
  auto k = kinds(m);
  // Pattern 5: layers 4 and 9 full. Layers 6..9 shared: 6,7,8 -> sliding source 5; 9 -> full source 4.
  BOOST_TEST(k[4] == "full_attention");
  BOOST_TEST(k[5] == "sliding_attention");
  for (std::size_t i = 6; i < 10; ++i) BOOST_TEST(k[i] == "shared_kv");
  BOOST_TEST(std::get<SharedKv>(m.layers[6].cache()).source_layer == 5u);
  BOOST_TEST(std::get<SharedKv>(m.layers[9].cache()).source_layer == 4u);
  auto s = cache_size(m, workload(1000, 1, Dtype::bf16));
  BOOST_TEST(s.layers[7].bytes == 0u);
  // 1 full layer (0..5: layer 4) at 1000 tokens + 5 sliding (0,1,2,3,5) at 512, 2 heads x 256 x 2 x 2 B.
  BOOST_TEST(s.total_bytes == 2048ull * (1 * 1000 + 5 * 512));
}

BOOST_AUTO_TEST_CASE(unknown_type_needs_explicit_assumption) {
  nlohmann::json cfg = {{"model_type", "brand_new_lm"}, {"hidden_size", 1024}, {"num_attention_heads", 8},
                        {"num_hidden_layers", 4}, {"torch_dtype", "float16"}};
  BOOST_CHECK_EXCEPTION(load_model_from_json(cfg.dump(), "new.json"), UnsupportedArchitecture,
                        test::HasMessage({"brand_new_lm", "--assume dense"}));
  LoadOptions opts;
  opts.assume = {"dense"};
  auto m = load_model_from_json(cfg.dump(), "new.json", opts);
  BOOST_TEST(m.count_kind("full_attention") == 4u);
  BOOST_TEST(m.assumptions.size() == 1u);
  // --assume dense never reads a config with recurrent layers as attention.
  auto ssm = cfg;
  ssm["mamba_d_state"] = 16;
  BOOST_CHECK_EXCEPTION(load_model_from_json(ssm.dump(), "new.json", opts), UnsupportedArchitecture,
                        test::HasMessage({"/mamba_d_state", "brand_new_lm"}));
  auto h1 = cfg;
  h1["model_type"] = "zamba";
  BOOST_CHECK_EXCEPTION(load_model_from_json(h1.dump(), "h1.json"), UnsupportedArchitecture,
                        test::HasMessage({"zamba", "Mamba-1"}));
  // Even with --assume dense, a window field it cannot place is refused.
  cfg["sliding_window"] = 1024;
  BOOST_CHECK_EXCEPTION(load_model_from_json(cfg.dump(), "new.json", opts), UnsupportedArchitecture,
                        test::HasMessage({"/sliding_window"}));
}

BOOST_AUTO_TEST_CASE(missing_dtype_is_reported) {
  auto m = load_model("openai-community/gpt2");
  // The config names no dtype (float32): served in bf16 in every verb, reported once.
  BOOST_TEST(name(m.dtype) == "bf16");
  BOOST_TEST(m.assumptions.size() == 1u);
  BOOST_TEST(m.assumptions[0].find("served in bf16") != std::string::npos, m.assumptions[0]);
  // Engines serve float32 / dtype-less configs in bf16 ("auto" dtype), so their auto KV is 2 bytes.
  BOOST_TEST(name(serving_dtype(m)) == "bf16");
  BOOST_TEST(name(serving_dtype(load_model("meta-llama/Llama-2-7b-hf"))) == "fp16");
  LoadOptions opts;
  opts.assume = {"dtype=bf16"};
  BOOST_TEST(name(load_model("openai/gpt-oss-20b", opts).dtype) == "bf16");
}

BOOST_AUTO_TEST_CASE(infinity_tokens_are_accepted) {
  // Nemotron-H's config contains the bare token Infinity.
  BOOST_TEST(std::string(find_bundled("nvidia/Nemotron-H-56B-Base-8K")->json).find("Infinity") != std::string::npos);
  auto m = load_model_from_json(R"({"model_type":"llama","hidden_size":64,"num_attention_heads":4,
    "num_hidden_layers":2,"torch_dtype":"bfloat16","x":[NaN, -Infinity, Infinity],"s":"Infinity NaN"})", "inf.json");
  BOOST_TEST(m.num_layers() == 2u);
}

// The two cache formulas with engine quirks as arguments, on Nemotron-H-56B's real layers
// (model_configs/nvidia__Nemotron-H-56B-Base-8K.json: mamba_num_heads 256, mamba_head_dim 64,
// n_groups 8, ssm_state_size 256, conv_kernel 4; 8 KV heads x attention_head_dim 128).
// Hand derivation: d_inner = 256 x 64 = 16,384; conv channels = 16,384 + 2 x 8 x 256 = 20,480,
// conv rows = 4 - 1 = 3; SSM state = 256 heads x 64 x 256.
BOOST_AUTO_TEST_CASE(one_row_and_one_state_formula_with_engine_quirks) {
  auto m = load_model("nvidia/Nemotron-H-56B-Base-8K");
  const auto& mamba = m.layers[0].cache();  // 'M'
  const auto& attn = m.layers[7].cache();   // '*'
  BOOST_TEST(kind_name(mamba) == "mamba");
  BOOST_TEST(kind_name(attn) == "full_attention");
  BOOST_TEST(kind_name(m.layers[1].cache()) == "none");

  // vLLM-style: bf16 conv + 2 speculative rows, fp32 SSM, one rank.
  auto v = state_bytes(mamba, StateOptions{Dtype::bf16, Dtype::fp32, 1, 2});
  BOOST_TEST(v.conv_bytes == 5u * 20480u * 2u);
  BOOST_TEST(v.ssm_bytes == 256u * 64u * 256u * 4u);
  // llama.cpp-style: R and S in f32.
  auto l = state_bytes(mamba, StateOptions{Dtype::fp32, Dtype::fp32, 1, 0});
  BOOST_TEST(l.conv_bytes == 3u * 20480u * 4u);
  BOOST_TEST(l.total_bytes() == 3u * 20480u * 4u + 256u * 64u * 256u * 4u);
  // tp 16 > 8 groups: groups replicated to 16, (16,384 + 2 x 16 x 256) / 16 = 1,536 channels, 16 heads.
  auto t = state_bytes(mamba, StateOptions{Dtype::bf16, Dtype::fp32, 16, 0});
  BOOST_TEST(t.conv_bytes == 3u * 1536u * 2u);
  BOOST_TEST(t.ssm_bytes == 16u * 64u * 256u * 4u);
  // The same formula kvplan's own sizing uses.
  auto own = layer_bytes(mamba, 4096, CacheDtypes{Dtype::bf16, Dtype::bf16, Dtype::bf16, Dtype::fp32}, 16);
  BOOST_TEST(own.conv_bytes == t.conv_bytes);
  BOOST_TEST(own.ssm_bytes == t.ssm_bytes);
  // No recurrent state in attention or MLP-only layers.
  BOOST_TEST(state_bytes(attn, StateOptions{}).total_bytes() == 0u);
  BOOST_TEST(state_bytes(m.layers[1].cache(), StateOptions{}).total_bytes() == 0u);

  // Attention rows at tp 16 over 8 KV heads: whole heads keep one replicated head (256 B per
  // K row in bf16); TensorRT-LLM's flat h x Hkv // tp row keeps 8 x 128 / 16 = 64 values.
  auto ph = attention_row_bytes(Attention{8, 128, 128}, Dtype::bf16, Dtype::bf16, 16);
  BOOST_TEST(ph.k_bytes == 256u);
  BOOST_TEST(ph.total_bytes() == 512u);
  auto fr = attention_row_bytes(Attention{8, 128, 128}, Dtype::bf16, Dtype::bf16, 16, HeadSplit::flat_row);
  BOOST_TEST(fr.k_bytes == 128u);
  BOOST_TEST(fr.v_bytes == 128u);
  BOOST_TEST(bytes_per_token(attn, CacheDtypes{}, 2) == 4u * 128u * 2u * 2u);
  BOOST_CHECK_THROW(attention_row_bytes(Attention{8, 128, 128}, Dtype::bf16, Dtype::bf16, 0), InputError);
}

BOOST_AUTO_TEST_CASE(layer_specs_compare_by_value) {
  auto m = load_model("nvidia/Nemotron-H-56B-Base-8K");
  BOOST_TEST((m.layers[0].cache() == m.layers[2].cache()));   // two Mamba-2 layers, same dims
  BOOST_TEST((m.layers[0].cache() != m.layers[7].cache()));   // Mamba vs attention
  BOOST_TEST((m.layers[0] != m.layers[2]));                // LayerSpec: the index differs
  LayerSpec copy = m.layers[7];
  BOOST_TEST((copy == m.layers[7]));
  // Same dims, other span: not equal; one field changed: not equal.
  BOOST_TEST((LayerCache{Attention{8, 128, 128}} != LayerCache{Attention{8, 128, 128, Attention::Window{4096}}}));
  BOOST_TEST((LayerCache{Attention{8, 128, 128, Attention::Window{4096}}} != LayerCache{Attention{8, 128, 128, Attention::Window{1024}}}));
  BOOST_TEST((LayerCache{Attention{8, 128, 128, Attention::Window{4096}}} == LayerCache{Attention{8, 128, 128, Attention::Window{4096}}}));
}

BOOST_AUTO_TEST_SUITE_END()
