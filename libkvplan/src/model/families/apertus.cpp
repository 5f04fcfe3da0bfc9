// Apertus (swiss-ai, model_type apertus; transformers modeling_apertus.py, vLLM apertus.py
// ApertusAttention @ e85b9bd3e483d5c25fc3a94c0a07bb858d85baf2): a Llama-shaped decoder with qk_norm
// and a xIELU MLP; every one of the num_hidden_layers layers is full causal attention with
// num_key_value_heads heads of head_dim (hidden_size / num_attention_heads when the config names
// none). No sliding window.
//
// Weights: not counted (xIELU's per-layer activation parameters and an up/down MLP without a gate:
// no rule proven against a published count).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

std::vector<Family> apertus() {
  return {Family{.name = "apertus",
                 .model_types = {"apertus"},
                 // llama.cpp LLM_ARCH_APERTUS (src/llama-arch.cpp @00395eb2)
                 .gguf = {{.arch = "apertus", .model_type = "apertus"}},
                 .map_layers = map_plain_attention,
                 .count_params = [](const ParamCtx& x) {
                   no_weight_rule(x, "Apertus: an ungated xIELU MLP, not proven against a published count");
                 }}};
}

}  // namespace kvplan::detail::families
