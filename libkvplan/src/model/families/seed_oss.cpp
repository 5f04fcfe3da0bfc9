// Seed-OSS (transformers modeling_seed_oss.py, model_type seed_oss; vLLM seed_oss.py
// SeedOssAttention): every one of the num_hidden_layers layers is full causal attention with
// num_key_value_heads heads of head_dim (SeedOssConfig defaults: 64 layers, 80 query heads, 8 KV
// heads, head_dim 128). No sliding window.
//
// Weights: not counted (q/k/v biases without an o_proj bias, attention_out_bias; no rule proven).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

std::vector<Family> seed_oss() {
  return {Family{.name = "seed_oss",
                 .model_types = {"seed_oss"},
                 .gguf = {{.arch = "seed_oss", .model_type = "seed_oss"}},
                 .map_layers = map_plain_attention,
                 .count_params = [](const ParamCtx& x) {
                   no_weight_rule(x, "Seed-OSS: q/k/v biases without an o_proj bias, not proven against a published "
                                     "count");
                 }}};
}

}  // namespace kvplan::detail::families
