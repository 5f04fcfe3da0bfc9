// Qwen (the first Qwen, model_type qwen, its own modeling_qwen.py): every layer is plain full
// attention. Weights: not counted. Its tensors are not Llama's: c_attn (fused q/k/v with a bias),
// c_proj without one, and an MLP w1/w2/c_proj whose width is intermediate_size / 2 (the config's
// intermediate_size counts both gate halves), so the generic estimate would count the MLP twice.
// No rule is proven against a published count yet, so the weights are unknown (--weights, or the
// checkpoint's headers).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

std::vector<Family> qwen() {
  return {Family{.name = "qwen",
                 .model_types = {"qwen"},
                 .map_layers = map_plain_attention,
                 .count_params =
                     [](const ParamCtx& x) {
                       no_weight_rule(x, "Qwen (v1): q/k/v biases, MLP of intermediate_size / 2");
                     }}};
}

}  // namespace kvplan::detail::families
