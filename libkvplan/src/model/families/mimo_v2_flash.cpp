// MiMo-V2-Flash (vLLM mimo_v2_flash.py MiMoV2FlashDecoderLayer): hybrid_layer_pattern[i] == 1 is
// sliding-window attention with the swa_* heads and dims, 0 full attention; K and V widths differ
// (head_dim / v_head_dim). moe_layer_freq[i] picks a routed MoE or a dense MLP.
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;

void map_mimo_v2_flash(const LoadCtx& x) {
  const auto& c = x.cfg;
  const u64 n = num_layers(c);
  auto pattern = c.uint_list("hybrid_layer_pattern");
  if (!pattern) c.fail("hybrid_layer_pattern", "a list of 0 (full) / 1 (sliding window) per layer", nullptr);
  if (pattern->size() != n)
    c.fail_at(c.pointer("hybrid_layer_pattern"), "one entry per layer (" + std::to_string(n) + ")",
              std::to_string(pattern->size()) + " entries");
  const u64 heads = attention_heads(c);
  const u64 kv = c.require_uint("num_key_value_heads"), k = c.require_uint("head_dim");
  const u64 v = c.uint("v_head_dim").value_or(k);
  const u64 swa_kv = c.require_uint("swa_num_key_value_heads"), swa_k = c.require_uint("swa_head_dim");
  const u64 swa_v = c.uint("swa_v_head_dim").value_or(swa_k);
  const u64 window = c.require_uint("sliding_window_size");
  if (heads % kv != 0)
    c.fail_at(c.pointer("num_key_value_heads"), "a KV head count that divides num_attention_heads", std::to_string(kv));
  x.m.dims.q_head_dim = k;
  for (u64 i = 0; i < n; ++i) {
    if ((*pattern)[i] == 0) x.add(i, build::full_attention(kv, k, v));
    else if ((*pattern)[i] == 1) x.add(i, build::sliding_attention(swa_kv, swa_k, swa_v, window));
    else c.fail_at(slot_pointer(x, "hybrid_layer_pattern", i), "0 or 1", std::to_string((*pattern)[i]));
  }
}

// Per-type attention (sliding layers with their own heads and a per-head sink bias), K and V of
// different widths; a routed MoE (sigmoid router + correction bias, no shared expert) where
// moe_layer_freq[i] is set, else a dense SwiGLU MLP.
void count_mimo_v2_flash(const ParamCtx& x) {
  const auto& c = x.c;
  const u64 h = x.h();
  const auto freq = c.uint_list("moe_layer_freq");
  const bool swa_sink = c.boolean("add_swa_attention_sink_bias").value_or(false);
  const bool full_sink = c.boolean("add_full_attention_sink_bias").value_or(false);
  for (std::size_t i = 0; i < x.n(); ++i) {
    const std::string p = "model.layers.*.";
    const bool swa = build::is_sliding(x.cache(i));
    const u64 heads = swa ? c.require_uint("swa_num_attention_heads") : x.heads();
    AttnStyle as;
    as.qkv_bias = c.boolean("attention_bias").value_or(false);
    as.o_bias = false;
    as.sinks = swa ? swa_sink : full_sink;
    attention(x.inv, p + "self_attn.", h, heads, x.attn(i), as);
    if (freq && i < freq->size() && (*freq)[i]) {
      MoeStyle ms;
      ms.prefix = p + "mlp.";
      ms.router_correction_bias = c.string("topk_method").value_or("") == "noaux_tc";
      moe_block(x, ms, x.m.dims.num_experts, top_k(x), x.m.dims.moe_intermediate_size);
    } else {
      gated_mlp(x.inv, C::mlp_dense, p + "mlp.", h, x.m.dims.intermediate_size);
    }
    x.inv.norm(C::norms, p + "input_layernorm", h);
    x.inv.norm(C::norms, p + "post_attention_layernorm", h);
  }
  x.inv.norm(C::norms, "model.norm", h);
  embeddings(x.inv, x.m);
  x.note("mimo_v2_flash: the MTP layers are not in the config's layers; not counted");
}

}  // namespace

std::vector<Family> mimo_v2_flash() {
  return {Family{.name = "mimo_v2_flash",
                 .model_types = {"mimo_v2_flash"},
                 .map_layers = map_mimo_v2_flash,
                 .count_params = count_mimo_v2_flash}};
}

}  // namespace kvplan::detail::families
