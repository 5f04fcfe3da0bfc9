// Falcon (RW): the new decoder architecture reads num_kv_heads, the old one multi_query;
// fused query_key_value, parallel attention/MLP, LayerNorms with bias.
#include "kvplan/checked.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;
using K = WeightKind;

u64 kv_falcon(const LoadCtx& x, u64 heads, bool new_arch_default) {
  const auto& c = x.cfg;
  if (c.boolean("new_decoder_architecture").value_or(new_arch_default)) return c.uint_any({"num_kv_heads", "n_head_kv"}).value_or(heads);
  const u64 kv = c.boolean("multi_query").value_or(true) ? 1 : heads;
  if (c.has("num_kv_heads") && *c.uint("num_kv_heads") != kv)
    x.note("falcon: num_kv_heads is ignored because new_decoder_architecture is false; "
           "multi_query decides (" + std::to_string(kv) + " KV head" + (kv == 1 ? "" : "s") + ")");
  return kv;
}
u64 kv_falcon_old(const LoadCtx& x, u64 heads) { return kv_falcon(x, heads, false); }
u64 kv_refined_web(const LoadCtx& x, u64 heads) { return kv_falcon(x, heads, true); }

// Falcon (RW): fused query_key_value, parallel attention/MLP, LayerNorms with bias.
void count_falcon(const ParamCtx& x) {
  const auto& c = x.c;
  const u64 h = x.h();
  const bool bias = c.boolean("bias").value_or(false);
  const bool new_arch = c.boolean("new_decoder_architecture").value_or(false);
  const bool parallel = c.boolean("parallel_attn").value_or(true);
  const u64 ffn = c.uint("ffn_hidden_size").value_or(4 * h);
  const u64 heads = x.heads();
  for (std::size_t i = 0; i < x.n(); ++i) {
    const build::AttnDims a = x.attn(i);
    const std::string p = "transformer.h.*.";
    x.inv.linear(C::attention, p + "self_attention.query_key_value", (heads + 2 * a.kv) * a.k_dim, h, bias);
    x.inv.linear(C::attention, p + "self_attention.dense", h, heads * a.k_dim, bias);
    plain_mlp(x.inv, C::mlp_dense, p + "mlp.", h, ffn, bias, "dense_h_to_4h", "dense_4h_to_h");
    if (new_arch) {
      const u64 lns = c.uint("num_ln_in_parallel_attn").value_or(2);
      if (lns == 2) {
        x.inv.norm(C::norms, p + "ln_attn", h, true);
        x.inv.norm(C::norms, p + "ln_mlp", h, true);
      } else {
        x.inv.norm(C::norms, p + "input_layernorm", h, true);
      }
    } else {
      x.inv.norm(C::norms, p + "input_layernorm", h, true);
      if (!parallel) x.inv.norm(C::norms, p + "post_attention_layernorm", h, true);
    }
  }
  x.inv.norm(C::norms, "transformer.ln_f", h, true);
  embeddings(x.inv, x.m, "transformer.word_embeddings.weight");
}

}  // namespace

std::vector<Family> falcon() {
  return {Family{.name = "falcon",
                 .model_types = {"falcon", "RefinedWebModel"},
                 .map_layers = map_plain_attention,
                 .count_params = count_falcon,
                 .tie_word_embeddings = true,
                 .kv_heads = kv_falcon_old},
          Family{.name = "RefinedWeb",
                 .model_types = {"RefinedWeb"},
                 .map_layers = map_plain_attention,
                 .count_params = count_falcon,
                 .tie_word_embeddings = true,
                 .kv_heads = kv_refined_web}};
}

}  // namespace kvplan::detail::families
