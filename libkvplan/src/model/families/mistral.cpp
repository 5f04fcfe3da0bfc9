// Mistral, Ministral (8B), Ministral 3 / Mistral 3 text models and Mixtral: Llama-style layers,
// every layer sliding when sliding_window is set (transformers MistralConfig, Ministral3Config),
// or the layer_types list when the config writes one (MinistralConfig).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

std::vector<Family> mistral() {
  return {Family{.name = "mistral",
                 .model_types = {"mistral", "ministral", "ministral3"},
                 .map_layers = map_uniform_window,
                 .count_params = [](const ParamCtx& x) { llama_like(x, {}); }},
          Family{.name = "mixtral",
                 .model_types = {"mixtral"},
                 .map_layers = map_uniform_window,
                 .count_params = [](const ParamCtx& x) { llama_like(x, {.mixtral_experts = true}); }}};
}

}  // namespace kvplan::detail::families
