// MPT (transformers mpt, modeling_mpt.py): every layer is plain full attention (ALiBi). Weights:
// not counted. MPT's block is not Llama's: Wqkv fused, an ungated up_proj/down_proj MLP of
// expansion_ratio x d_model, LayerNorms (with bias unless no_bias), tied embeddings. No rule is
// proven against a published count yet, so the weights are unknown (--weights, or the
// checkpoint's headers).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

std::vector<Family> mpt() {
  return {Family{.name = "mpt",
                 .model_types = {"mpt"},
                 .map_layers = map_plain_attention,
                 .count_params =
                     [](const ParamCtx& x) {
                       no_weight_rule(x, "MPT: ungated MLP of expansion_ratio x d_model, LayerNorms");
                     }}};
}

}  // namespace kvplan::detail::families
