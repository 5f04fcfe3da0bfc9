// The families added for issue 12, each on its real bundled config: per-layer bytes against a
// hand derivation from the model's own code (tests/data/families.json, which cites the code),
// the parameter rule against the published count, and the precise refusals.
#include <boost/test/data/test_case.hpp>

#include "gguf_writer.h"
#include "helpers.h"

namespace bdata = boost::unit_test::data;
using namespace kvplan;
using kvplan::test::workload;

namespace {
const nlohmann::json& family_table() {
  static const nlohmann::json j = test::read_json("tests/data/families.json");
  return j;
}
std::vector<std::string> family_models() {
  std::vector<std::string> ids;
  for (const auto& m : family_table()["models"]) ids.push_back(m["model"].get<std::string>());
  return ids;
}
const nlohmann::json& family_entry(const std::string& id) {
  for (const auto& m : family_table()["models"])
    if (m["model"] == id) return m;
  throw std::runtime_error("no family entry " + id);
}
ModelSpec family_patched(const std::string& id, const nlohmann::json& patch) {
  auto b = find_bundled(id);
  BOOST_REQUIRE(b);
  auto j = nlohmann::json::parse(b->json);
  j.merge_patch(patch);
  return load_model_from_json(j.dump(), id + " (modified)");
}
std::string family_text(const std::string& rel) {
  std::ifstream in(test::source_path(rel));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
// Published figure within a relative tolerance (the figures are rounded to 2-3 digits).
// Same kind and the same bytes per layer at 4,096 and 131,072 tokens (bf16).
void check_same_layers(const ModelSpec& got, const ModelSpec& want) {
  BOOST_REQUIRE(got.num_layers() == want.num_layers());
  for (std::uint64_t n : {4096ull, 131072ull}) {
    const auto a = cache_size(got, workload(n, 1, Dtype::bf16)), b = cache_size(want, workload(n, 1, Dtype::bf16));
    for (std::size_t i = 0; i < a.layers.size(); ++i) {
      BOOST_TEST(a.layers[i].kind == b.layers[i].kind, "layer " << i);
      BOOST_TEST(a.layers[i].bytes == b.layers[i].bytes, "layer " << i << ", " << n << " tokens");
    }
  }
}
bool near_published(std::uint64_t got, double published, double tolerance) {
  const double g = static_cast<double>(got);
  return g >= published * (1 - tolerance) && g <= published * (1 + tolerance);
}
}  // namespace

BOOST_AUTO_TEST_SUITE(families)

BOOST_DATA_TEST_CASE(per_layer_bytes_equal_the_hand_derivation, bdata::make(family_models()), model_id) {
  const std::string id = model_id;
  const nlohmann::json& f = family_entry(id);
  const ModelSpec m = load_model(id);
  BOOST_TEST_MESSAGE(id << ": params total " << m.params.total << ", active " << m.params.active << ", embedding "
                        << m.params.embedding << ", lm_head " << m.params.lm_head << ", mtp " << m.params.mtp);
  for (const auto& note : m.params.notes) BOOST_TEST_MESSAGE("  " << note);
  // Every layer is in exactly one group of the derivation.
  std::vector<int> seen(m.num_layers(), 0);
  for (const auto& g : f["groups"])
    for (const auto& i : g["layers"]) {
      BOOST_REQUIRE_LT(i.get<std::size_t>(), m.num_layers());
      ++seen[i.get<std::size_t>()];
    }
  for (std::size_t i = 0; i < seen.size(); ++i) BOOST_TEST(seen[i] == 1, "layer " << i << " in " << seen[i] << " groups");
  for (const char* dt : {"bf16", "fp8"}) {
    const Dtype d = std::string(dt) == "bf16" ? Dtype::bf16 : Dtype::fp8_e4m3;
    for (std::uint64_t n : {1ull, 4096ull, 131072ull}) {
      const CacheSize s = cache_size(m, workload(n, 1, d));
      std::uint64_t sum = 0;
      for (const auto& g : f["groups"]) {
        const std::uint64_t want = g["bytes"][dt][std::to_string(n)].get<std::uint64_t>();
        for (const auto& i : g["layers"]) {
          const auto& l = s.layers.at(i.get<std::size_t>());
          BOOST_TEST_CONTEXT(id << ", layer " << i << ", " << n << " tokens, " << dt) {
            BOOST_TEST(l.kind == g["kind"].get<std::string>());
            BOOST_TEST(l.bytes == want);
          }
          sum += want;
        }
      }
      BOOST_TEST(s.total_bytes == sum, id << " total at " << n << " tokens " << dt);
    }
  }
}

// GLM-5.2: the 57 layers whose indexer_types entry is "shared" run no indexer, so they cache only
// the MLA latent + rope key (512 + 64); the 21 "full" layers add the 128-wide indexer key.
BOOST_AUTO_TEST_CASE(glm_shared_indexer_layers_hold_no_indexer_key) {
  const ModelSpec m = load_model("zai-org/GLM-5.2");
  const auto s = cache_size(m, workload(1000, 1, Dtype::bf16));
  BOOST_TEST(s.layers[0].bytes == (512u + 64 + 128) * 2 * 1000);  // "full"
  BOOST_TEST(s.layers[3].bytes == (512u + 64) * 2 * 1000);        // "shared"
  BOOST_TEST(s.layers[6].bytes == (512u + 64 + 128) * 2 * 1000);  // "full" again
  // An indexer_types list of the wrong length, or an unknown entry, is an error naming the field.
  BOOST_CHECK_EXCEPTION(family_patched("zai-org/GLM-5.2", {{"indexer_types", {"full", "shared"}}}), ConfigError,
                        test::HasMessage({"indexer_types", "78"}));
  auto bad = nlohmann::json::parse(find_bundled("zai-org/GLM-5.2")->json)["indexer_types"];
  bad[5] = "sparse";
  BOOST_CHECK_EXCEPTION(family_patched("zai-org/GLM-5.2", {{"indexer_types", bad}}), ConfigError,
                        test::HasMessage({"/indexer_types/5", "full", "shared", "\"sparse\""}));
  // A "shared" first layer has no earlier indexer to reuse (GlmMoeDsaAttention raises).
  auto first = nlohmann::json::parse(find_bundled("zai-org/GLM-5.2")->json)["indexer_types"];
  first[0] = "shared";
  BOOST_CHECK_EXCEPTION(family_patched("zai-org/GLM-5.2", {{"indexer_types", first}}), ConfigError,
                        test::HasMessage({"/indexer_types/0", "full"}));
}

// MiMo-V2-Flash: full layers have 4 KV heads, sliding layers 8, both with K 192 and V 128 wide.
BOOST_AUTO_TEST_CASE(mimo_v2_flash_per_type_heads_and_dims) {
  const ModelSpec m = load_model("XiaomiMiMo/MiMo-V2-Flash");
  const auto& full = test::full_attention_of(m.layers[0].cache());
  BOOST_TEST(full.kv_heads == 4u);
  BOOST_TEST(full.k_head_dim == 192u);
  BOOST_TEST(full.v_head_dim == 128u);
  const auto& swa = test::sliding_attention_of(m.layers[1].cache());
  BOOST_TEST(swa.kv_heads == 8u);
  BOOST_TEST(swa.k_head_dim == 192u);
  BOOST_TEST(swa.v_head_dim == 128u);
  BOOST_TEST(span_tokens(swa.span) == 128u);
  BOOST_TEST(m.count_kind("full_attention") == 9u);
  BOOST_TEST(m.count_kind("sliding_attention") == 39u);
}

// Llama-3.3-Nemotron-Super-49B: 31 of 80 layers have attention.no_op and hold nothing. Reading
// every layer as plain attention (what --assume dense did) overstates the cache by 80 / 49.
BOOST_AUTO_TEST_CASE(decilm_no_op_attention_holds_nothing) {
  const ModelSpec m = load_model("nvidia/Llama-3_3-Nemotron-Super-49B-v1");
  BOOST_TEST(m.num_layers() == 80u);
  BOOST_TEST(m.count_kind("none") == 31u);
  BOOST_TEST(m.count_kind("full_attention") == 49u);
  BOOST_TEST(cache_size(m, workload(1, 1, Dtype::bf16)).bytes_per_token == 49u * 2 * 8 * 128 * 2);
  // replace_with_linear attention has no rule: refused, naming the block.
  auto j = nlohmann::json::parse(find_bundled("nvidia/Llama-3_3-Nemotron-Super-49B-v1")->json);
  j["block_configs"][6]["attention"]["no_op"] = false;
  j["block_configs"][6]["attention"]["replace_with_linear"] = true;
  BOOST_CHECK_EXCEPTION(load_model_from_json(j.dump(), "decilm.json"), UnsupportedArchitecture,
                        test::HasMessage({"/block_configs/6/attention", "replace_with_linear"}));
}

// Gemma 4 as transformers reads it (Gemma4TextConfig.__post_init__): full layers take
// global_head_dim (default 512) and, only with attention_k_eq_v, num_global_key_value_heads.
BOOST_AUTO_TEST_CASE(gemma4_global_layer_defaults) {
  const std::string id = "google/gemma-4-26B-A4B";
  auto full_of = [](const ModelSpec& m) {
    for (const auto& l : m.layers)
      if (const auto* f = std::get_if<Attention>(&l.cache()); f && std::holds_alternative<Attention::All>(f->span)) return *f;
    BOOST_FAIL("no full-attention layer");
    return Attention{};
  };
  // The real config: k_eq_v true, 2 global KV heads of 512.
  auto real = full_of(load_model(id));
  BOOST_TEST(real.kv_heads == 2u);
  BOOST_TEST(real.k_head_dim == 512u);
  // global_head_dim omitted: 512, not head_dim (256).
  auto no_dim = full_of(family_patched(id, {{"text_config", {{"global_head_dim", nullptr}}}}));
  BOOST_TEST(no_dim.k_head_dim == 512u);
  BOOST_TEST(no_dim.v_head_dim == 512u);
  // attention_k_eq_v false: num_global_key_value_heads does not apply; num_key_value_heads (8) does.
  auto no_keqv = full_of(family_patched(id, {{"text_config", {{"attention_k_eq_v", false}}}}));
  BOOST_TEST(no_keqv.kv_heads == 8u);
  BOOST_TEST(no_keqv.k_head_dim == 512u);
}

// Vision-language wrappers: the text model's layers; the vision tower holds no KV cache and its
// weights are counted (Qwen3-VL: 27 blocks + merger + 3 deepstack mergers).
BOOST_AUTO_TEST_CASE(qwen3_vl_wrappers_map_their_text_model) {
  const ModelSpec dense = load_model("Qwen/Qwen3-VL-8B-Instruct");
  BOOST_TEST(dense.num_layers() == 36u);
  BOOST_TEST(test::full_attention_of(dense.layers[0].cache()).kv_heads == 8u);
  const ModelSpec moe = load_model("Qwen/Qwen3-VL-30B-A3B-Instruct");
  BOOST_TEST(moe.num_layers() == 48u);
  BOOST_TEST(test::full_attention_of(moe.layers[0].cache()).kv_heads == 4u);
}

// Nemotron-H in the transformers-5 format: layers_block_type names each layer (mamba, attention,
// moe, mlp; transformers also accepts linear_attention / full_attention) and gives the layer count.
// Nemotron 3 Ultra has no num_hidden_layers; written as the equivalent hybrid_override_pattern it
// maps to the same layers and the same weights.
BOOST_AUTO_TEST_CASE(nemotron_h_layers_block_type) {
  const std::string id = "nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16";
  const ModelSpec m = load_model(id);
  BOOST_TEST(m.num_layers() == 108u);
  BOOST_TEST(m.count_kind("full_attention") == 12u);
  BOOST_TEST(m.count_kind("mamba") == 48u);
  BOOST_TEST(m.count_kind("none") == 48u);
  const auto cfg = nlohmann::json::parse(find_bundled(id)->json);
  std::string pattern;
  nlohmann::json renamed = nlohmann::json::array();
  for (const auto& t : cfg["layers_block_type"]) {
    pattern += t == "mamba" ? 'M' : t == "attention" ? '*' : t == "moe" ? 'E' : '-';
    renamed.push_back(t == "mamba" ? "linear_attention" : t == "attention" ? "full_attention" : t.get<std::string>());
  }
  const ModelSpec legacy = family_patched(
      id, {{"layers_block_type", nullptr}, {"hybrid_override_pattern", pattern}, {"num_hidden_layers", 108}});
  check_same_layers(legacy, m);
  BOOST_TEST(legacy.params.total == m.params.total);
  const ModelSpec v5 = family_patched(id, {{"layers_block_type", renamed}});
  check_same_layers(v5, m);
  // An unknown kind names its entry; a num_hidden_layers that disagrees with the list is refused.
  auto bad = cfg["layers_block_type"];
  bad[3] = "sliding_attention";
  BOOST_CHECK_EXCEPTION(family_patched(id, {{"layers_block_type", bad}}), ConfigError,
                        test::HasMessage({"/layers_block_type/3", "mamba", "\"sliding_attention\""}));
  BOOST_CHECK_EXCEPTION(family_patched(id, {{"num_hidden_layers", 88}}), ConfigError,
                        test::HasMessage({"num_hidden_layers", "108", "88"}));
}

// Qwen2.5-VL: a Qwen2 text model whose fields sit top-level (the 3B file, model_type qwen2_5_vl) or
// in text_config (the 7B re-save, qwen2_5_vl_text); the vision tower holds no cache, its weights
// are counted.
BOOST_AUTO_TEST_CASE(qwen2_5_vl_text_fields_top_level_or_nested) {
  const ModelSpec small = load_model("Qwen/Qwen2.5-VL-3B-Instruct");
  BOOST_TEST(small.model_type == "qwen2_5_vl");
  BOOST_TEST(small.num_layers() == 36u);
  BOOST_TEST(test::full_attention_of(small.layers[0].cache()).kv_heads == 2u);
  const ModelSpec big = load_model("Qwen/Qwen2.5-VL-7B-Instruct");
  BOOST_TEST(big.model_type == "qwen2_5_vl_text");
  BOOST_TEST(big.num_layers() == 28u);
  // Same text model as Qwen2.5-7B-Instruct (bundled): same layers.
  check_same_layers(big, load_model("Qwen/Qwen2.5-7B-Instruct"));
  // use_sliding_window true would make layers >= max_window_layers slide (Qwen2_5_VLTextConfig).
  const ModelSpec swa = family_patched("Qwen/Qwen2.5-VL-3B-Instruct", {{"use_sliding_window", true}, {"max_window_layers", 30}});
  BOOST_TEST(swa.count_kind("sliding_attention") == 6u);
}

// Gemma 2 / 3 as transformers reads them: without head_dim, 256 (Gemma3TextConfig), not
// hidden / heads (1152 / 4 = 288 for gemma-3-1b; 3840 / 16 = 240 for the gemma-3-12b text_config,
// which names no head_dim); without num_key_value_heads, 4.
BOOST_AUTO_TEST_CASE(gemma_head_dim_and_kv_defaults) {
  const ModelSpec m = family_patched("google/gemma-3-1b-it", {{"head_dim", nullptr}});
  const auto& full = test::full_attention_of(m.layers[5].cache());
  BOOST_TEST(full.k_head_dim == 256u);
  BOOST_TEST(full.v_head_dim == 256u);
  check_same_layers(m, load_model("google/gemma-3-1b-it"));
  const ModelSpec g2 = family_patched("google/gemma-2-9b", {{"head_dim", nullptr}, {"num_key_value_heads", nullptr}});
  BOOST_TEST(test::full_attention_of(g2.layers[1].cache()).k_head_dim == 256u);
  BOOST_TEST(test::full_attention_of(g2.layers[1].cache()).kv_heads == 4u);
  BOOST_TEST(g2.params.total > 0u);
  // vocab_size left out (the multimodal gemma-3 text_config): Gemma3TextConfig's 262,208.
  const auto base = load_model("google/gemma-3-1b-it").params;
  BOOST_TEST(family_patched("google/gemma-3-1b-it", {{"vocab_size", nullptr}}).params.total ==
             base.total + (262'208u - 262'144u) * 1'152u);
}

// Gemma 3 with a vision_config (the SigLIP tower of gemma-3-4b/12b/27b: hidden 1152, MLP 4304,
// 27 layers, 16 heads, patch 14, image 896, vision_use_head false) counts the tower and the
// projector. keras-hub's gemma3 presets publish 12,187,079,280 (gemma3_12b, vision+text) and
// 11,765,788,416 (gemma3_12b_text): tower + projector = 421,290,864, of which the projector is
// 1152 x 3840 + 1152; on the 1B text model (hidden 1152) the projector is 1152 x 1152 + 1152.
BOOST_AUTO_TEST_CASE(gemma3_vision_tower_counted) {
  const nlohmann::json vision = {{"hidden_size", 1152}, {"image_size", 896}, {"intermediate_size", 4304},
                                 {"model_type", "siglip_vision_model"}, {"num_attention_heads", 16},
                                 {"num_hidden_layers", 27}, {"patch_size", 14}, {"vision_use_head", false}};
  const auto base = load_model("google/gemma-3-1b-it").params;
  const ModelSpec m = family_patched("google/gemma-3-1b-it", {{"vision_config", vision}});
  constexpr std::uint64_t tower = 12'187'079'280ull - 11'765'788'416ull - (1'152ull * 3'840 + 1'152);
  BOOST_TEST(m.params.total == base.total + tower + 1'152ull * 1'152 + 1'152);
  check_same_layers(m, load_model("google/gemma-3-1b-it"));  // the tower holds no cache
  // A pooling head has no rule: the count is unknown (the exit-2 path), with the reason noted.
  auto with_head = vision;
  with_head["vision_use_head"] = true;
  const auto head = family_patched("google/gemma-3-1b-it", {{"vision_config", with_head}}).params;
  BOOST_TEST(head.total == 0u);
  BOOST_TEST(!head.notes.empty());
}

// Mistral 3 (mistral3 wrapper, text_config mistral): the text model's layers and weights, plus the
// Pixtral tower and projector. The vision_config is the one FLUX.2's Mistral 3 text encoder embeds
// (hidden 1024, MLP 4096, 24 layers, 16 heads x 64, patch 14); by hand on a Mistral-7B text model
// (hidden 4096): patch_conv 1024 x 3 x 14 x 14 + ln_pre 1024 + 24 x (2 x 1024 + 4 x 1024^2 +
// 3 x 1024 x 4096) + projector norm 1024 + merging 1024 x 4096 + linear_1 1024 x 4096 + linear_2
// 4096^2 = 428,472,320.
BOOST_AUTO_TEST_CASE(mistral3_wrapper_counts_the_pixtral_tower) {
  const auto text = nlohmann::json::parse(find_bundled("mistralai/Mistral-7B-v0.1")->json);
  nlohmann::json wrapper = {{"architectures", {"Mistral3ForConditionalGeneration"}}, {"model_type", "mistral3"},
                            {"multimodal_projector_bias", false}, {"spatial_merge_size", 2}, {"text_config", text},
                            {"vision_config", {{"head_dim", 64}, {"hidden_size", 1024}, {"image_size", 1540},
                                               {"intermediate_size", 4096}, {"model_type", "pixtral"},
                                               {"num_attention_heads", 16}, {"num_channels", 3},
                                               {"num_hidden_layers", 24}, {"patch_size", 14}}},
                            {"vision_feature_layer", -1}};
  const ModelSpec m = load_model_from_json(wrapper.dump(), "mistral3.json");
  const ModelSpec plain = load_model("mistralai/Mistral-7B-v0.1");
  check_same_layers(m, plain);
  BOOST_TEST(m.params.total == plain.params.total + 428'472'320ull);
  // Another wrapper's tower has no rule: unknown, not the text model alone.
  wrapper["model_type"] = "llava";
  BOOST_TEST(load_model_from_json(wrapper.dump(), "llava.json").params.total == 0u);
}

// Parameter rules against the published counts (cited in model_configs/README.md).
BOOST_AUTO_TEST_CASE(parameter_counts_match_published_figures) {
  // Qwen3-VL-8B: text model = Qwen3-8B's 8,190,735,360 + vision tower 576,388,336 = 8.77B
  // ("9B params" on the Hugging Face safetensors badge).
  BOOST_TEST(load_model("Qwen/Qwen3-VL-8B-Instruct").params.total == 8'767'123'696ull);
  // Qwen3-VL-30B-A3B: Qwen3-30B-A3B's 30,532,122,624 + vision 538,631,408 ("31B params").
  BOOST_TEST(load_model("Qwen/Qwen3-VL-30B-A3B-Instruct").params.total == 31'070'754'032ull);
  // GLM-5: 744B total, 40B active (GLM-5 technical report, arXiv:2602.15763).
  const auto glm = load_model("zai-org/GLM-5").params;
  BOOST_TEST(near_published(glm.total, 744e9, 0.01), glm.total);
  BOOST_TEST(near_published(glm.active, 40e9, 0.05), glm.active);
  // MiMo-V2-Flash: 309B total, 15B active (XiaomiMiMo/MiMo-V2-Flash model card).
  const auto mimo2 = load_model("XiaomiMiMo/MiMo-V2-Flash").params;
  BOOST_TEST(near_published(mimo2.total, 309e9, 0.01), mimo2.total);
  BOOST_TEST(near_published(mimo2.active, 15e9, 0.07), mimo2.active);
  // MiniMax-M2.5 / M2.7: 229B total, 10B active (MiniMax model cards); MiniMax's active figure
  // leaves out the embedding and the output head (1.23B), as for M1.
  for (const char* id : {"MiniMaxAI/MiniMax-M2.5", "MiniMaxAI/MiniMax-M2.7"}) {
    const auto p = load_model(id).params;
    BOOST_TEST(near_published(p.total, 229e9, 0.01), id << " " << p.total);
    BOOST_TEST(near_published(p.active - p.embedding - p.lm_head, 10e9, 0.03), id << " " << p.active);
  }
  // Laguna-XS.2: no published count was found; the rule (vLLM laguna.py LagunaDecoderLayer, derived
  // by hand from the config) gives 33,442,617,088 total and 3,017,135,872 active.
  const auto laguna = load_model("poolside/Laguna-XS.2-FP8").params;
  BOOST_TEST(laguna.total == 33'442'617'088ull);
  BOOST_TEST(laguna.active == 3'017'135'872ull);
  // EXAONE-4.0-1.2B (the bundled file is a quantised re-save with the same architecture fields):
  // "1.2B" (model card); tied embedding counted once.
  BOOST_TEST(load_model("leegongman/OmniQuant_EXAONE_v4").params.total == 1'279'391'488ull);
  // Qwen2.5-VL-3B-Instruct: 3,754,622,976, summed from the torchinfo table published beside the
  // config (whaler404/Hf-Learn qwen2.5_vl.md: Conv3d 1,505,280; vision block 19,702,200 x 32;
  // merger 1,280 + 36,707,328; embedding 151,936 x 2,048 (tied); decoder layer 77,076,992 x 36;
  // final norm 2,048).
  BOOST_TEST(load_model("Qwen/Qwen2.5-VL-3B-Instruct").params.total ==
             1'505'280ull + 32 * 19'702'200ull + 1'280 + 36'707'328 + 151'936ull * 2'048 + 36 * 77'076'992ull + 2'048);
  // Qwen2.5-VL-7B-Instruct: Qwen2.5-7B-Instruct's 7,615,616,512 + the vision tower (the 3B's with
  // a 5,120 -> 3,584 merger output: 668,684,288 - (2,048 x 5,120 + 2,048) + 3,584 x 5,120 + 3,584)
  // = 8,292,166,656.
  const auto vl7 = load_model("Qwen/Qwen2.5-VL-7B-Instruct").params;
  BOOST_TEST(vl7.total == load_model("Qwen/Qwen2.5-7B-Instruct").params.total + 668'684'288ull -
                              (2'048ull * 5'120 + 2'048) + 3'584ull * 5'120 + 3'584);
  BOOST_TEST(vl7.total == 8'292'166'656ull);
  // NVIDIA-Nemotron-3-Ultra-550B-A55B: 550B total, 55B active (the model's name); the MTP layer
  // is not counted; active includes the embedding and the output head (2 x 1.07B).
  const auto ultra = load_model("nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16").params;
  BOOST_TEST(near_published(ultra.total, 550e9, 0.01), ultra.total);
  BOOST_TEST(near_published(ultra.active, 55e9, 0.03), ultra.active);
  // Llama-3.3-Nemotron-Super-49B-v1: 49.9B (model card "49B"; Hugging Face count 49,867,145,216).
  BOOST_TEST(load_model("nvidia/Llama-3_3-Nemotron-Super-49B-v1").params.total == 49'867'145'216ull);
}

// Compressed / block-sparse attention without a layer kind: refused, naming the field and why.
BOOST_AUTO_TEST_CASE(compressed_and_block_sparse_attention_are_refused) {
  BOOST_CHECK_EXCEPTION(
      load_model_from_json(family_text("tests/data/unsupported_configs/deepseek-ai__DeepSeek-V4-Flash.json"), "v4.json"),
      UnsupportedArchitecture, test::HasMessage({"deepseek_v4", "compress_ratios"}));
  BOOST_CHECK_EXCEPTION(
      load_model_from_json(family_text("tests/data/unsupported_configs/MiniMaxAI__MiniMax-M3.json"), "m3.json"),
      UnsupportedArchitecture, test::HasMessage({"minimax_m3", "sparse_attention_config"}));
}

// Llama-3.2-Vision: the cross-attention layers hold the image tokens' K/V; refused, naming them.
BOOST_AUTO_TEST_CASE(cross_attention_layers_are_refused) {
  const std::string cfg = R"({"model_type": "mllama", "text_config": {"model_type": "mllama_text_model",
      "num_hidden_layers": 4, "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2,
      "cross_attention_layers": [1]}})";
  BOOST_CHECK_EXCEPTION(load_model_from_json(cfg, "mllama.json"), UnsupportedArchitecture,
                        test::HasMessage({"/text_config/cross_attention_layers", "cross-attention", "mllama_text_model"}));
}

// GLM-5.x written with index_topk_pattern ("F" full, "S" shared) maps exactly as indexer_types.
BOOST_AUTO_TEST_CASE(glm_index_topk_pattern_string_reads_as_indexer_types) {
  const std::string id = "zai-org/GLM-5.2";
  std::string pattern;
  const auto cfg = nlohmann::json::parse(find_bundled(id)->json);
  for (const auto& t : cfg["indexer_types"])
    pattern += t == "full" ? 'F' : 'S';
  BOOST_TEST(pattern.size() == 78u);
  const ModelSpec m = family_patched(id, {{"indexer_types", nullptr}, {"index_topk_pattern", pattern}});
  const ModelSpec want = load_model(id);
  check_same_layers(m, want);
  BOOST_TEST(m.count_kind("mla") == 78u);
  BOOST_TEST(m.params.total == want.params.total);
}

// Gemma 4 without layer_types: transformers' default (every 6th layer full) is the real
// 26B-A4B list (full at 5, 11, 17, 23, 29); use_bidirectional_attention "all" halves the window
// (1024 // 2 + 1 = 513).
BOOST_AUTO_TEST_CASE(gemma4_default_pattern_and_bidirectional_window) {
  const std::string id = "google/gemma-4-26B-A4B";
  const ModelSpec m = family_patched(id, {{"text_config", {{"layer_types", nullptr}}}});
  BOOST_REQUIRE(m.num_layers() == 30u);
  check_same_layers(m, load_model(id));
  BOOST_TEST(m.count_kind("full_attention") == 5u);
  for (std::size_t i : {5u, 11u, 17u, 23u, 29u}) BOOST_TEST(kind_name(m.layers[i].cache()) == "full_attention");
  const ModelSpec bidi = family_patched(id, {{"text_config", {{"use_bidirectional_attention", "all"}}}});
  BOOST_TEST(span_tokens(test::sliding_attention_of(bidi.layers[0].cache()).span) == 513u);
}

// Laguna's gating may be a string: "per-element" gives g_proj heads x head_dim outputs per layer
// instead of one per head (vLLM laguna.py), so the count grows by sum(heads) x hidden x (128 - 1).
BOOST_AUTO_TEST_CASE(laguna_gating_string) {
  const std::string id = "poolside/Laguna-XS.2-FP8";
  std::uint64_t heads = 0;
  const auto cfg = nlohmann::json::parse(find_bundled(id)->json);
  for (const auto& h : cfg["num_attention_heads_per_layer"])
    heads += h.get<std::uint64_t>();
  BOOST_TEST(heads == 2400u);
  const auto per_head = family_patched(id, {{"gating", "per-head"}}).params;
  const auto per_element = family_patched(id, {{"gating", "per-element"}}).params;
  BOOST_TEST(per_head.total == load_model(id).params.total);  // gating true means per-head
  BOOST_TEST(per_element.total == per_head.total + heads * 2048 * 127);
  BOOST_TEST(family_patched(id, {{"gating", "per-token"}}).params.total == 0u);  // unknown: no count, noted
}

// Issue 15: the families' MTP notes count in the right number ("1 MTP layer", "2 MTP layers"),
// never "layer(s)". DeepSeek-V3 and MiMo-7B-Base ship num_nextn_predict_layers 1; 2 is patched in.
BOOST_AUTO_TEST_CASE(mtp_notes_singular_and_plural) {
  auto note_with = [](const ModelSpec& m, const std::string& text) {
    for (const auto& n : m.params.notes) {
      BOOST_TEST(n.find("(s)") == std::string::npos, n);
      if (n.find(text) != std::string::npos) return true;
    }
    return false;
  };
  BOOST_TEST(note_with(load_model("deepseek-ai/DeepSeek-V3"),
                       "deepseek: 1 MTP layer counted in mtp (not in total), with its stored copy"));
  BOOST_TEST(note_with(family_patched("deepseek-ai/DeepSeek-V3", {{"num_nextn_predict_layers", 2}}),
                       "deepseek: 2 MTP layers counted in mtp (not in total), each with its stored copy"));
  BOOST_TEST(note_with(load_model("XiaomiMiMo/MiMo-7B-Base"), "mimo: the 1 MTP layer is a separate draft model"));
  BOOST_TEST(note_with(family_patched("XiaomiMiMo/MiMo-7B-Base", {{"num_nextn_predict_layers", 2}}),
                       "mimo: the 2 MTP layers are a separate draft model"));
}

// ---- Layers with several mixers (attention + Mamba-2 in one block). No complete real config of
// either family was found in the public repositories searched, so each config holds the class
// defaults of transformers' own configuration file, which are public values (cited in
// tests/data/hybrid_layers/README.md): FalconH1Config and Zamba2Config.

// A layer holding K+V of `kv_row` bytes per token in bf16 (half of it in fp8) beside a constant
// bf16 state of `state` bytes, at 1, 4,096 and 131,072 tokens.
void check_layer_bytes(const LayerSpec& l, std::uint64_t kv_row, std::uint64_t state) {
  const CacheDtypes bf16{Dtype::bf16, Dtype::bf16, Dtype::bf16, Dtype::bf16};
  const CacheDtypes fp8{Dtype::fp8_e4m3, Dtype::fp8_e4m3, Dtype::bf16, Dtype::bf16};
  for (std::uint64_t n : {1u, 4096u, 131072u}) {
    BOOST_TEST(layer_bytes(l, n, bf16).total_bytes() == kv_row * n + state);
    BOOST_TEST(layer_bytes(l, n, fp8).total_bytes() == kv_row / 2 * n + state);
  }
}

// Falcon-H1: every layer runs attention and Mamba-2 in parallel (modeling_falcon_h1.py
// FalconH1DecoderLayer; vLLM falcon_h1.py FalconH1ParallelHybrid).
BOOST_AUTO_TEST_CASE(falcon_h1_parallel_attention_and_mamba2) {
  // FalconH1Config defaults: hidden 4096, 32 layers, 32 heads, 8 KV heads, mamba_d_ssm 1024,
  // mamba_n_heads 128, mamba_d_head "auto", mamba_n_groups 1, mamba_d_state 256, mamba_d_conv 4.
  const nlohmann::json cfg = test::read_json("tests/data/hybrid_layers/falcon_h1_transformers_defaults.json");
  const ModelSpec m = load_model_from_json(cfg.dump(), "falcon_h1.json");
  BOOST_REQUIRE(m.layers.size() == 32u);
  for (const auto& l : m.layers) {
    BOOST_REQUIRE(l.mixers.size() == 2u);
    BOOST_TEST(kind_name(l) == "full_attention");
    BOOST_TEST(kind_name(l.mixers[1]) == "mamba");
  }
  BOOST_TEST(m.count_kind("full_attention") == 32u);
  BOOST_TEST(m.count_kind("mamba") == 32u);
  // Attention: head_dim = hidden / heads = 128 (no head_dim field), 8 KV heads.
  BOOST_TEST((m.layers[0].mixers[0] == LayerCache{Attention{8, 128, 128}}));
  // Mamba-2: 128 heads of 1024 / 128 = 8, 1 group, d_state 256, kernel 4.
  BOOST_TEST((m.layers[0].mixers[1] == LayerCache{Mamba2{128, 8, 256, 1, 4}}));
  // Per layer by hand: K and V 8 x 128 x 2 B = 2,048 B each per token (bf16), 1,024 B in fp8;
  // conv state (4 - 1) x (1,024 + 2 x 1 x 256) x 2 B = 9,216 B; SSM state 128 x 8 x 256 x 2 B
  // = 524,288 B (vLLM MambaStateShapeCalculator.mamba2_state_shape, the state kept in bf16).
  const std::uint64_t state = 9216 + 524288;
  const CacheDtypes bf16{Dtype::bf16, Dtype::bf16, Dtype::bf16, Dtype::bf16};
  const CacheDtypes fp8{Dtype::fp8_e4m3, Dtype::fp8_e4m3, Dtype::bf16, Dtype::bf16};
  check_layer_bytes(m.layers[5], 4096, state);
  BOOST_TEST(layer_bytes(m.layers[5], 1, bf16).total_bytes() == 537600u);
  BOOST_TEST(layer_bytes(m.layers[5], 4096, bf16).total_bytes() == 17310720u);
  BOOST_TEST(layer_bytes(m.layers[5], 131072, bf16).total_bytes() == 537404416u);
  BOOST_TEST(layer_bytes(m.layers[5], 1, fp8).total_bytes() == 535552u);
  BOOST_TEST(layer_bytes(m.layers[5], 4096, fp8).total_bytes() == 8922112u);
  BOOST_TEST(layer_bytes(m.layers[5], 131072, fp8).total_bytes() == 268968960u);
  // The whole model sums both mixers of every layer; one more token adds the attention rows.
  const auto s = cache_size(m, workload(4096));
  BOOST_TEST(s.total_bytes == 32u * 17310720u);
  BOOST_TEST(s.state_bytes == 32u * state);
  BOOST_TEST(s.bytes_per_token == 32u * 4096u);
  BOOST_TEST(s.layers[0].kind == "full_attention");
  BOOST_TEST((s.layers[0].mixer_kinds == std::vector<std::string>{"full_attention", "mamba"}));
  // The interface's JSON keeps "kind" and lists the mixers.
  const auto lj = layer_to_json(m.layers[0]);
  BOOST_TEST(lj["kind"] == "full_attention");
  BOOST_TEST(lj["mixers"].size() == 2u);
  BOOST_TEST(lj["mixers"][1]["kind"] == "mamba");
  // A one-mixer accessor on a two-mixer layer is an error, never the first mixer silently.
  BOOST_CHECK_THROW((void)m.layers[0].cache(), InputError);
  // mamba_d_head must make the width: FalconH1Config.validate_architecture.
  auto bad = cfg;
  bad["mamba_d_head"] = 16;
  BOOST_CHECK_EXCEPTION(load_model_from_json(bad.dump(), "falcon_h1.json"), ConfigError,
                        test::HasMessage({"/mamba_d_head", "1024"}));
}

// Zamba2: Mamba-2 in every layer; the "hybrid" layers run the shared attention block first and
// keep their own K/V (modeling_zamba2.py Zamba2HybridLayer, Zamba2HybridDynamicCache).
BOOST_AUTO_TEST_CASE(zamba2_shared_attention_on_mamba2_layers) {
  // Zamba2Config defaults: hidden 2560, 54 layers, 32 heads (KV heads default to the head
  // count), mamba_d_state 64, mamba_d_conv 4, mamba_expand 2, mamba_ngroups 1, n_mamba_heads 8,
  // the default layers_block_type (no field).
  const nlohmann::json cfg = test::read_json("tests/data/hybrid_layers/zamba2_transformers_defaults.json");
  const ModelSpec m = load_model_from_json(cfg.dump(), "zamba2.json");
  BOOST_REQUIRE(m.layers.size() == 54u);
  const std::vector<std::size_t> hybrid{6, 12, 18, 24, 30, 36, 42, 47, 51};
  BOOST_TEST(m.count_kind("full_attention") == hybrid.size());
  BOOST_TEST(m.count_kind("mamba") == 54u);
  // Attention over 2 x hidden: head_dim 2 x 2560 / 32 = 160, 32 KV heads; Mamba-2 of 8 heads
  // of 2 x 2560 / 8 = 640, 1 group, d_state 64, kernel 4.
  const LayerCache attn = Attention{32, 160, 160};
  const LayerCache ssm = Mamba2{8, 640, 64, 1, 4};
  for (std::size_t i = 0; i < 54; ++i) {
    const bool h = std::find(hybrid.begin(), hybrid.end(), i) != hybrid.end();
    BOOST_TEST((m.layers[i].mixers == (h ? std::vector<LayerCache>{attn, ssm} : std::vector<LayerCache>{ssm})));
  }
  // By hand: K and V 32 x 160 x 2 B = 10,240 B each per token (bf16), 5,120 B in fp8; conv
  // state 3 x (5,120 + 2 x 64) x 2 B = 31,488 B; SSM state 8 x 640 x 64 x 2 B = 655,360 B.
  const std::uint64_t state = 31488 + 655360;
  const CacheDtypes bf16{Dtype::bf16, Dtype::bf16, Dtype::bf16, Dtype::bf16};
  const CacheDtypes fp8{Dtype::fp8_e4m3, Dtype::fp8_e4m3, Dtype::bf16, Dtype::bf16};
  check_layer_bytes(m.layers[6], 20480, state);  // hybrid
  check_layer_bytes(m.layers[7], 0, state);      // Mamba-2 only
  BOOST_TEST(layer_bytes(m.layers[6], 1, bf16).total_bytes() == 707328u);
  BOOST_TEST(layer_bytes(m.layers[6], 4096, bf16).total_bytes() == 84572928u);
  BOOST_TEST(layer_bytes(m.layers[6], 131072, bf16).total_bytes() == 2685041408u);
  BOOST_TEST(layer_bytes(m.layers[6], 1, fp8).total_bytes() == 697088u);
  BOOST_TEST(layer_bytes(m.layers[6], 4096, fp8).total_bytes() == 42629888u);
  BOOST_TEST(layer_bytes(m.layers[6], 131072, fp8).total_bytes() == 1342864128u);
  BOOST_TEST(cache_size(m, workload(4096)).total_bytes == 9u * 84572928u + 45u * state);
  // The default pattern is defined for 54 layers only.
  auto short_cfg = cfg;
  short_cfg["num_hidden_layers"] = 12;
  BOOST_CHECK_EXCEPTION(load_model_from_json(short_cfg.dump(), "zamba2.json"), ConfigError,
                        test::HasMessage({"layers_block_type", "54"}));
}

// ---- The same two families on real configs (tests/data/hybrid_layers/README.md cites each page;
// both files are the stored copy of the page, which ends before the file does).

// Falcon-H1-0.5B's architecture (MerlinSafety/HybridIntelligence-0.5B, a Falcon-H1-0.5B
// derivative: the same fields as FALCON_H1_500M_CONFIG in NVIDIA-NeMo/Megatron-Bridge and the
// 0.5B row of transformers' Falcon-H1 docs). modeling_falcon_h1.py: FalconH1Attention's k_proj /
// v_proj are num_key_value_heads x head_dim = 2 x 64; FalconH1Mixer's conv1d runs over
// mamba_d_ssm + 2 x mamba_n_groups x mamba_d_state = 1,536 + 2 x 128 channels with a
// mamba_d_conv - 1 = 3 column state, and its SSM state is mamba_n_heads x mamba_d_head x
// mamba_d_state = 24 x 64 x 128 (vLLM MambaStateShapeCalculator.mamba2_state_shape, kept in
// bf16). Per layer by hand: K+V 2 x 2 x 64 = 256 elements a token (512 B bf16, 256 B fp8);
// state (3 x 1,792 + 196,608) x 2 B = 403,968 B.
BOOST_AUTO_TEST_CASE(falcon_h1_real_config_per_layer_bytes) {
  const nlohmann::json cfg = test::read_json("tests/data/hybrid_layers/MerlinSafety__HybridIntelligence-0.5B.json");
  const ModelSpec m = load_model_from_json(cfg.dump(), "HybridIntelligence-0.5B.json");
  BOOST_REQUIRE(m.layers.size() == 36u);
  for (const auto& l : m.layers) {
    BOOST_TEST((l.mixers == std::vector<LayerCache>{Attention{2, 64, 64}, Mamba2{24, 64, 128, 1, 4}}));
  }
  const CacheDtypes bf16{Dtype::bf16, Dtype::bf16, Dtype::bf16, Dtype::bf16};
  const CacheDtypes fp8{Dtype::fp8_e4m3, Dtype::fp8_e4m3, Dtype::bf16, Dtype::bf16};
  const std::uint64_t state = (3u * 1792u + 196608u) * 2u;
  BOOST_TEST(state == 403968u);
  check_layer_bytes(m.layers[0], 512, state);
  for (const auto& l : m.layers) {
    BOOST_TEST(layer_bytes(l, 1, bf16).total_bytes() == 404480u);
    BOOST_TEST(layer_bytes(l, 4096, bf16).total_bytes() == 2501120u);
    BOOST_TEST(layer_bytes(l, 131072, bf16).total_bytes() == 67512832u);
    BOOST_TEST(layer_bytes(l, 1, fp8).total_bytes() == 404224u);
    BOOST_TEST(layer_bytes(l, 4096, fp8).total_bytes() == 1452544u);
    BOOST_TEST(layer_bytes(l, 131072, fp8).total_bytes() == 33958400u);
  }
  BOOST_TEST(cache_size(m, workload(4096)).total_bytes == 36u * 2501120u);
}

// Zamba2-2.7B-Instruct-v2 (Zyphra's own config; the stored page ends after n_mamba_heads, so
// num_attention_heads takes Zamba2Config's default 32, which the file's own attention_hidden_size
// / attention_head_dim = 5,120 / 160 confirms). modeling_zamba2.py: the 9 "hybrid" layers (6, 12,
// 18, 24, 30, 36, 42, 47, 51 = hybrid_layer_ids) run Zamba2Attention with k_proj / v_proj of
// num_key_value_heads (= 32) x attention_head_dim (2 x 2,560 / 32 = 160) and keep their K/V
// (Zamba2HybridDynamicCache); every layer's Zamba2MambaMixer has a conv state of
// (mamba_d_conv - 1) x (mamba_expand x hidden + 2 x mamba_ngroups x mamba_d_state) = 3 x (5,120 +
// 128) and an SSM state of n_mamba_heads x mamba_headdim x mamba_d_state = 80 x 64 x 64. Per
// layer by hand: K+V 2 x 32 x 160 = 10,240 elements a token (20,480 B bf16, 10,240 B fp8);
// state (3 x 5,248 + 327,680) x 2 B = 686,848 B.
BOOST_AUTO_TEST_CASE(zamba2_real_config_per_layer_bytes) {
  const nlohmann::json cfg = test::read_json("tests/data/hybrid_layers/Zyphra__Zamba2-2.7B-Instruct-v2.json");
  const ModelSpec m = load_model_from_json(cfg.dump(), "Zamba2-2.7B-Instruct-v2.json");
  BOOST_REQUIRE(m.layers.size() == 54u);
  const LayerCache attn = Attention{32, 160, 160};
  const LayerCache ssm = Mamba2{80, 64, 64, 1, 4};
  std::vector<std::size_t> hybrid;
  for (const auto& i : cfg["hybrid_layer_ids"]) hybrid.push_back(i.get<std::size_t>());
  BOOST_TEST(hybrid.size() == 9u);
  const std::uint64_t state = (3u * 5248u + 327680u) * 2u;
  BOOST_TEST(state == 686848u);
  const CacheDtypes bf16{Dtype::bf16, Dtype::bf16, Dtype::bf16, Dtype::bf16};
  const CacheDtypes fp8{Dtype::fp8_e4m3, Dtype::fp8_e4m3, Dtype::bf16, Dtype::bf16};
  for (std::size_t i = 0; i < 54; ++i) {
    const bool h = std::find(hybrid.begin(), hybrid.end(), i) != hybrid.end();
    BOOST_TEST((m.layers[i].mixers == (h ? std::vector<LayerCache>{attn, ssm} : std::vector<LayerCache>{ssm})), "layer " << i);
    check_layer_bytes(m.layers[i], h ? 20480 : 0, state);
    if (h) {
      BOOST_TEST(layer_bytes(m.layers[i], 1, bf16).total_bytes() == 707328u);
      BOOST_TEST(layer_bytes(m.layers[i], 4096, bf16).total_bytes() == 84572928u);
      BOOST_TEST(layer_bytes(m.layers[i], 131072, bf16).total_bytes() == 2685041408u);
      BOOST_TEST(layer_bytes(m.layers[i], 1, fp8).total_bytes() == 697088u);
      BOOST_TEST(layer_bytes(m.layers[i], 4096, fp8).total_bytes() == 42629888u);
      BOOST_TEST(layer_bytes(m.layers[i], 131072, fp8).total_bytes() == 1342864128u);
    } else {
      for (std::uint64_t n : {1u, 4096u, 131072u}) BOOST_TEST(layer_bytes(m.layers[i], n, fp8).total_bytes() == 686848u);
    }
  }
  BOOST_TEST(cache_size(m, workload(131072)).total_bytes == 9ull * 2685041408ull + 45ull * 686848ull);
  // transformers 5 writes the Mamba-2-only layers as "linear_attention": the same layers.
  auto v5 = cfg;
  for (auto& t : v5["layers_block_type"])
    if (t == "mamba") t = "linear_attention";
  check_same_layers(load_model_from_json(v5.dump(), "zamba2_v5.json"), m);
  auto bad = cfg;
  bad["layers_block_type"][3] = "attention";
  BOOST_CHECK_EXCEPTION(load_model_from_json(bad.dump(), "zamba2.json"), ConfigError,
                        test::HasMessage({"/layers_block_type/3", "linear_attention", "\"attention\""}));
}

// Olmo 3 through the general layer_types rule (no family file), on an Olmo-3-7B-shaped real config
// (tests/data/olmo3/README.md). modeling_olmo3.py: Olmo3Attention's k_proj / v_proj are
// num_key_value_heads x head_dim = 32 x (4,096 / 32 = 128); a "sliding_attention" layer attends
// over config.sliding_window = 4,096 tokens, a "full_attention" layer over all. Per layer by
// hand: K+V 2 x 32 x 128 = 8,192 elements a token (16,384 B bf16, 8,192 B fp8); a sliding layer
// holds min(N, 4,096) tokens.
BOOST_AUTO_TEST_CASE(olmo3_layer_types_per_layer_bytes) {
  const nlohmann::json cfg = test::read_json("tests/data/olmo3/modrill__code-think-o7b-20260908.json");
  const ModelSpec m = load_model_from_json(cfg.dump(), "code-think-o7b.json");
  BOOST_REQUIRE(m.layers.size() == 32u);
  BOOST_TEST(m.count_kind("full_attention") == 8u);
  BOOST_TEST(m.count_kind("sliding_attention") == 24u);
  struct Want {
    std::uint64_t n, full_bf16, full_fp8, swa_bf16, swa_fp8;
  };
  const Want wants[] = {{1, 16384, 8192, 16384, 8192},
                        {4096, 67108864, 33554432, 67108864, 33554432},
                        {131072, 2147483648ull, 1073741824, 67108864, 33554432}};
  for (const auto& w : wants) {
    const CacheSize b = cache_size(m, workload(w.n, 1, Dtype::bf16)), f = cache_size(m, workload(w.n, 1, Dtype::fp8_e4m3));
    for (std::size_t i = 0; i < 32; ++i) {
      const bool full = i % 4 == 3;
      BOOST_TEST_CONTEXT("layer " << i << ", " << w.n << " tokens") {
        BOOST_TEST(b.layers[i].kind == (full ? "full_attention" : "sliding_attention"));
        BOOST_TEST(b.layers[i].bytes == (full ? w.full_bf16 : w.swa_bf16));
        BOOST_TEST(f.layers[i].bytes == (full ? w.full_fp8 : w.swa_fp8));
      }
    }
    BOOST_TEST(b.total_bytes == 8 * w.full_bf16 + 24 * w.swa_bf16);
    BOOST_TEST(f.total_bytes == 8 * w.full_fp8 + 24 * w.swa_fp8);
  }
  for (std::size_t i = 0; i < 32; ++i)
    if (i % 4 != 3) BOOST_TEST(span_tokens(test::sliding_attention_of(m.layers[i].cache()).span) == 4096u);
}

// Ministral 3 (model_type ministral3), on a real Ministral-3-3B-shaped text config
// (tests/data/ministral3/README.md). modeling_ministral3.py: Ministral3Attention's k_proj / v_proj
// are num_key_value_heads x head_dim = 8 x 128; sliding_window null: every layer attends over all
// tokens. Per layer by hand: K+V 2 x 8 x 128 = 2,048 elements a token (4,096 B bf16, 2,048 B fp8).
BOOST_AUTO_TEST_CASE(ministral3_text_config_per_layer_bytes) {
  const nlohmann::json cfg = test::read_json("tests/data/ministral3/rootlocalghost__ERNIE-Image__pe.json");
  const ModelSpec m = load_model_from_json(cfg.dump(), "ernie-image-pe.json");
  BOOST_REQUIRE(m.layers.size() == 26u);
  BOOST_TEST(m.count_kind("full_attention") == 26u);
  for (const auto& l : m.layers) BOOST_TEST((l.mixers == std::vector<LayerCache>{Attention{8, 128, 128}}));
  struct Want {
    std::uint64_t n, bf16, fp8;
  };
  for (const Want& w : {Want{1, 4096, 2048}, Want{4096, 16777216, 8388608}, Want{131072, 536870912, 268435456}}) {
    const CacheSize b = cache_size(m, workload(w.n, 1, Dtype::bf16)), f = cache_size(m, workload(w.n, 1, Dtype::fp8_e4m3));
    for (std::size_t i = 0; i < 26; ++i) {
      BOOST_TEST(b.layers[i].bytes == w.bf16, "layer " << i << ", " << w.n << " tokens");
      BOOST_TEST(f.layers[i].bytes == w.fp8, "layer " << i << ", " << w.n << " tokens");
    }
    BOOST_TEST(b.total_bytes == 26 * w.bf16);
  }
  // The same text model inside a Mistral 3 wrapper (text_config ministral3): the same layers.
  const nlohmann::json wrapper = {{"architectures", {"Mistral3ForConditionalGeneration"}}, {"model_type", "mistral3"},
                                  {"text_config", cfg}};
  check_same_layers(load_model_from_json(wrapper.dump(), "mistral3.json"), m);
}

// Step-3 (stepfun-ai/step3, a step3_vl wrapper around a step3_text config; tests/data/step3/README.md).
// vLLM step3_text.py: Step3TextAttention's qkv_proj emits a share_q_dim (2,048) query, expanded by
// wq to 64 heads x 256, and one key and one value head of head_dim 256 (num_kv_heads 1, which the
// decoder layer passes and the attention requires); every layer is full attention. Per layer by
// hand: K+V 2 x 1 x 256 = 512 elements a token (1,024 B bf16, 512 B fp8), all 61 layers.
BOOST_AUTO_TEST_CASE(step3_real_config_per_layer_bytes) {
  const nlohmann::json cfg = test::read_json("tests/data/step3/stepfun-ai__step3.json");
  const ModelSpec m = load_model_from_json(cfg.dump(), "step3.json");
  BOOST_TEST(m.model_type == "step3_text");
  BOOST_REQUIRE(m.layers.size() == 61u);
  BOOST_TEST(m.count_kind("full_attention") == 61u);
  for (const auto& l : m.layers) BOOST_TEST((l.mixers == std::vector<LayerCache>{Attention{1, 256, 256}}));
  struct Want {
    std::uint64_t n, bf16, fp8;
  };
  for (const Want& w : {Want{1, 1024, 512}, Want{4096, 4194304, 2097152}, Want{131072, 134217728, 67108864}}) {
    const CacheSize b = cache_size(m, workload(w.n, 1, Dtype::bf16)), f = cache_size(m, workload(w.n, 1, Dtype::fp8_e4m3));
    for (std::size_t i = 0; i < 61; ++i) {
      BOOST_TEST(b.layers[i].bytes == w.bf16, "layer " << i << ", " << w.n << " tokens");
      BOOST_TEST(f.layers[i].bytes == w.fp8, "layer " << i << ", " << w.n << " tokens");
    }
    BOOST_TEST(b.total_bytes == 61 * w.bf16);
    BOOST_TEST(f.total_bytes == 61 * w.fp8);
  }
  // The weights have no proven rule: unknown, saying why, never a silent zero.
  BOOST_TEST(m.params.total == 0u);
  BOOST_TEST(m.params.unknown_reason.find("step3_text") != std::string::npos, m.params.unknown_reason);
  // num_attention_groups is the KV head count: 2 groups double every layer's row.
  nlohmann::json two = cfg;
  two["text_config"]["num_attention_groups"] = 2;
  const ModelSpec m2 = load_model_from_json(two.dump(), "step3-g2.json");
  BOOST_TEST(cache_size(m2, workload(1, 1, Dtype::bf16)).total_bytes == 61u * 2048);
  // Outside the Step-3 family, num_attention_groups without num_key_value_heads is refused, never
  // read as full multi-head attention (a Step-3.5-style config through the layer_types rule would
  // otherwise hold num_attention_heads / num_attention_groups times its cache). The config is
  // Step-3's own text model renamed, with a layer_types list: a construction, not a real file.
  nlohmann::json general = cfg["text_config"];
  general["model_type"] = "not_a_known_family";
  general["layer_types"] = nlohmann::json::array();
  for (int i = 0; i < 61; ++i) general["layer_types"].push_back("full_attention");
  BOOST_CHECK_EXCEPTION(load_model_from_json(general.dump(), "general.json"), ConfigError,
                        test::HasMessage({"/num_attention_groups", "num_key_value_heads", "step3_text"}));
}

// ---- Issue 34: the plain layouts that were refused, each on its real config
// (tests/data/families34, sources in its README). Per layer and token the cache holds `elements`
// values (K + V rows over the KV heads, or the MLA latent + rope key), derived by hand from the
// config fields named beside each row; bytes = elements x (2 for bf16, 1 for fp8) x tokens, the
// same on every layer (no window, no sharing). So at 1, 4,096 and 131,072 tokens:
//   bf16: elements * 2 * {1, 4096, 131072}, fp8: elements * 1 * {1, 4096, 131072}.
namespace {
struct Plain34 {
  const char* file;
  std::uint64_t layers;
  std::uint64_t elements;  // per layer per token
  const char* kind;
};
const Plain34 kPlain34[] = {
    // Qwen2-VL-2B: num_hidden_layers 28, num_key_value_heads 2, head 1536/12 = 128;
    // use_sliding_window false -> all full: 2 * (128 + 128) = 512.
    {"Qwen__Qwen2-VL-2B-Instruct.json", 28, 2 * (128 + 128), "full_attention"},
    // Qwen2-VL-7B: 28 layers, 4 KV heads, head 3584/28 = 128: 4 * 256 = 1024.
    {"Qwen__Qwen2-VL-7B-Instruct.json", 28, 4 * (128 + 128), "full_attention"},
    // chatglm3-6b: num_layers 28, multi_query_attention -> multi_query_group_num 2, kv_channels 128.
    {"THUDM__chatglm3-6b.json", 28, 2 * (128 + 128), "full_attention"},
    // glm-4-9b-chat: num_layers 40, multi_query_group_num 2, kv_channels 128.
    {"THUDM__glm-4-9b-chat.json", 40, 2 * (128 + 128), "full_attention"},
    // Phi-3-small: 32 layers, 8 KV heads, head 4096/32 = 128; block-sparse layers cache every token.
    {"microsoft__Phi-3-small-8k-instruct.json", 32, 8 * (128 + 128), "full_attention"},
    // Phi-3-vision: 32 layers, 32 KV heads, head 3072/32 = 96, no sliding_window.
    {"microsoft__Phi-3-vision-128k-instruct.json", 32, 32 * (96 + 96), "full_attention"},
    // PaddleOCR-VL: 18 layers, 2 KV heads, head_dim 128 (sliding_window null).
    {"PaddlePaddle__PaddleOCR-VL.json", 18, 2 * (128 + 128), "full_attention"},
    // XVERSE-65B: 80 layers, no num_key_value_heads -> 64 KV heads, head 8192/64 = 128.
    {"xverse__XVERSE-65B.json", 80, 64 * (128 + 128), "full_attention"},
    // XVERSE-MoE-A36B: 50 layers, 16 KV heads, head 6144/48 = 128.
    {"xverse__XVERSE-MoE-A36B.json", 50, 16 * (128 + 128), "full_attention"},
    // MiniCPM3-4B: 62 layers; vLLM caches 40 heads of K = qk_nope 64 + qk_rope 32 = 96 and V padded
    // to 96 (minicpm3.py): 40 * (96 + 96) = 7680.
    {"openbmb__MiniCPM3-4B-GPTQ-Int4.json", 62, 40 * (96 + 96), "full_attention"},
    // GLM-4.7-Flash: 47 layers of MLA, kv_lora_rank 512 + qk_rope_head_dim 64 = 576, no V.
    {"zai-org__GLM-4.7-Flash.json", 47, 512 + 64, "mla"},
    // Seed-OSS-36B (a derivative re-save): 64 layers, 8 KV heads, head_dim 128.
    {"darkc0de__4.3test2-seed_oss.json", 64, 8 * (128 + 128), "full_attention"},
    // ERNIE-4.5-0.3B: 18 layers, 2 KV heads, head_dim 128.
    {"baidu__ERNIE-4.5-0.3B.json", 18, 2 * (128 + 128), "full_attention"},
    // Hy3 (hy_v3): 80 layers, 8 KV heads, head_dim 128 (the MTP layer is outside num_hidden_layers).
    {"tencent__Hy3.json", 80, 8 * (128 + 128), "full_attention"},
    // ---- issue 34 item 3, the long tail (totals written out in families34_long_tail_totals):
    // Apertus-8B (apertus): 32 layers, 8 KV heads, no head_dim -> 4096/32 = 128: 8 * 256 = 2048.
    {"swiss-ai__Apertus-8B.json", 32, 8 * (128 + 128), "full_attention"},
    // InternLM3-8B (internlm3, served as Llama): 48 layers, 2 KV heads, head 4096/32 = 128: 512.
    {"internlm__internlm3-8b-instruct.json", 48, 2 * (128 + 128), "full_attention"},
    // Ling-lite-1.5 (bailing_moe): 28 layers, 4 KV heads, head 2048/16 = 128: 1024.
    {"inclusionAI__Ling-lite-1.5.json", 28, 4 * (128 + 128), "full_attention"},
    // dots.llm1.inst (dots1): 62 layers, 32 KV heads, head 4096/32 = 128: 8192.
    {"rednote-hilab__dots.llm1.inst.json", 62, 32 * (128 + 128), "full_attention"},
    // Hunyuan-MT-7B (hunyuan_v1_dense): 32 layers, 8 KV heads, head_dim 128, use_cla absent: 2048.
    {"tencent__Hunyuan-MT-7B.json", 32, 8 * (128 + 128), "full_attention"},
    // GLM-4.6 (glm4_moe): 92 layers, 8 KV heads, head_dim 128; the MTP layer
    // (num_nextn_predict_layers 1) is outside num_hidden_layers: 8 * 256 = 2048.
    {"zai-org__GLM-4.6.json", 92, 8 * (128 + 128), "full_attention"},
    // ERNIE-4.5-21B-A3B (ernie4_5_moe): 28 layers, 4 KV heads, head_dim null -> 2560/20 = 128: 1024.
    {"baidu__ERNIE-4.5-21B-A3B.json", 28, 4 * (128 + 128), "full_attention"},
};
std::ostream& operator<<(std::ostream& os, const Plain34& p) { return os << p.file; }
}  // namespace

BOOST_DATA_TEST_CASE(families34_plain_layouts_equal_the_hand_derivation, bdata::make(std::vector<Plain34>(
                                                                              std::begin(kPlain34), std::end(kPlain34))),
                     w) {
  const ModelSpec m = load_model(test::source_path(std::string("tests/data/families34/") + w.file));
  BOOST_REQUIRE_EQUAL(m.num_layers(), w.layers);
  for (std::uint64_t bytes : {2ull, 1ull}) {
    const Dtype d = bytes == 2 ? Dtype::bf16 : Dtype::fp8_e4m3;
    for (std::uint64_t n : {1ull, 4096ull, 131072ull}) {
      const CacheSize s = cache_size(m, workload(n, 1, d));
      for (std::size_t i = 0; i < s.layers.size(); ++i) {
        BOOST_TEST_CONTEXT(w.file << ", layer " << i << ", " << n << " tokens, " << bytes << " B") {
          BOOST_TEST(s.layers[i].kind == w.kind);
          BOOST_TEST(s.layers[i].bytes == w.elements * bytes * n);
        }
      }
      BOOST_TEST(s.total_bytes == w.layers * w.elements * bytes * n, w.file << " total at " << n);
    }
  }
}

// Issue 34 item 3: the long-tail families on their real configs, whole-model totals at 1, 4,096
// and 131,072 tokens, by hand (layers x 2 (K, V) x KV heads x head_dim x bytes x tokens):
//   Apertus-8B:     32 x 2 x  8 x 128 = 65,536 values a token -> bf16 131,072 B; fp8 65,536 B
//                   bf16: 131,072 / 536,870,912 / 17,179,869,184; fp8: 65,536 / 268,435,456 / 8,589,934,592
//   InternLM3-8B:   48 x 2 x  2 x 128 = 24,576 -> bf16: 49,152 / 201,326,592 / 6,442,450,944;
//                                                fp8: 24,576 / 100,663,296 / 3,221,225,472
//   Ling-lite-1.5:  28 x 2 x  4 x 128 = 28,672 -> bf16: 57,344 / 234,881,024 / 7,516,192,768;
//                                                fp8: 28,672 / 117,440,512 / 3,758,096,384
//   dots.llm1:      62 x 2 x 32 x 128 = 507,904 -> bf16: 1,015,808 / 4,160,749,568 / 133,143,986,176;
//                                                 fp8: 507,904 / 2,080,374,784 / 66,571,993,088
//   Hunyuan-MT-7B:  32 x 2 x  8 x 128 = 65,536 -> the same as Apertus-8B.
//   GLM-4.6:        92 x 2 x  8 x 128 = 188,416 -> bf16: 376,832 / 1,543,503,872 / 49,392,123,904;
//                                                 fp8: 188,416 / 771,751,936 / 24,696,061,952
//   ERNIE-4.5-21B-A3B: 28 x 2 x 4 x 128 (head_dim null: 2,560 / 20) = 28,672 -> as Ling-lite-1.5.
BOOST_AUTO_TEST_CASE(families34_long_tail_totals) {
  struct Want {
    const char* file;
    std::uint64_t bf16[3], fp8[3];
  };
  const Want wants[] = {
      {"swiss-ai__Apertus-8B.json", {131072, 536870912, 17179869184ull}, {65536, 268435456, 8589934592ull}},
      {"internlm__internlm3-8b-instruct.json", {49152, 201326592, 6442450944ull}, {24576, 100663296, 3221225472ull}},
      {"inclusionAI__Ling-lite-1.5.json", {57344, 234881024, 7516192768ull}, {28672, 117440512, 3758096384ull}},
      {"rednote-hilab__dots.llm1.inst.json", {1015808, 4160749568ull, 133143986176ull},
       {507904, 2080374784ull, 66571993088ull}},
      {"tencent__Hunyuan-MT-7B.json", {131072, 536870912, 17179869184ull}, {65536, 268435456, 8589934592ull}},
      {"zai-org__GLM-4.6.json", {376832, 1543503872ull, 49392123904ull}, {188416, 771751936, 24696061952ull}},
      {"baidu__ERNIE-4.5-21B-A3B.json", {57344, 234881024, 7516192768ull}, {28672, 117440512, 3758096384ull}},
  };
  const std::uint64_t tokens[3] = {1, 4096, 131072};
  for (const Want& w : wants) {
    const ModelSpec m = load_model(test::source_path(std::string("tests/data/families34/") + w.file));
    for (int i = 0; i < 3; ++i) {
      BOOST_TEST(cache_size(m, workload(tokens[i], 1, Dtype::bf16)).total_bytes == w.bf16[i], w.file << " bf16 " << tokens[i]);
      BOOST_TEST(cache_size(m, workload(tokens[i], 1, Dtype::fp8_e4m3)).total_bytes == w.fp8[i],
                 w.file << " fp8 " << tokens[i]);
    }
  }
}

// Hunyuan v1 with cross-layer attention on (Hunyuan-Large's use_cla: only every cla_share_factor-th
// layer computes K/V) is refused naming the field. The same family serves hunyuan_v1_moe
// (Hunyuan-A13B); no real A13B config is stored here, so the MoE model_type is proven only on the
// MT-7B config relabelled -- a construction, not a real file -- to load through the same rule.
BOOST_AUTO_TEST_CASE(families34_hunyuan_v1_refuses_cla) {
  auto cfg = test::read_json("tests/data/families34/tencent__Hunyuan-MT-7B.json");
  auto cla = cfg;
  cla["use_cla"] = true;
  cla["cla_share_factor"] = 2;
  BOOST_CHECK_EXCEPTION(load_model_from_json(cla.dump(), "hunyuan-cla.json"), UnsupportedArchitecture,
                        test::HasMessage({"use_cla"}));
  auto moe = cfg;
  moe["model_type"] = "hunyuan_v1_moe";
  BOOST_TEST(cache_size(load_model_from_json(moe.dump(), "hunyuan-moe.json"), workload(1, 1, Dtype::bf16)).total_bytes ==
             131072u);
}

// Gemma 3n E2B (gemma3n_text; transformers modeling_gemma3n.py Gemma3nTextAttention, vLLM gemma3n.py):
// 30 layers, layer_types full at every 5th (index % 5 == 4), 2 KV heads x head_dim 256, window 512;
// the last num_kv_shared_layers = 10 layers (20..29) compute no K/V and read the last earlier layer
// of their kind, so only layers 0..19 hold a cache: 4 full (4, 9, 14, 19) and 16 sliding.
// Per owning layer and token: 2 x 2 x 256 = 1,024 values (2,048 B bf16, 1,024 B fp8).
// bf16 at N tokens: 4 x 2,048 x N + 16 x 2,048 x min(N, 512):
//   1: 8,192 + 32,768 = 40,960; 4,096: 33,554,432 + 16,777,216 = 50,331,648;
//   131,072: 1,073,741,824 + 16,777,216 = 1,090,519,040. fp8: half of each.
BOOST_AUTO_TEST_CASE(families34_gemma3n_e2b) {
  const ModelSpec m = load_model(test::source_path("tests/data/families34/google__gemma-3n-E2B-it.json"));
  BOOST_REQUIRE_EQUAL(m.num_layers(), 30u);
  struct Want {
    std::uint64_t n, bf16, fp8;
  };
  for (const Want& w : {Want{1, 40960, 20480}, Want{4096, 50331648, 25165824}, Want{131072, 1090519040, 545259520}}) {
    const CacheSize b = cache_size(m, workload(w.n, 1, Dtype::bf16)), f = cache_size(m, workload(w.n, 1, Dtype::fp8_e4m3));
    BOOST_TEST(b.total_bytes == w.bf16, w.n << " tokens bf16");
    BOOST_TEST(f.total_bytes == w.fp8, w.n << " tokens fp8");
    for (std::size_t i = 20; i < 30; ++i) BOOST_TEST(b.layers[i].bytes == 0u, "shared layer " << i);
  }
  const auto s = cache_size(m, workload(4096, 1, Dtype::bf16));
  BOOST_TEST(s.layers[4].kind == "full_attention");
  BOOST_TEST(s.layers[4].bytes == 2048u * 4096);
  BOOST_TEST(s.layers[0].kind == "sliding_attention");
  BOOST_TEST(s.layers[0].bytes == 2048u * 512);
  BOOST_TEST(s.layers[24].kind == "shared_kv");
}

// RWKV-7 and xLSTM keep recurrent states no kvplan layer kind holds: each is refused naming the
// model_type and the state, never "unknown model_type" (and never sized with --assume dense).
BOOST_AUTO_TEST_CASE(families34_recurrent_families_are_refused) {
  BOOST_CHECK_EXCEPTION(load_model(test::source_path("tests/data/families34/RWKV__rwkv-7-world-1.5B.json")),
                        UnsupportedArchitecture, test::HasMessage({"rwkv7", "wkv state", "token-shift"}));
  BOOST_CHECK_EXCEPTION(load_model(test::source_path("tests/data/families34/NX-AI__xLSTM-7b.json")),
                        UnsupportedArchitecture, test::HasMessage({"xlstm", "matrix memory"}));
}

// ChatGLM's KV heads come from multi_query_group_num, never num_key_value_heads (a transformers
// re-save of chatglm3-6b writes 32 there beside group_num 2); without multi_query_attention every
// query head has its own K/V; a kv_channels that disagrees with hidden / heads is refused.
// Gemma 4 12B (gemma4_unified_text): 48 layers, layer_types full at every 6th (8 full, 40 sliding).
// Sliding: 8 KV heads x (256 + 256) = 4,096 values a token, window 1,024 (use_bidirectional_attention
// "vision" keeps it); full: attention_k_eq_v -> num_global_key_value_heads 1 x (512 + 512) = 1,024.
// bf16 at N tokens: 8 * 1024*2*N + 40 * 4096*2*min(N, 1024):
//   1: 16,384 + 327,680 = 344,064; 4,096: 67,108,864 + 335,544,320 = 402,653,184;
//   131,072: 2,147,483,648 + 335,544,320 = 2,483,027,968. fp8: half of each.
BOOST_AUTO_TEST_CASE(families34_gemma4_unified_12b) {
  const ModelSpec m = load_model(test::source_path("tests/data/families34/google__gemma-4-12B.json"));
  BOOST_REQUIRE_EQUAL(m.num_layers(), 48u);
  struct Want {
    std::uint64_t n, bf16;
  };
  for (const Want& w : {Want{1, 344064}, Want{4096, 402653184}, Want{131072, 2483027968}}) {
    BOOST_TEST(cache_size(m, workload(w.n, 1, Dtype::bf16)).total_bytes == w.bf16, w.n << " tokens bf16");
    BOOST_TEST(cache_size(m, workload(w.n, 1, Dtype::fp8_e4m3)).total_bytes == w.bf16 / 2, w.n << " tokens fp8");
  }
  const auto s = cache_size(m, workload(4096, 1, Dtype::bf16));
  BOOST_TEST(s.layers[0].kind == "sliding_attention");
  BOOST_TEST(s.layers[5].kind == "full_attention");
  BOOST_TEST(s.layers[5].bytes == 1024u * 2 * 4096);
  BOOST_TEST(s.layers[0].bytes == 4096u * 2 * 1024);
}

// Hy3 with Hunyuan's cross-layer K/V sharing switched on is refused naming the field.
BOOST_AUTO_TEST_CASE(families34_hy_v3_refuses_cla) {
  auto cfg = test::read_json("tests/data/families34/tencent__Hy3.json");
  cfg["use_cla"] = true;
  BOOST_CHECK_EXCEPTION(load_model_from_json(cfg.dump(), "hy3-cla.json"), UnsupportedArchitecture,
                        test::HasMessage({"use_cla"}));
}

BOOST_AUTO_TEST_CASE(families34_chatglm_kv_heads_rule) {
  auto cfg = test::read_json("tests/data/families34/THUDM__chatglm3-6b.json");
  auto resave = cfg;
  resave["num_key_value_heads"] = 32;
  BOOST_TEST(cache_size(load_model_from_json(resave.dump(), "resave.json"), workload(1, 1, Dtype::bf16)).total_bytes ==
             28u * 2 * 256 * 2);
  auto mha = cfg;
  mha["multi_query_attention"] = false;
  BOOST_TEST(cache_size(load_model_from_json(mha.dump(), "mha.json"), workload(1, 1, Dtype::bf16)).total_bytes ==
             28u * 32 * 256 * 2);
  auto odd = cfg;
  odd["kv_channels"] = 64;
  BOOST_CHECK_EXCEPTION(load_model_from_json(odd.dump(), "odd.json"), ConfigError, test::HasMessage({"kv_channels", "128"}));
}

// GGUF of the new families' llama.cpp architectures (qwen2vl, chatglm, xverse and the long tail: each declared in
// its family file, none in gguf_config.cpp), written with the keys convert_hf_to_gguf.py writes
// for them (block_count, embedding_length, attention.head_count, attention.head_count_kv --
// chatglm's is multi_query_group_num -- and attention.key_length/value_length where the model
// has a head width of its own): the same layer kinds and bytes as the config.json.
BOOST_AUTO_TEST_CASE(families34_gguf_architectures_match_config_json) {
  struct Case {
    const char* file;
    const char* arch;
    std::uint32_t layers, hidden, heads, kv, head;
  };
  const Case cases[] = {
      {"Qwen__Qwen2-VL-2B-Instruct.json", "qwen2vl", 28, 1536, 12, 2, 0},
      {"THUDM__glm-4-9b-chat.json", "chatglm", 40, 4096, 32, 2, 128},
      {"xverse__XVERSE-65B.json", "xverse", 80, 8192, 64, 64, 0},
      // The long tail's architecture names, as llama.cpp's src/llama-arch.cpp @00395eb2 spells them.
      {"swiss-ai__Apertus-8B.json", "apertus", 32, 4096, 32, 8, 0},
      {"rednote-hilab__dots.llm1.inst.json", "dots1", 62, 4096, 32, 32, 0},
      {"tencent__Hunyuan-MT-7B.json", "hunyuan-dense", 32, 4096, 32, 8, 128},
      {"inclusionAI__Ling-lite-1.5.json", "bailingmoe", 28, 2048, 16, 4, 0},
      {"darkc0de__4.3test2-seed_oss.json", "seed_oss", 64, 5120, 80, 8, 128},
      {"baidu__ERNIE-4.5-0.3B.json", "ernie4_5", 18, 1024, 16, 2, 128},
      {"baidu__ERNIE-4.5-21B-A3B.json", "ernie4_5-moe", 28, 2560, 20, 4, 0},
  };
  test::TempDir t;
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.file) {
      test::GgufWriter w;
      const std::string a = c.arch;
      w.str("general.architecture", a);
      w.u32(a + ".block_count", c.layers);
      w.u32(a + ".embedding_length", c.hidden);
      w.u32(a + ".attention.head_count", c.heads);
      w.u32(a + ".attention.head_count_kv", c.kv);
      if (c.head) {
        w.u32(a + ".attention.key_length", c.head);
        w.u32(a + ".attention.value_length", c.head);
      }
      w.u32(a + ".vocab_size", 1000);
      w.tensor("token_embd.weight", {c.hidden, 1000}, 8, std::uint64_t{c.hidden} * 1000 / 32 * 34);
      const auto path = t.path / (a + ".gguf");
      w.write(path);
      const ModelSpec g = load_model(path.string());
      const ModelSpec j = load_model(test::source_path(std::string("tests/data/families34/") + c.file));
      check_same_layers(g, j);
      BOOST_TEST(g.num_layers() == c.layers);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
