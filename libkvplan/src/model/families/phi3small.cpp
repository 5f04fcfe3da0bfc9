// Phi-3-small (remote code modeling_phi3_small.py, model_type phi3small; vLLM phi3_small.py):
// every layer caches K and V of every token. The layers that are not dense
// (dense_attention_every_n_layers) run block-sparse attention (blocksparse_block_size,
// blocksparse_num_local_blocks, blocksparse_vert_stride) over the same full cache: the sparsity
// picks which cached blocks a query reads, it drops none (vLLM gives those layers an Attention
// with blocksparse_params and the same full KV cache as the dense ones). KV heads
// num_key_value_heads, head width hidden_size / num_attention_heads (Phi3SmallSelfAttention).
//
// Weights: not counted (gegelu MLP padded to 256, mup scaling; no rule proven yet).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

std::vector<Family> phi3small() {
  return {Family{.name = "phi3small",
                 .model_types = {"phi3small"},
                 .map_layers = map_plain_attention,
                 .count_params = [](const ParamCtx& x) {
                   no_weight_rule(x, "Phi-3-small: fused query_key_value and a gegelu MLP padded to 256, not proven "
                                     "against a published count");
                 }}};
}

}  // namespace kvplan::detail::families
