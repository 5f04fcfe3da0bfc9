// OPT (transformers opt, modeling_opt.py): every layer is plain full attention with one KV head per
// query head.
//
// Weights, tensor by tensor: model.decoder.embed_tokens (vocab_size x word_embed_proj_dim);
// embed_positions, an OPTLearnedPositionalEmbedding of (max_position_embeddings + 2) x hidden_size
// (its offset of 2); project_out (word_embed_proj_dim x hidden) and project_in (hidden x
// word_embed_proj_dim), no bias, only when word_embed_proj_dim differs from hidden_size (OPT-350M);
// per OPTDecoderLayer: q_proj, k_proj, v_proj, out_proj (hidden x hidden) and fc1 (ffn_dim x hidden),
// fc2 (hidden x ffn_dim), each with a bias when enable_bias (default true), and
// self_attn_layer_norm and final_layer_norm (nn.LayerNorm: weight and bias when
// layer_norm_elementwise_affine, default true); the decoder's final_layer_norm only when
// do_layer_norm_before and not _remove_final_layer_norm; lm_head (vocab_size x word_embed_proj_dim,
// no bias), tied to embed_tokens unless tie_word_embeddings is false (default true).
#include "kvplan/checked.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;

void count_opt(const ParamCtx& x) {
  const auto& c = x.c;
  const u64 h = x.h();
  const auto ffn = c.uint("ffn_dim");
  if (!ffn) c.fail("ffn_dim", "the MLP width of an OPT model", nullptr);
  const u64 proj = c.uint("word_embed_proj_dim").value_or(h);  // OPTConfig: None means hidden_size
  const u64 positions = c.uint("max_position_embeddings").value_or(2048);
  if (!c.uint("max_position_embeddings"))
    x.note("opt: max_position_embeddings not set; transformers' OPTConfig default 2048 used");
  const bool bias = c.boolean("enable_bias").value_or(true);
  const bool affine = c.boolean("layer_norm_elementwise_affine").value_or(true);
  const bool final_norm =
      c.boolean("do_layer_norm_before").value_or(true) && !c.boolean("_remove_final_layer_norm").value_or(false);

  const std::string d = "model.decoder.";
  x.inv.embedding(d + "embed_tokens.weight", x.m.dims.vocab_size, proj, x.m.dims.tie_word_embeddings);
  x.inv.add(C::embedding, WeightKind::embedding, d + "embed_positions.weight", checked_add(positions, 2, "OPT positions"), h);
  if (proj != h) {
    x.inv.linear(C::other, d + "project_out", proj, h);
    x.inv.linear(C::other, d + "project_in", h, proj);
  }
  const std::string p = d + "layers.*.";
  for (std::size_t l = 0; l < x.n(); ++l) {
    const build::AttnDims a = x.attn(l);
    x.inv.linear(C::attention, p + "self_attn.q_proj", checked_mul(x.heads(), a.k_dim, "OPT q_proj"), h, bias);
    x.inv.linear(C::attention, p + "self_attn.k_proj", checked_mul(a.kv, a.k_dim, "OPT k_proj"), h, bias);
    x.inv.linear(C::attention, p + "self_attn.v_proj", checked_mul(a.kv, a.v_dim, "OPT v_proj"), h, bias);
    x.inv.linear(C::attention, p + "self_attn.out_proj", h, checked_mul(x.heads(), a.v_dim, "OPT out_proj"), bias);
    plain_mlp(x.inv, C::mlp_dense, p, h, *ffn, bias, "fc1", "fc2");
    if (affine) {
      x.inv.norm(C::norms, p + "self_attn_layer_norm", h, true);
      x.inv.norm(C::norms, p + "final_layer_norm", h, true);
    }
  }
  if (final_norm && affine) x.inv.norm(C::norms, d + "final_layer_norm", h, true);
  if (!x.m.dims.tie_word_embeddings) x.inv.linear(C::lm_head, "lm_head", x.m.dims.vocab_size, proj);
}

}  // namespace

std::vector<Family> opt() {
  return {Family{.name = "opt",
                 .model_types = {"opt"},
                 .map_layers = map_plain_attention,
                 .count_params = count_opt,
                 .tie_word_embeddings = true,
                 .kv_heads = [](const LoadCtx&, std::uint64_t heads) { return heads; }}};
}

}  // namespace kvplan::detail::families
