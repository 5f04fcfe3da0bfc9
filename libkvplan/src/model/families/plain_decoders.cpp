// Decoders whose layers are all plain full attention and whose tensors are Llama's, renamed:
// q/k/v/o (biases as attention_bias), a gated MLP of intermediate_size (biases as mlp_bias), two
// RMSNorm weights a layer, a final norm, embedding + lm_head. granite (modeling_granite.py),
// exaone (EXAONE 3.x remote code: q/k/v/out_proj, c_fc_0/c_fc_1/c_proj, ln_1/ln_2 RMSNorm),
// baichuan (W_pack is q/k/v fused, no bias; Baichuan 2's NormHead is a v x h matrix) and
// internlm2 (wqkv fused, w1/w2/w3) count as the generic decoder estimate, said in a note. exaone is
// proven against a published count (test exaone_counts_every_tensor); the others are not yet. InternLM2's biases follow its own `bias` field (on wqkv
// and wo), which the estimate does not read: with `bias` true the weights are unknown.
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

std::vector<Family> plain_decoders() {
  return {Family{.name = "plain attention",
                 .model_types = {"granite", "exaone", "baichuan"},
                 .gguf = {{.arch = "granite", .model_type = "granite"}},
                 .map_layers = map_plain_attention},
          Family{.name = "internlm2",
                 .model_types = {"internlm2"},
                 .map_layers = map_plain_attention,
                 .count_params = [](const ParamCtx& x) {
                   if (x.c.boolean("bias").value_or(false))
                     no_weight_rule(x, "InternLM2 with bias true: wqkv and wo carry biases the estimate does not read");
                   else
                     generic_decoder(x);
                 }}};
}

}  // namespace kvplan::detail::families
