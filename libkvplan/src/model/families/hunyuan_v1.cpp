// Hunyuan dense and MoE (tencent, model_type hunyuan_v1_dense: Hunyuan-0.5B..7B, Hunyuan-MT;
// hunyuan_v1_moe: Hunyuan-A13B). vLLM serves both with hunyuan_v1.py (HunYuanAttention /
// HunYuanCrossAttention): num_key_value_heads heads of head_dim (attention_head_dim / head_dim,
// else hidden_size / num_attention_heads) on every one of the num_hidden_layers layers. With
// use_cla (Hunyuan-Large's cross-layer attention) only every cla_share_factor-th layer computes
// K/V and the others read it, so such a config is refused, not sized as if every layer kept its
// own; the released dense models and A13B set no CLA.
//
// Weights: not counted (qk-norm, MoE experts with per-layer lists on A13B: no rule proven yet).
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
void map_hunyuan_v1(const LoadCtx& x) {
  if (x.cfg.boolean("use_cla").value_or(false)) reject_unmapped(x, {"use_cla"});
  map_plain_attention(x);
}
}  // namespace

std::vector<Family> hunyuan_v1() {
  return {Family{.name = "hunyuan_v1",
                 .model_types = {"hunyuan_v1_dense", "hunyuan_v1_moe"},
                 // llama.cpp LLM_ARCH_HUNYUAN_DENSE / LLM_ARCH_HUNYUAN_MOE (src/llama-arch.cpp @00395eb2)
                 .gguf = {{.arch = "hunyuan-dense", .model_type = "hunyuan_v1_dense"},
                          {.arch = "hunyuan-moe", .model_type = "hunyuan_v1_moe"}},
                 .map_layers = map_hunyuan_v1,
                 .count_params = [](const ParamCtx& x) {
                   no_weight_rule(x, "Hunyuan v1: not proven against a published count (A13B adds 64 routed experts "
                                     "and a shared one)");
                 }}};
}

}  // namespace kvplan::detail::families
