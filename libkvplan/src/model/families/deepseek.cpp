// DeepSeek-V2/V3/V3.2, Kimi K2 and GLM-5.x (glm_moe_dsa): multi-head latent attention (one latent
// + rope key per token; V3.2 and GLM-5 add the sparse-attention indexer key), MoE with shared
// experts, MTP modules.
#include <algorithm>

#include "kvplan/checked.h"
#include "kvplan/units.h"
#include "model/gguf_meta.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;
using K = WeightKind;

// DeepSeek MHA variants (kv_lora_rank null) cache full per-head K and V.
void map_mla_layers(const LoadCtx& x, bool indexer) {
  const auto& c = x.cfg;
  const u64 n = num_layers(c);
  const u64 heads = attention_heads(c);
  x.m.dims.mla_qk_nope_head_dim = c.require_uint("qk_nope_head_dim");
  const u64 rope = c.require_uint("qk_rope_head_dim");
  x.m.dims.mla_v_head_dim = c.require_uint("v_head_dim");
  x.m.dims.mla_q_lora_rank = c.uint("q_lora_rank").value_or(0);
  x.m.dims.q_head_dim = x.m.dims.mla_qk_nope_head_dim + rope;
  reject_unmapped(x, {"sliding_window"});
  if (!c.text().contains("kv_lora_rank"))
    // Absent is not null: transformers' DeepseekV2/V3Config then use their default (512, MLA);
    // reading it as MHA would be a silent 10x error, so the config must say which it is.
    c.fail("kv_lora_rank", "the MLA latent rank (or null for the MHA variant); transformers' default would be 512",
           nullptr);
  if (!c.has("kv_lora_rank")) {
    const u64 kv = kv_heads(x, heads);
    for (u64 i = 0; i < n; ++i) x.add(i, build::full_attention(kv, x.m.dims.q_head_dim, x.m.dims.mla_v_head_dim));
    return;
  }
  const u64 rank = c.require_uint("kv_lora_rank");
  const u64 index_dim = (indexer || c.has("index_topk")) ? c.require_uint("index_head_dim") : 0;
  for (u64 i = 0; i < n; ++i) x.add(i, build::mla(rank, rope, index_dim));
}
void map_mla(const LoadCtx& x) { map_mla_layers(x, false); }
void map_mla_indexed(const LoadCtx& x) { map_mla_layers(x, true); }

// GLM-5.x (transformers glm_moe_dsa): DeepSeek-V3.2 MLA + DSA indexer, except that a layer whose
// indexer_types entry is "shared" builds no indexer (GlmMoeDsaAttention.__init__) and reuses the
// previous full layer's top-k, so it caches no indexer key. Without indexer_types the list comes
// from index_topk_pattern, else index_topk_freq (default 1: all full) and index_skip_topk_offset
// (default 2), as GlmMoeDsaConfig.__post_init__ derives it.
void map_glm_moe_dsa(const LoadCtx& x) {
  const auto& c = x.cfg;
  map_mla(x);
  const std::size_t n = x.m.layers.size();
  std::vector<std::string> types;
  std::string key = "indexer_types";
  if (auto t = c.string_list("indexer_types")) {
    types = *t;
  } else if (c.has("index_topk_pattern")) {
    key = "index_topk_pattern";
    if (c.text()["index_topk_pattern"].is_string()) {
      const std::string pattern = *c.string(key);  // "FSS...": F full, S shared
      for (char ch : pattern) types.push_back(ch == 'F' ? "full" : ch == 'S' ? "shared" : std::string(1, ch));
    } else {
      types = *c.string_list(key);
    }
  } else {
    const u64 freq = std::max<u64>(c.uint("index_topk_freq", true).value_or(1), 1);
    const u64 offset = c.uint("index_skip_topk_offset", true).value_or(2);
    for (u64 i = 0; i < n; ++i) {
      const u64 d = i + 1 > offset ? i + 1 - offset : 0;
      types.push_back(d % freq == 0 ? "full" : "shared");
    }
  }
  if (types.size() != n)
    c.fail_at(c.pointer(key), "one entry per layer (" + std::to_string(n) + ")", std::to_string(types.size()) + " entries");
  for (std::size_t i = 0; i < n; ++i) {
    const std::string at = slot_pointer(x, key, i);
    if (types[i] == "shared") {
      if (i == 0) c.fail_at(at, "\"full\" (a shared layer reuses the top-k of an earlier full layer)", "\"shared\"");
      if (const auto mla = build::mla_dims(x.m.layers[i].cache()))
        x.replace(i, build::mla(mla->kv_lora_rank, mla->rope_dim, 0));
    } else if (types[i] != "full") {
      c.fail_at(at, "\"full\" or \"shared\"", "\"" + types[i] + "\"");
    }
  }
}

// `layer`: whose indexer decides the weights (GLM-5.x "shared" layers have none); an MTP layer
// (past the config's layers) is shaped like layer 0.
void mla_attention(const ParamCtx& x, const std::string& p, std::size_t layer) {
  const auto& d = x.m.dims;
  const u64 h = x.h(), heads = x.heads();
  const bool bias = x.c.boolean("attention_bias").value_or(false);
  const auto mla = build::mla_dims(x.cache(layer < x.n() ? layer : 0));
  const u64 q_dim = checked_mul(heads, d.q_head_dim);
  if (d.mla_q_lora_rank) {
    x.inv.linear(C::attention, p + "q_a_proj", d.mla_q_lora_rank, h, bias);
    x.inv.norm(C::attention, p + "q_a_layernorm", d.mla_q_lora_rank);
    x.inv.linear(C::attention, p + "q_b_proj", q_dim, d.mla_q_lora_rank);
  } else {
    x.inv.linear(C::attention, p + "q_proj", q_dim, h);
  }
  if (mla) {
    x.inv.linear(C::attention, p + "kv_a_proj_with_mqa", mla->kv_lora_rank + mla->rope_dim, h, bias);
    x.inv.norm(C::attention, p + "kv_a_layernorm", mla->kv_lora_rank);
    x.inv.linear(C::attention, p + "kv_b_proj", heads * (d.mla_qk_nope_head_dim + d.mla_v_head_dim),
                 mla->kv_lora_rank);
    if (mla->index_dim) {
      // DeepSeek-V3.2 sparse-attention indexer (inference/model.py Indexer).
      const u64 ih = x.c.require_uint("index_n_heads"), id = mla->index_dim;
      const u64 q_in = d.mla_q_lora_rank ? d.mla_q_lora_rank : h;
      x.inv.linear(C::other, p + "indexer.wq_b", ih * id, q_in);
      x.inv.linear(C::other, p + "indexer.wk", id, h);
      x.inv.norm(C::other, p + "indexer.k_norm", id, true);
      x.inv.linear(C::other, p + "indexer.weights_proj", ih, h);
    }
  } else {
    const build::AttnDims a = x.attn(0);
    x.inv.linear(C::attention, p + "k_proj", a.kv * a.k_dim, h, bias);
    x.inv.linear(C::attention, p + "v_proj", a.kv * a.v_dim, h, bias);
  }
  x.inv.linear(C::attention, p + "o_proj", h, heads * d.mla_v_head_dim, bias);
}

void deepseek_layer(const ParamCtx& x, u64 i, const std::string& p) {
  const auto& c = x.c;
  const u64 h = x.h();
  mla_attention(x, p + "self_attn.", i);
  const u64 e = x.m.dims.num_experts;
  const u64 first_dense = c.uint("first_k_dense_replace", true).value_or(0);
  const u64 freq = c.uint("moe_layer_freq").value_or(1);
  if (e > 0 && i >= first_dense && i % freq == 0) {
    MoeStyle ms;
    ms.prefix = p + "mlp.";
    ms.router_correction_bias = c.string("topk_method").value_or("") == "noaux_tc";
    ms.shared_i = checked_mul(x.m.dims.moe_intermediate_size, c.uint("n_shared_experts", true).value_or(0));
    ms.shared = "shared_experts.";
    moe_block(x, ms, e, top_k(x), x.m.dims.moe_intermediate_size);
  } else {
    gated_mlp(x.inv, C::mlp_dense, p + "mlp.", h, x.m.dims.intermediate_size);
  }
  x.inv.norm(C::norms, p + "input_layernorm", h);
  x.inv.norm(C::norms, p + "post_attention_layernorm", h);
}

void count_deepseek(const ParamCtx& x) {
  const u64 h = x.h();
  for (std::size_t i = 0; i < x.n(); ++i) deepseek_layer(x, i, "model.layers.*.");
  x.inv.norm(C::norms, "model.norm", h);
  embeddings(x.inv, x.m);
  // Multi-token-prediction modules (stored after the main layers): each a full decoder layer
  // plus enorm/hnorm, eh_proj (h x 2h) and its own copy of the embedding and output head.
  const u64 nextn = x.c.uint("num_nextn_predict_layers", true).value_or(0);
  if (nextn) {
    x.inv.mtp = true;
    for (u64 j = 0; j < nextn; ++j) {
      const std::string p = "model.layers.mtp.";
      deepseek_layer(x, x.n() + j, p);
      x.inv.norm(C::norms, p + "enorm", h);
      x.inv.norm(C::norms, p + "hnorm", h);
      x.inv.linear(C::other, p + "eh_proj", h, 2 * h);
      x.inv.norm(C::norms, p + "shared_head.norm", h);
      x.inv.add(C::embedding, K::embedding, p + "embed_tokens.weight", x.m.dims.vocab_size, h);
      x.inv.linear(C::lm_head, p + "shared_head.head", x.m.dims.vocab_size, h);
    }
    x.inv.mtp = false;
    x.note("deepseek: " + format_count(nextn, "MTP layer") + " counted in mtp (not in total), " +
           (nextn == 1 ? "with" : "each with") + " its stored copy of the embedding and head");
  }
}

// GGUF (llama.cpp's deepseek2): MLA ranks and the rope width. Files converted with MLA absorbed
// carry the per-head dims as key_length_mla / value_length_mla (key_length is then kv_lora_rank +
// rope); older files only key_length / value_length.
void gguf_deepseek2(const GgufMeta& m, nlohmann::json& c) {
  const std::uint64_t rope = m.require("rope.dimension_count");
  c["qk_rope_head_dim"] = rope;
  if (auto r = m.uint("attention.kv_lora_rank")) c["kv_lora_rank"] = *r;
  if (auto r = m.uint("attention.q_lora_rank"); r && *r) c["q_lora_rank"] = *r;
  const auto k_len = m.uint("attention.key_length"), v_len = m.uint("attention.value_length");
  const std::uint64_t k_head = m.uint("attention.key_length_mla").value_or(k_len.value_or(0));
  const std::uint64_t v_head = m.uint("attention.value_length_mla").value_or(v_len.value_or(0));
  if (k_head <= rope) m.bad("attention.key_length", "a per-head K dim above rope.dimension_count");
  c["qk_nope_head_dim"] = k_head - rope;
  c["v_head_dim"] = v_head;
  c.erase("head_dim");
  if (c.contains("num_attention_heads")) c["num_key_value_heads"] = c["num_attention_heads"];
  if (auto v = m.uint("expert_count"); v && *v) c["n_routed_experts"] = *v;
  if (auto v = m.uint("expert_shared_count")) c["n_shared_experts"] = *v;
  if (auto v = m.uint("leading_dense_block_count")) c["first_k_dense_replace"] = *v;
}

}  // namespace

std::vector<Family> deepseek() {
  return {Family{.name = "deepseek",
                 .model_types = {"deepseek_v2", "deepseek_v3", "kimi_k2"},
                 .gguf = {{.arch = "deepseek2", .model_type = "deepseek_v3", .distinct_kv_lengths = true,
                           .translate = gguf_deepseek2}},
                 .map_layers = map_mla,
                 .count_params = count_deepseek},
          Family{.name = "deepseek_v32",
                 .model_types = {"deepseek_v32"},
                 .map_layers = map_mla_indexed,
                 .count_params = count_deepseek},
          // GLM-4.7-Flash (transformers glm4_moe_lite, modeling_glm4_moe_lite.py; vLLM glm4_moe_lite.py,
          // built on DeepseekV2's MLA attention): every one of the num_hidden_layers layers caches one
          // kv_lora_rank latent plus the qk_rope_head_dim rope key per token, as DeepSeek-V2/V3 do
          // (the num_nextn_predict_layers MTP layer is a separate draft model). Weights: not counted
          // (GLM routing and MoE layout, no rule proven against a published count).
          Family{.name = "glm4_moe_lite",
                 .model_types = {"glm4_moe_lite"},
                 .map_layers = map_mla,
                 .count_params =
                     [](const ParamCtx& x) {
                       no_weight_rule(x, "GLM-4.7-Flash: MLA with 64 routed and shared experts, not proven against a "
                                         "published count");
                     }},
          Family{.name = "glm_moe_dsa",
                 .model_types = {"glm_moe_dsa"},
                 .map_layers = map_glm_moe_dsa,
                 .count_params = count_deepseek}};
}

}  // namespace kvplan::detail::families
