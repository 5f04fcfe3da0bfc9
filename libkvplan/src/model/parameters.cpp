// Parameter counts from a parsed config: each family (model/families/*.cpp) lists its weight
// tensors (names after the Hugging Face checkpoints, shapes from the config and transformers'
// class defaults) with the building blocks here; the ParameterCounts components, the totals and
// weight_bytes() are all sums over that one list.
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "kvplan/checked.h"
#include "model/parameters_internal.h"
#include "model/quantization_internal.h"

namespace kvplan {

std::uint64_t WeightTensor::params() const { return checked_product({rows, cols, count}, "parameter count"); }
std::uint64_t WeightTensor::active_params() const {
  return checked_product({rows, cols, active_count}, "active parameter count");
}

}  // namespace kvplan

namespace kvplan::detail {

using u64 = std::uint64_t;
using C = WeightComponent;
using K = WeightKind;

// ---- the tensor inventory ------------------------------------------------------------------

void Inventory::add(C comp, K kind, const std::string& name, u64 rows, u64 cols, u64 count, u64 active) {
  if (rows == 0 || cols == 0 || count == 0) return;
  if (active == kAllActive) active = count;
  auto key = std::make_tuple(name, rows, cols, static_cast<int>(comp), static_cast<int>(kind), mtp);
  auto it = index_.find(key);
  if (it != index_.end()) {
    auto& t = tensors_[it->second];
    t.count = checked_add(t.count, count, "parameter count");
    t.active_count = checked_add(t.active_count, active, "parameter count");
    return;
  }
  WeightTensor t;
  t.name = name;
  t.component = comp;
  t.kind = kind;
  t.rows = rows;
  t.cols = cols;
  t.count = count;
  t.active_count = active;
  t.mtp = mtp;
  index_[key] = tensors_.size();
  tensors_.push_back(std::move(t));
}
void Inventory::linear(C comp, const std::string& name, u64 out, u64 in, bool bias, u64 count, u64 active) {
  add(comp, K::linear, name + ".weight", out, in, count, active);
  if (bias) add(comp, K::vector, name + ".bias", 1, out, count, active);
}
void Inventory::vec(C comp, const std::string& name, u64 size, u64 count, u64 active) {
  add(comp, K::vector, name, 1, size, count, active);
}
void Inventory::norm(C comp, const std::string& name, u64 size, bool bias) {
  add(comp, K::vector, name + ".weight", 1, size);
  if (bias) add(comp, K::vector, name + ".bias", 1, size);
}
void Inventory::embedding(const std::string& name, u64 rows, u64 cols, bool tied_head) {
  add(C::embedding, K::embedding, name, rows, cols);
  if (tied_head)
    for (auto& t : tensors_)
      if (t.name == name) t.tied_head = true;
}

// ---- shared building blocks ----------------------------------------------------------------

build::AttnDims ParamCtx::attn(std::size_t i) const {
  // The layer's attention mixer (a hybrid layer holds one beside its SSM), or the one it reads.
  auto attention_of = [&](const LayerSpec& l) -> std::optional<build::AttnDims> {
    for (const auto& mixer : l.mixers)
      if (auto a = build::attention_dims(mixer)) return a;
    return std::nullopt;
  };
  const LayerSpec* layer = &m.layers[i];
  for (const auto& mixer : layer->mixers)
    if (auto src = build::shared_kv_source(mixer)) layer = &m.layers.at(*src);
  auto a = attention_of(*layer);
  if (!a)
    c.fail_at(c.pointer("num_hidden_layers"), "an attention layer at index " + std::to_string(i),
              std::string(kind_name(*layer)));
  return *a;
}
bool ParamCtx::is_attention(std::size_t i) const {
  for (const auto& mixer : m.layers[i].mixers)
    if (build::attention_dims(mixer).has_value() || build::shared_kv_source(mixer).has_value()) return true;
  return false;
}

void attention(Inventory& inv, const std::string& p, u64 h, u64 heads, const build::AttnDims& a, const AttnStyle& s) {
  const u64 q_out = checked_product({heads, a.k_dim, s.gated_q ? 2u : 1u});
  if (s.fused_qkv) {
    inv.linear(C::attention, p + "qkv_proj", q_out + a.kv * a.k_dim + a.kv * a.v_dim, h, s.qkv_bias);
  } else {
    inv.linear(C::attention, p + "q_proj", q_out, h, s.qkv_bias);
    inv.linear(C::attention, p + "k_proj", checked_mul(a.kv, a.k_dim), h, s.qkv_bias);
    if (!s.no_v_proj) inv.linear(C::attention, p + "v_proj", checked_mul(a.kv, a.v_dim), h, s.qkv_bias);
  }
  inv.linear(C::attention, p + "o_proj", h, checked_mul(heads, a.v_dim), s.o_bias);
  if (s.qk_norm) {
    inv.norm(C::attention, p + "q_norm", a.k_dim);
    inv.norm(C::attention, p + "k_norm", a.k_dim);
  }
  if (s.sinks) inv.vec(C::attention, p + "sinks", heads);
}

// SwiGLU/GeGLU MLP: gate, up (i x h) and down (h x i).
void gated_mlp(Inventory& inv, C comp, const std::string& p, u64 h, u64 i, bool bias, u64 count,
               u64 active, const char* gate, const char* up, const char* down) {
  inv.linear(comp, p + gate, i, h, bias, count, active);
  inv.linear(comp, p + up, i, h, bias, count, active);
  inv.linear(comp, p + down, h, i, bias, count, active);
}

// Two-matrix MLP (GELU / ReLU^2): up (i x h) and down (h x i).
void plain_mlp(Inventory& inv, C comp, const std::string& p, u64 h, u64 i, bool bias, const char* up,
               const char* down) {
  inv.linear(comp, p + up, i, h, bias);
  inv.linear(comp, p + down, h, i, bias);
}

// Embedding and output head. The head is booked only when untied.
void embeddings(Inventory& inv, const ModelSpec& m, const std::string& embed_name, const std::string& head_name,
                bool head_bias) {
  const u64 h = m.dims.hidden_size, v = m.dims.vocab_size;
  inv.embedding(embed_name, v, h, m.dims.tie_word_embeddings);
  if (!m.dims.tie_word_embeddings) inv.linear(C::lm_head, head_name, v, h, head_bias);
}

bool in_list(const std::optional<std::vector<u64>>& list, u64 i) {
  return list && std::find(list->begin(), list->end(), i) != list->end();
}


void no_weight_rule(const ParamCtx& x, const std::string& why) {
  x.m.params.unknown_reason = "model_type " + x.m.model_type + ": kvplan has no proven parameter rule for this family (" +
                              why + "), and the generic Llama-shaped estimate would be wrong for it";
}

void moe_block(const ParamCtx& x, const MoeStyle& s, u64 experts, u64 top_k, u64 expert_i) {
  const u64 h = x.h();
  x.inv.linear(C::moe_router, s.prefix + s.gate, experts, h, s.router_bias);
  if (s.router_correction_bias) x.inv.vec(C::moe_router, s.prefix + s.gate + ".e_score_correction_bias", experts);
  gated_mlp(x.inv, C::moe_routed, s.prefix + s.experts, h, expert_i, false, experts, top_k, s.w_gate, s.w_up, s.w_down);
  if (s.shared_i) gated_mlp(x.inv, C::moe_shared, s.prefix + s.shared, h, s.shared_i);
  if (s.shared_gate) x.inv.linear(C::moe_shared, s.prefix + "shared_expert_gate", 1, h);
}

u64 top_k(const ParamCtx& x) {
  if (x.m.dims.experts_per_token == 0)
    x.c.fail("num_experts_per_tok", "a positive number of experts per token (the model has routed experts)", nullptr);
  return x.m.dims.experts_per_token;
}

// Llama-style decoders: attention + (dense or MoE) MLP + RMSNorms, family options below.
// Llama-style decoders: attention + (dense or MoE) MLP + RMSNorms.
void llama_like(const ParamCtx& x, const LlamaStyle& st) {
  const auto& c = x.c;
  const u64 h = x.h();
  AttnStyle as;
  as.qkv_bias = as.o_bias = c.boolean("attention_bias").value_or(false);
  bool mlp_bias = c.boolean("mlp_bias").value_or(false);
  const u64 norms_per_layer = st.norms_per_layer;
  bool norm_bias = false;
  if (st.qkv_bias_only) {
    as.qkv_bias = true;
    as.o_bias = false;
  }
  as.qk_norm = st.qk_norm;
  as.fused_qkv = st.fused_projections;
  if (st.starcoder) {
    as.qkv_bias = as.o_bias = c.boolean("use_bias").value_or(true);
    mlp_bias = as.qkv_bias;
    norm_bias = true;
  }

  const u64 experts = x.m.dims.num_experts;
  const u64 moe_i = x.m.dims.moe_intermediate_size ? x.m.dims.moe_intermediate_size : x.m.dims.intermediate_size;
  const u64 step = c.uint("decoder_sparse_step").value_or(1);
  const auto mlp_only = c.uint_list("mlp_only_layers");
  MoeStyle ms;
  ms.prefix = "model.layers.*.mlp.";
  if (st.mixtral_experts) {
    ms.prefix = "model.layers.*.block_sparse_moe.";
    ms.w_gate = "w1";
    ms.w_down = "w2";
    ms.w_up = "w3";
  }
  if (st.qwen2_shared_expert) {
    ms.shared_i = c.uint("shared_expert_intermediate_size").value_or(0);
    ms.shared_gate = ms.shared_i > 0;
  }
  for (std::size_t i = 0; i < x.n(); ++i) {
    const std::string p = "model.layers.*.";
    attention(x.inv, p + "self_attn.", h, x.heads(), x.attn(i), as);
    const bool moe = experts > 0 && !in_list(mlp_only, i) && (step == 0 || (i + 1) % step == 0);
    if (moe) {
      moe_block(x, ms, experts, top_k(x), moe_i);
    } else if (st.starcoder) {
      plain_mlp(x.inv, C::mlp_dense, p + "mlp.", h, x.m.dims.intermediate_size, mlp_bias, "c_fc", "c_proj");
    } else if (st.fused_projections) {
      x.inv.linear(C::mlp_dense, p + "mlp.gate_up_proj", 2 * x.m.dims.intermediate_size, h, mlp_bias);
      x.inv.linear(C::mlp_dense, p + "mlp.down_proj", h, x.m.dims.intermediate_size, mlp_bias);
    } else {
      gated_mlp(x.inv, C::mlp_dense, p + "mlp.", h, x.m.dims.intermediate_size, mlp_bias);
    }
    static const char* kNorms[] = {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                                   "post_feedforward_layernorm"};
    for (u64 k = 0; k < norms_per_layer; ++k) x.inv.norm(C::norms, p + kNorms[k], h, norm_bias);
  }
  x.inv.norm(C::norms, "model.norm", h, norm_bias);
  embeddings(x.inv, x.m);
}

// GPT-2 and GPT-BigCode: learned position embeddings, LayerNorms with bias, Conv1D/Linear with bias.

// Mamba-1 mixer (transformers MambaMixer / JambaMambaMixer).
void mamba1_mixer(const ParamCtx& x, const std::string& p, const build::Mamba1Dims& mb, u64 dt_rank, bool proj_bias, bool conv_bias,
                  bool jamba_norms) {
  const u64 h = x.h(), di = mb.d_inner;
  x.inv.linear(C::mixer, p + "in_proj", 2 * di, h, proj_bias);
  x.inv.add(C::mixer, K::vector, p + "conv1d.weight", 1, checked_mul(di, mb.conv_kernel));
  if (conv_bias) x.inv.vec(C::mixer, p + "conv1d.bias", di);
  x.inv.linear(C::mixer, p + "x_proj", dt_rank + 2 * mb.d_state, di);
  x.inv.linear(C::mixer, p + "dt_proj", di, dt_rank, true);
  x.inv.add(C::mixer, K::vector, p + "A_log", 1, checked_mul(di, mb.d_state));
  x.inv.vec(C::mixer, p + "D", di);
  x.inv.linear(C::mixer, p + "out_proj", h, di, proj_bias);
  if (jamba_norms) {
    x.inv.norm(C::mixer, p + "dt_layernorm", dt_rank);
    x.inv.norm(C::mixer, p + "b_layernorm", mb.d_state);
    x.inv.norm(C::mixer, p + "c_layernorm", mb.d_state);
  }
}

u64 dt_rank(const ParamCtx& x, const char* key) {
  const auto& c = x.c;
  if (c.has(key) && c.text()[std::string(key)].is_string()) return ceil_div(x.h(), 16);  // "auto"
  return c.uint(key).value_or(ceil_div(x.h(), 16));
}

// Mamba-2 mixer (transformers NemotronHMamba2Mixer / Mamba2Mixer).
void mamba2_mixer(const ParamCtx& x, const std::string& p, const build::Mamba2Dims& mb, bool proj_bias, bool conv_bias) {
  const u64 h = x.h(), di = mb.d_inner();
  const u64 bc = checked_product({2, mb.n_groups, mb.d_state});
  x.inv.linear(C::mixer, p + "in_proj", 2 * di + bc + mb.n_heads, h, proj_bias);
  x.inv.add(C::mixer, K::vector, p + "conv1d.weight", 1, checked_mul(di + bc, mb.conv_kernel));
  if (conv_bias) x.inv.vec(C::mixer, p + "conv1d.bias", di + bc);
  x.inv.vec(C::mixer, p + "dt_bias", mb.n_heads);
  x.inv.vec(C::mixer, p + "A_log", mb.n_heads);
  x.inv.vec(C::mixer, p + "D", mb.n_heads);
  x.inv.norm(C::mixer, p + "norm", di);
  x.inv.linear(C::mixer, p + "out_proj", h, di, proj_bias);
}


// Families whose layers are plain attention but that kvplan has no weight rule for: the generic
// decoder (q/k/v/o without biases, SwiGLU MLP, two RMSNorms per layer) when the fields give it.
void generic_decoder(const ParamCtx& x) {
  const auto& d = x.m.dims;
  bool plain = d.hidden_size && d.num_attention_heads && d.vocab_size && d.intermediate_size && d.num_experts == 0;
  // Attention alone in every layer (a layer with attention beside an SSM is not a plain decoder).
  for (std::size_t i = 0; plain && i < x.n(); ++i) plain = x.is_attention(i) && x.m.layers[i].mixers.size() == 1;
  if (!plain) {
    x.note("model_type " + x.m.model_type +
           ": kvplan has no parameter rule for this family and the config does not determine a generic count; "
           "parameter counts left at 0");
    return;
  }
  llama_like(x, LlamaStyle{});
  x.note("model_type " + x.m.model_type +
         ": no family rule; generic decoder estimate (q/k/v/o without biases, gated MLP of intermediate_size, two "
         "RMSNorms per layer, embedding" +
         std::string(d.tie_word_embeddings ? " tied" : " + lm_head") + ")");
}

namespace {

void sum_up(ModelSpec& m) {
  auto& p = m.params;
  for (const auto& t : p.tensors) {
    const u64 n = t.params();
    u64* slot = nullptr;
    if (t.mtp) {
      p.mtp = checked_add(p.mtp, n, "parameter count");
      continue;
    }
    switch (t.component) {
      case C::embedding: slot = &p.embedding; break;
      case C::lm_head: slot = &p.lm_head; break;
      case C::attention: slot = &p.attention; break;
      case C::mlp_dense: slot = &p.mlp_dense; break;
      case C::moe_routed: slot = &p.moe_routed; break;
      case C::moe_shared: slot = &p.moe_shared; break;
      case C::moe_router: slot = &p.moe_router; break;
      case C::mixer: slot = &p.mixer; break;
      case C::norms: slot = &p.norms; break;
      case C::other: slot = &p.other; break;
    }
    *slot = checked_add(*slot, n, "parameter count");
    p.total = checked_add(p.total, n, "parameter count");
    p.active = checked_add(p.active, t.active_params(), "parameter count");
  }
}

// quantization_config -> WeightQuantization (root or text config).
void read_quantization(const ConfigView& c, ModelSpec& m) {
  const nlohmann::json* q = nullptr;
  std::string ptr;
  if (c.root().contains("quantization_config") && c.root()["quantization_config"].is_object()) {
    q = &c.root()["quantization_config"];
    ptr = "/quantization_config";
  } else if (c.text().contains("quantization_config") && c.text()["quantization_config"].is_object()) {
    q = &c.text()["quantization_config"];
    ptr = c.text_pointer() + "/quantization_config";
  }
  bool mlx_root = false;
  if (!q && c.root().contains("quantization") && c.root()["quantization"].is_object()) {
    q = &c.root()["quantization"];  // mlx-lm
    ptr = "/quantization";
    mlx_root = true;
  }
  if (!q) return;
  read_weight_quantization(c, *q, ptr, mlx_root, m);  // quantization.cpp
}

}  // namespace

std::uint64_t EncoderConfig::uint(const char* key, std::uint64_t def) const {
  if (auto val = v.uint(key)) return *val;
  x.note(where + "." + key + " not set; transformers' " + config_class + " default " + std::to_string(def) + " used");
  return def;
}

bool EncoderConfig::boolean(const char* key, bool def) const {
  if (auto val = v.boolean(key)) return *val;
  x.note(where + "." + key + " not set; transformers' " + config_class + " default " + (def ? "true" : "false") + " used");
  return def;
}

void fill_parameters(const ConfigView& cfg, ModelSpec& m, const Family* family) {
  m.params = ParameterCounts{};
  // Weight-only fields never fail the load (the cache mapping already succeeded): a malformed
  // quantization_config or a count that cannot be made leaves the reason in unknown_reason, and
  // plan, sweep and check ask for --weights while it is set.
  try {
    read_quantization(cfg, m);
  } catch (const Error& e) {
    m.quantization.reset();
    m.params.unknown_reason = e.what();
  }
  Inventory inv;
  ParamCtx x{cfg, m, inv};
  try {
    if (family && family->count_params) family->count_params(x);
    else generic_decoder(x);
  } catch (const Error& e) {
    // An overflow names the file it came from (a count from absurd dimensions).
    const std::string why = dynamic_cast<const OverflowError*>(&e) ? cfg.source() + ": " + e.what() : std::string(e.what());
    m.params.tensors.clear();
    m.params.notes.push_back("parameter count unavailable: " + why);
    if (m.params.unknown_reason.empty()) m.params.unknown_reason = why;
    return;
  }
  m.params.tensors = inv.take();
  if (m.params.tensors.empty() && m.params.unknown_reason.empty())
    m.params.unknown_reason = "model_type " + m.model_type + ": kvplan has no parameter rule for this family";
  // A multimodal wrapper (LLaVA, InternVL, Kimi-VL, ...) whose text model kvplan counts but whose
  // towers it has no rule for: pricing the text model alone would be low, the unsafe direction.
  struct Encoder {
    const char* key;
    std::array<std::string_view, 2> names;  // a counted tensor of the encoder has one in its name
  };
  static constexpr std::array<Encoder, 2> kEncoders{{{"vision_config", {"vision", "visual"}}, {"audio_config", {"audio", "audio"}}}};
  const auto& root = cfg.root();
  for (const Encoder& e : kEncoders) {
    // (A null or empty encoder config, as gemma-4-26B's "audio_config": null, means no encoder.)
    if (!m.params.unknown_reason.empty() || !root.is_object() || !root.contains(e.key) || !root[e.key].is_object() ||
        root[e.key].empty())
      continue;
    const bool counted = std::any_of(m.params.tensors.begin(), m.params.tensors.end(), [&e](const WeightTensor& t) {
      return t.name.find(e.names[0]) != std::string::npos || t.name.find(e.names[1]) != std::string::npos;
    });
    if (!counted)
      m.params.unknown_reason = "model_type " + m.model_type + ": the config has an encoder (" + e.key + ")" +
                                " but kvplan has no rule for that encoder, so the weights would be counted low";
    else
      m.params.encoders.emplace_back(e.key);
  }
  try {
    sum_up(m);
  } catch (const OverflowError& e) {
    throw OverflowError(cfg.source() + ": " + e.what());
  }
}

}  // namespace kvplan::detail
