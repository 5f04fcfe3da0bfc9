// Ling / Ring (inclusionAI, model_type bailing_moe; vLLM bailing_moe.py BailingAttention @
// 3a04cf8f14c971435137c3ec572a7803c663673d): every one of the num_hidden_layers layers is full
// causal attention with num_key_value_heads heads of head_dim (config.head_dim, else hidden_size /
// num_attention_heads); the MoE changes only the MLP. The num_nextn_predict_layers MTP layer of
// Ling 2.0 is a separate draft model, outside num_hidden_layers. The linear-attention releases
// (Ring-linear, model_type bailing_moe_linear) are another family, not served here.
//
// Weights: not counted (routed and shared experts, first_k_dense_replace dense layers: no rule
// proven yet).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

std::vector<Family> bailing_moe() {
  return {Family{.name = "bailing_moe",
                 .model_types = {"bailing_moe"},
                 // llama.cpp LLM_ARCH_BAILINGMOE (src/llama-arch.cpp @00395eb2); Ling 2.0's bailingmoe2 is
                 // not read (no config of it tested here)
                 .gguf = {{.arch = "bailingmoe", .model_type = "bailing_moe"}},
                 .map_layers = map_plain_attention,
                 .count_params = [](const ParamCtx& x) {
                   no_weight_rule(x, "Ling / Ring (bailing_moe): routed and shared experts, not proven against a "
                                     "published count");
                 }}};
}

}  // namespace kvplan::detail::families
