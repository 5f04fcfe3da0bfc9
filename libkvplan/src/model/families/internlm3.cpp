// InternLM3 (model_type internlm3, remote code modeling_internlm3.py): vLLM serves
// InternLM3ForCausalLM with its Llama implementation (registry.py: "InternLM3ForCausalLM":
// ("llama", "LlamaForCausalLM")), so every one of the num_hidden_layers layers is full causal
// attention with num_key_value_heads heads of head_dim (hidden_size / num_attention_heads when the
// config names none: 4,096 / 32 = 128 on InternLM3-8B). No sliding window; the dynamic NTK
// rope_scaling changes positions, not the cache.
//
// Weights: not counted (qkv_bias / bias switch biases the generic estimate does not read; not
// proven against a published count).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

std::vector<Family> internlm3() {
  return {Family{.name = "internlm3",
                 .model_types = {"internlm3"},
                 .map_layers = map_plain_attention,
                 .count_params = [](const ParamCtx& x) {
                   no_weight_rule(x, "InternLM3: qkv_bias / bias switches, not proven against a published count");
                 }}};
}

}  // namespace kvplan::detail::families
