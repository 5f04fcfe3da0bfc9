// dots.llm1 (rednote-hilab, model_type dots1; transformers modeling_dots1.py, vLLM dots1.py
// Dots1Attention): every one of the num_hidden_layers layers is full causal attention with
// num_key_value_heads heads of head_dim (hidden_size / num_attention_heads when the config names
// none: 4,096 / 32 = 128); the DeepSeek-V3-style MoE changes only the MLP.
//
// Weights: not counted (128 routed experts, 2 shared, first_k_dense_replace dense layers: no rule
// proven yet).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

std::vector<Family> dots1() {
  return {Family{.name = "dots1",
                 .model_types = {"dots1"},
                 // llama.cpp LLM_ARCH_DOTS1 (src/llama-arch.cpp @00395eb2)
                 .gguf = {{.arch = "dots1", .model_type = "dots1"}},
                 .map_layers = map_plain_attention,
                 .count_params = [](const ParamCtx& x) {
                   no_weight_rule(x, "dots.llm1: routed and shared experts, not proven against a published count");
                 }}};
}

}  // namespace kvplan::detail::families
