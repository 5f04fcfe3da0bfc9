// StarCoder2: Llama-style layers with biases and LayerNorms, a uniform sliding window when set.
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

std::vector<Family> starcoder2() {
  return {Family{.name = "starcoder2",
                 .model_types = {"starcoder2"},
                 .gguf = {{.arch = "starcoder2", .model_type = "starcoder2", .reads_window = true}},
                 .map_layers = map_uniform_window,
                 .count_params = [](const ParamCtx& x) { llama_like(x, {.starcoder = true}); },
                 .tie_word_embeddings = true}};
}

}  // namespace kvplan::detail::families
