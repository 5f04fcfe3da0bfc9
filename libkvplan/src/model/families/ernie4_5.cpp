// ERNIE 4.5 (transformers modeling_ernie4_5.py / modeling_ernie4_5_moe.py, model_types ernie4_5 and
// ernie4_5_moe; vLLM ernie45.py (a Llama model) and ernie45_moe.py Ernie4_5_MoeAttention): every
// one of the num_hidden_layers layers is full causal attention with num_key_value_heads heads of
// head_dim. The MoE layers change the MLP only. Tested on the 0.3B dense config and on the
// ERNIE-4.5-21B-A3B MoE config (head_dim null: hidden_size / num_attention_heads) in
// tests/data/families34.
//
// Weights: not counted (no rule proven against a published count).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

std::vector<Family> ernie4_5() {
  return {Family{.name = "ernie4_5",
                 .model_types = {"ernie4_5", "ernie4_5_moe"},
                 .gguf = {{.arch = "ernie4_5", .model_type = "ernie4_5"},
                          {.arch = "ernie4_5-moe", .model_type = "ernie4_5_moe"}},
                 .map_layers = map_plain_attention,
                 .count_params = [](const ParamCtx& x) {
                   no_weight_rule(x, "ERNIE 4.5: not proven against a published count (the MoE releases add "
                                     "routed and shared experts)");
                 }}};
}

}  // namespace kvplan::detail::families
