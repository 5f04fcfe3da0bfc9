// Step-3 (stepfun-ai/step3: a step3_vl wrapper whose text_config is model_type step3_text; vLLM
// step3_text.py, the checkpoint's own modeling_step3.py). Every one of the num_hidden_layers layers
// is full causal attention ("multi-matrix factorization attention"): qkv_proj emits a low-rank
// query of share_q_dim, which inter_norm and wq expand to num_attention_heads x head_dim, plus ONE
// key and ONE value head of head_dim. So the cache is plain attention with num_attention_groups
// KV heads (vLLM's Step3TextAttention requires exactly 1 and its decoder layer passes 1) of
// head_dim (256). No sliding window.
//
// Weights: not counted. Beside the text model (moe_layers_enum MoE layers with a shared expert)
// the checkpoint holds a 63-layer vision encoder and two downsampling convolutions; no count of
// either is proven against a published figure, so the weights are unknown (--weights, or the
// checkpoint's headers).
#include "kvplan/error.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {

// num_attention_groups is Step's KV head count (Step3TextConfig default 1); num_key_value_heads is
// not a Step-3 field.
std::uint64_t step3_kv_heads(const LoadCtx& x, std::uint64_t) {
  const auto& c = x.cfg;
  if (const auto g = c.uint("num_attention_groups")) return *g;
  x.note(c.model_type() + ": num_attention_groups not set; Step3TextConfig's default 1 used (one KV head)");
  return 1;
}

}  // namespace

std::vector<Family> step3() {
  return {Family{.name = "step3",
                 .model_types = {"step3_text"},
                 .map_layers = map_plain_attention,
                 .count_params =
                     [](const ParamCtx& x) {
                       no_weight_rule(x, "Step-3: low-rank query attention, moe_layers_enum MoE layers with a "
                                         "shared expert, and a vision encoder, none proven against a published count");
                     },
                 .kv_heads = step3_kv_heads}};
}

}  // namespace kvplan::detail::families
