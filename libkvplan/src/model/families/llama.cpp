// Llama (1/2/3): plain attention on every layer (transformers LlamaConfig has no window field).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

std::vector<Family> llama() {
  return {Family{.name = "llama",
                 .model_types = {"llama"},
                 .gguf = {{.arch = "llama", .model_type = "llama"}},
                 .map_layers = map_plain_attention,
                 .count_params = [](const ParamCtx& x) { llama_like(x, {}); }}};
}

}  // namespace kvplan::detail::families
