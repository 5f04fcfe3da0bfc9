// Qwen (the first Qwen, model_type qwen, its own remote code modeling_qwen.py): every layer is plain
// full attention.
//
// Weights, tensor by tensor (modeling_qwen.py of Qwen/Qwen-7B): QWenAttention's c_attn, one fused
// q/k/v Linear of 3 x (kv_channels x num_attention_heads) rows that always has a bias, and c_proj
// (a bias only when no_bias is false; QWenConfig's default is true); QWenMLP's w1 and w2 (each
// intermediate_size / 2 x hidden: the config's intermediate_size counts both gate halves) and
// c_proj (hidden x intermediate_size / 2), biases only when no_bias is false; RMSNorm ln_1 and ln_2
// (a weight each); the final ln_f; wte and lm_head (untied unless tie_word_embeddings, default
// false). Proven against Qwen-7B's checkpoint index (tests/data/weights/README.md).
#include "kvplan/checked.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using C = WeightComponent;
using u64 = std::uint64_t;

void count_qwen(const ParamCtx& x) {
  const u64 h = x.h(), inter = x.m.dims.intermediate_size;
  if (inter == 0) x.c.fail("intermediate_size", "a positive even number (Qwen's MLP is intermediate_size / 2 wide)", nullptr);
  if (inter % 2 != 0)
    x.c.fail_at(x.c.pointer("intermediate_size"), "an even number (Qwen's MLP is intermediate_size / 2 wide)",
                std::to_string(inter));
  const u64 ff = inter / 2;
  const bool bias = !x.c.boolean("no_bias").value_or(true);
  const std::string p = "transformer.h.*.";
  for (std::size_t l = 0; l < x.n(); ++l) {
    const build::AttnDims a = x.attn(l);
    const u64 proj = checked_mul(x.heads(), a.k_dim, "Qwen projection size");
    x.inv.linear(C::attention, p + "attn.c_attn", checked_mul(3, proj, "Qwen c_attn"), h, /*bias=*/true);
    x.inv.linear(C::attention, p + "attn.c_proj", h, proj, bias);
    x.inv.linear(C::mlp_dense, p + "mlp.w1", ff, h, bias);
    x.inv.linear(C::mlp_dense, p + "mlp.w2", ff, h, bias);
    x.inv.linear(C::mlp_dense, p + "mlp.c_proj", h, ff, bias);
    x.inv.norm(C::norms, p + "ln_1", h);
    x.inv.norm(C::norms, p + "ln_2", h);
  }
  x.inv.norm(C::norms, "transformer.ln_f", h);
  embeddings(x.inv, x.m, "transformer.wte.weight");
}

}  // namespace

std::vector<Family> qwen() {
  return {Family{.name = "qwen", .model_types = {"qwen"}, .map_layers = map_plain_attention, .count_params = count_qwen}};
}

}  // namespace kvplan::detail::families
