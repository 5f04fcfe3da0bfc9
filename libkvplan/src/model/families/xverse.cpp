// XVERSE (remote code modeling_xverse.py, model_type xverse; vLLM xverse.py, a Llama-shaped
// decoder): every layer is full causal attention. The dense releases (7B/13B/65B) name no KV
// heads (one per query head, XverseConfig's default); XVERSE-MoE-A36B sets num_key_value_heads.
//
// Weights: not counted (the MoE release's experts and shared experts have no proven rule; the
// dense ones are not proven against a published count either).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

std::vector<Family> xverse() {
  return {Family{.name = "xverse",
                 .model_types = {"xverse"},
                 .gguf = {{.arch = "xverse", .model_type = "xverse"}},
                 .map_layers = map_plain_attention,
                 .count_params = [](const ParamCtx& x) {
                   no_weight_rule(x, "XVERSE: not proven against a published count (MoE releases add routed and "
                                     "shared experts)");
                 }}};
}

}  // namespace kvplan::detail::families
