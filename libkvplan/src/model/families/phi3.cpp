// Phi-3 (fused qkv_proj and gate_up_proj) and Phi-3.5-MoE: a uniform sliding window when set.
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

std::vector<Family> phi3() {
  return {Family{.name = "phi3",
                 .model_types = {"phi3"},
                 .map_layers = map_uniform_window,
                 .count_params = [](const ParamCtx& x) { llama_like(x, {.fused_projections = true}); }},
          Family{.name = "phimoe", .model_types = {"phimoe"}, .map_layers = map_uniform_window}};
}

}  // namespace kvplan::detail::families
