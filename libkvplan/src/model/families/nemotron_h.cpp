// Nemotron-H: hybrid_override_pattern, one character per layer: M (Mamba-2), * (attention),
// - (MLP) or E (MoE); or, in the transformers-5 format (Nemotron 3 Ultra, Nemotron 3.5), the
// layers_block_type list of the same kinds by name. vLLM keeps its SSM state in float32 unless
// told otherwise.
#include "kvplan/checked.h"
#include "kvplan/units.h"
#include "model/mapping.h"
#include "model/parameters_internal.h"

namespace kvplan::detail::families {

namespace {
using u64 = std::uint64_t;
using C = WeightComponent;
using K = WeightKind;

// The layer kinds, one character per layer. transformers NemotronHConfig reads layers_block_type
// ("mamba" / "linear_attention" = M, "attention" / "full_attention" = *, "mlp" = -, "moe" = E;
// remap_legacy_layer_types maps the older names) before hybrid_override_pattern, and takes the
// layer count from the list; a num_hidden_layers that disagrees with it is refused here rather
// than guessed. Empty when the config has neither field.
std::string block_pattern(const ConfigView& c) {
  if (auto list = c.string_list("layers_block_type")) {
    if (list->empty() || list->size() > kMaxLayers)
      c.fail_at(c.pointer("layers_block_type"), "one layer kind per layer (1 to " + std::to_string(kMaxLayers) + ")",
                std::to_string(list->size()) + " entries");
    std::string p;
    for (std::size_t i = 0; i < list->size(); ++i) {
      const std::string& t = (*list)[i];
      if (t == "mamba" || t == "linear_attention") p += 'M';
      else if (t == "attention" || t == "full_attention") p += '*';
      else if (t == "mlp") p += '-';
      else if (t == "moe") p += 'E';
      else
        c.fail_at(c.pointer("layers_block_type") + "/" + std::to_string(i),
                  "mamba, attention, mlp or moe (or linear_attention, full_attention)", "\"" + t + "\"");
    }
    if (auto n = c.uint("num_hidden_layers"); n && *n != p.size())
      c.fail_at(c.pointer("num_hidden_layers"),
                "the length of layers_block_type (" + std::to_string(p.size()) + ")", std::to_string(*n));
    return p;
  }
  if (auto p = c.string("hybrid_override_pattern")) {
    const u64 n = num_layers(c);
    if (p->size() != n)
      c.fail_at(c.pointer("hybrid_override_pattern"), "one character per layer (" + std::to_string(n) + ")",
                std::to_string(p->size()) + " characters");
    return *p;
  }
  return {};
}

void map_nemotron_h(const LoadCtx& x) {
  const auto& c = x.cfg;
  const std::string pat = block_pattern(c);
  if (pat.empty())
    c.fail("hybrid_override_pattern",
           "a string of M, *, - and E (one per layer), or a layers_block_type list", nullptr);
  const auto* pattern = &pat;
  const u64 n = pat.size();
  const build::AttnDims a = attention_shape(x);
  const auto m = mamba2_from(x, "mamba_num_heads", "mamba_head_dim", "n_groups", "ssm_state_size", "conv_kernel");
  reject_unmapped(x, {"sliding_window"});
  for (u64 i = 0; i < n; ++i) {
    switch ((*pattern)[i]) {
      case 'M': x.add(i, m); break;
      case '*': x.add(i, build::full_attention(a.kv, a.k_dim, a.v_dim)); break;
      case '-':
      case 'E': x.add(i, build::none()); break;
      default:
        c.fail_at(c.pointer("hybrid_override_pattern"), "only M (Mamba-2), * (attention), - (MLP) or E (MoE)",
                  std::string("'") + (*pattern)[i] + "' at layer " + std::to_string(i));
    }
  }
}

// An 'E' layer (transformers NemotronHMoE, vLLM nemotron_h.py NemotronHMoE): a sigmoid router
// (gate.weight E x h plus e_score_correction_bias), E routed two-matrix relu2 experts (up_proj,
// down_proj of moe_intermediate_size), one shared expert of moe_shared_expert_intermediate_size x
// n_shared_experts, and with moe_latent_size (Nemotron 3 Super) the experts work in a latent width
// reached through fc1_latent_proj / fc2_latent_proj.
void moe_layer(const ParamCtx& x, const std::string& p, bool mlp_bias) {
  const auto& c = x.c;
  const u64 h = x.h();
  const u64 experts = c.uint("n_routed_experts").value_or(0);
  if (experts == 0) c.fail("n_routed_experts", "a positive number of routed experts (the pattern has E layers)", nullptr);
  const u64 k = top_k(x);
  const auto expert_i = c.uint("moe_intermediate_size");
  if (!expert_i || *expert_i == 0) c.fail("moe_intermediate_size", "a positive expert width (the pattern has E layers)", nullptr);
  const u64 latent = c.uint("moe_latent_size").value_or(0);
  const u64 in = latent ? latent : h;
  x.inv.linear(C::moe_router, p + "gate", experts, h);
  x.inv.vec(C::moe_router, p + "gate.e_score_correction_bias", experts);
  x.inv.linear(C::moe_routed, p + "experts.*.up_proj", *expert_i, in, mlp_bias, experts, k);
  x.inv.linear(C::moe_routed, p + "experts.*.down_proj", in, *expert_i, mlp_bias, experts, k);
  const u64 shared = checked_mul(c.uint("moe_shared_expert_intermediate_size").value_or(0),
                                 c.uint("n_shared_experts").value_or(1), "shared expert width");
  if (shared) plain_mlp(x.inv, C::moe_shared, p + "shared_experts.", h, shared, mlp_bias, "up_proj", "down_proj");
  if (latent) {
    x.inv.linear(C::other, p + "fc1_latent_proj", latent, h, mlp_bias);
    x.inv.linear(C::other, p + "fc2_latent_proj", h, latent, mlp_bias);
  }
}

void count_nemotron_h(const ParamCtx& x) {
  const auto& c = x.c;
  const u64 h = x.h();
  const std::string pattern = block_pattern(c);
  const bool proj_bias = c.boolean("use_bias").value_or(false);
  const bool conv_bias = c.boolean("use_conv_bias").value_or(true);
  const bool mlp_bias = c.boolean("mlp_bias").value_or(false);
  AttnStyle as;
  as.qkv_bias = as.o_bias = c.boolean("attention_bias").value_or(false);
  for (std::size_t i = 0; i < x.n(); ++i) {
    const std::string p = "backbone.layers.*.";
    x.inv.norm(C::norms, p + "norm", h);
    const char kind = i < pattern.size() ? pattern[i] : '?';
    if (const auto mb = build::mamba2_dims(x.cache(i))) {
      mamba2_mixer(x, p + "mixer.", *mb, proj_bias, conv_bias);
    } else if (x.is_attention(i)) {
      attention(x.inv, p + "mixer.", h, x.heads(), x.attn(i), as);
    } else if (kind == '-') {
      plain_mlp(x.inv, C::mlp_dense, p + "mixer.", h, x.m.dims.intermediate_size, mlp_bias, "up_proj", "down_proj");
    } else if (kind == 'E') {
      moe_layer(x, p + "mixer.", mlp_bias);
    } else {
      throw UnsupportedArchitecture::field(c.source(), x.m.model_type,
                                           c.pointer(c.has("layers_block_type") ? "layers_block_type" : "hybrid_override_pattern"),
                                           "kvplan has no parameter rule for layer kind '" + std::string(1, kind) + "'");
    }
  }
  x.inv.norm(C::norms, "backbone.norm_f", h);
  embeddings(x.inv, x.m, "backbone.embeddings.weight");
  if (auto mtp = c.uint("num_nextn_predict_layers", true); mtp && *mtp)
    x.note("nemotron_h: the " + format_count(*mtp, "MTP layer") + " (mtp_layers_block_type)" + (*mtp == 1 ? " is" : " are") +
           " not counted");
}

}  // namespace

std::vector<Family> nemotron_h() {
  return {Family{.name = "nemotron_h",
                 .model_types = {"nemotron_h"},
                 .map_layers = map_nemotron_h,
                 .count_params = count_nemotron_h,
                 .vllm_ssm_state_dtype = Dtype::fp32}};
}

}  // namespace kvplan::detail::families
