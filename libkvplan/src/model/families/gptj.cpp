// GPT-J (transformers gptj, modeling_gptj.py): every layer is plain full attention with one KV head
// per query head.
//
// Weights, tensor by tensor: transformer.wte (vocab_size x n_embd); per block (GPTJBlock, attention
// and MLP in parallel off one LayerNorm) ln_1 (weight and bias), GPTJAttention's q_proj, k_proj,
// v_proj, out_proj (n_embd x n_embd each, no bias), GPTJMLP's fc_in (n_inner x n_embd) and fc_out
// (n_embd x n_inner), both with a bias, n_inner defaulting to 4 x n_embd; transformer.ln_f (weight
// and bias); lm_head with a bias (vocab_size), untied unless tie_word_embeddings (GPTJConfig
// default false). The attention's `bias` / `masked_bias` are non-persistent buffers, not weights.
#include "kvplan/checked.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;

void count_gptj(const ParamCtx& x) {
  const u64 h = x.h();
  u64 inner = x.m.dims.intermediate_size;  // n_inner
  if (inner == 0) {
    inner = checked_mul(4, h, "GPT-J n_inner");
    x.note("gptj: n_inner not set; transformers' GPTJ default 4 x n_embd = " + std::to_string(inner) + " used");
  }
  const std::string p = "transformer.h.*.";
  for (std::size_t l = 0; l < x.n(); ++l) {
    const build::AttnDims a = x.attn(l);
    x.inv.norm(C::norms, p + "ln_1", h, true);
    x.inv.linear(C::attention, p + "attn.q_proj", checked_mul(x.heads(), a.k_dim, "GPT-J q_proj"), h);
    x.inv.linear(C::attention, p + "attn.k_proj", checked_mul(a.kv, a.k_dim, "GPT-J k_proj"), h);
    x.inv.linear(C::attention, p + "attn.v_proj", checked_mul(a.kv, a.v_dim, "GPT-J v_proj"), h);
    x.inv.linear(C::attention, p + "attn.out_proj", h, checked_mul(x.heads(), a.v_dim, "GPT-J out_proj"));
    plain_mlp(x.inv, C::mlp_dense, p + "mlp.", h, inner, true, "fc_in", "fc_out");
  }
  x.inv.norm(C::norms, "transformer.ln_f", h, true);
  embeddings(x.inv, x.m, "transformer.wte.weight", "lm_head", true);
}

}  // namespace

std::vector<Family> gptj() {
  return {Family{.name = "gptj",
                 .model_types = {"gptj"},
                 .map_layers = map_plain_attention,
                 .count_params = count_gptj,
                 .kv_heads = [](const LoadCtx&, std::uint64_t heads) { return heads; }}};
}

}  // namespace kvplan::detail::families
