// Cohere (Command R): plain attention. Cohere 2 (Command R7B): one full layer per
// sliding_window_pattern (default 4); a parallel block with one LayerNorm per layer.
//
// Cohere's weights (transformers modular_cohere.py / modeling_cohere.py), tensor by tensor:
// CohereAttention is LlamaAttention (q_proj, k_proj, v_proj, o_proj, each with a bias when
// attention_bias, default false) plus, when use_qk_norm (default false), q_norm and k_norm:
// CohereLayerNorm weights of shape (num_attention_heads, head_dim) and (num_key_value_heads,
// head_dim); CohereMLP's gate_proj, up_proj, down_proj (no bias); one input_layernorm a layer (the
// attention and MLP run in parallel off it; CohereLayerNorm: a weight, no bias); the final norm (the
// same); embed_tokens, tied to the head unless tie_word_embeddings is false (default true).
#include "kvplan/checked.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using C = WeightComponent;

void count_cohere(const ParamCtx& x) {
  const std::uint64_t h = x.h();
  const bool bias = x.c.boolean("attention_bias").value_or(false);
  const bool qk_norm = x.c.boolean("use_qk_norm").value_or(false);
  const std::string p = "model.layers.*.";
  for (std::size_t l = 0; l < x.n(); ++l) {
    const build::AttnDims a = x.attn(l);
    attention(x.inv, p + "self_attn.", h, x.heads(), a, AttnStyle{.qkv_bias = bias, .o_bias = bias});
    if (qk_norm) {
      x.inv.norm(C::attention, p + "self_attn.q_norm", checked_mul(x.heads(), a.k_dim, "Cohere q_norm"));
      x.inv.norm(C::attention, p + "self_attn.k_norm", checked_mul(a.kv, a.k_dim, "Cohere k_norm"));
    }
    gated_mlp(x.inv, C::mlp_dense, p + "mlp.", h, x.m.dims.intermediate_size);
    x.inv.norm(C::norms, p + "input_layernorm", h);
  }
  x.inv.norm(C::norms, "model.norm", h);
  embeddings(x.inv, x.m);
}

void map_cohere2(const LoadCtx& x) {
  const auto& c = x.cfg;
  const std::uint64_t n = num_layers(c);
  const build::AttnDims a = attention_shape(x);
  std::vector<Slot> slots = layer_types_field(x, n);
  if (slots.empty()) {
    auto p = c.uint_any({"sliding_window_pattern", "_sliding_window_pattern"});
    if (!p) x.note(c.model_type() + ": sliding_window_pattern not set; transformers' default 4 used (3 sliding : 1 full)");
    slots = pattern_slots(n, p.value_or(4));
  }
  add_attention_layers(x, slots, a);
}

}  // namespace

std::vector<Family> cohere() {
  return {Family{.name = "cohere",
                 .model_types = {"cohere"},
                 .map_layers = map_plain_attention,
                 .count_params = count_cohere,
                 .tie_word_embeddings = true},
          Family{.name = "cohere2",
                 .model_types = {"cohere2"},
                 .map_layers = map_cohere2,
                 .count_params = [](const ParamCtx& x) { llama_like(x, {.norms_per_layer = 1}); },
                 .tie_word_embeddings = true,
                 .sliding_window_default = 4096}};
}

}  // namespace kvplan::detail::families
