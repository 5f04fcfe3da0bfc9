// GPT-2 and GPT-BigCode (SantaCoder, StarCoder 1): learned position embeddings, LayerNorms with
// bias; GPT-2 has one KV head per query head, GPT-BigCode one shared KV head when multi_query.
#include "kvplan/checked.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;
using K = WeightKind;

u64 kv_multi_query(const LoadCtx& x, u64 heads) { return x.cfg.boolean("multi_query").value_or(true) ? 1 : heads; }

// GPT-2 and GPT-BigCode: learned position embeddings, LayerNorms with bias, Conv1D/Linear with bias.
void count_gpt2(const ParamCtx& x) {
  const u64 h = x.h();
  const u64 inner = x.m.dims.intermediate_size ? x.m.dims.intermediate_size : 4 * h;
  const u64 positions = x.c.require_uint_any({"n_positions", "max_position_embeddings"});
  for (std::size_t i = 0; i < x.n(); ++i) {
    const build::AttnDims a = x.attn(i);
    const std::string p = "transformer.h.*.";
    x.inv.norm(C::norms, p + "ln_1", h, true);
    x.inv.linear(C::attention, p + "attn.c_attn", h + 2 * a.kv * a.k_dim, h, true);
    x.inv.linear(C::attention, p + "attn.c_proj", h, h, true);
    x.inv.norm(C::norms, p + "ln_2", h, true);
    plain_mlp(x.inv, C::mlp_dense, p + "mlp.", h, inner, true, "c_fc", "c_proj");
  }
  x.inv.norm(C::norms, "transformer.ln_f", h, true);
  x.inv.embedding("transformer.wpe.weight", positions, h, false);
  embeddings(x.inv, x.m, "transformer.wte.weight");
}

}  // namespace

std::vector<Family> gpt2() {
  return {Family{.name = "gpt2",
                 .model_types = {"gpt2"},
                 .map_layers = map_plain_attention,
                 .count_params = count_gpt2,
                 .tie_word_embeddings = true,
                 .kv_heads = kv_heads_all},
          Family{.name = "gpt_bigcode",
                 .model_types = {"gpt_bigcode"},
                 .map_layers = map_plain_attention,
                 .count_params = count_gpt2,
                 .tie_word_embeddings = true,
                 .kv_heads = kv_multi_query}};
}

}  // namespace kvplan::detail::families
