// Parameter counts from a parsed config: each family lists its weight tensors (names after the
// Hugging Face checkpoints, shapes from the config and transformers' class defaults); the
// ParameterCounts components, the totals and weight_bytes() are all sums over that one list.
#include <algorithm>
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

namespace {

using u64 = std::uint64_t;
using C = WeightComponent;
using K = WeightKind;

constexpr u64 kAll = ~u64{0};  // "active_count = count"

// ---- the tensor inventory ------------------------------------------------------------------

class Inventory {
 public:
  // While `mtp` is set every tensor is marked as part of the MTP module (not in the total).
  bool mtp = false;

  void add(C comp, K kind, const std::string& name, u64 rows, u64 cols, u64 count = 1, u64 active = kAll) {
    if (rows == 0 || cols == 0 || count == 0) return;
    if (active == kAll) active = count;
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
  // A linear layer: weight (out x in) plus an optional bias of `out`.
  void linear(C comp, const std::string& name, u64 out, u64 in, bool bias = false, u64 count = 1, u64 active = kAll) {
    add(comp, K::linear, name + ".weight", out, in, count, active);
    if (bias) add(comp, K::vector, name + ".bias", 1, out, count, active);
  }
  void vec(C comp, const std::string& name, u64 size, u64 count = 1, u64 active = kAll) {
    add(comp, K::vector, name, 1, size, count, active);
  }
  // A norm with a weight (and, for LayerNorm, a bias).
  void norm(C comp, const std::string& name, u64 size, bool bias = false) {
    add(comp, K::vector, name + ".weight", 1, size);
    if (bias) add(comp, K::vector, name + ".bias", 1, size);
  }
  void embedding(const std::string& name, u64 rows, u64 cols, bool tied_head) {
    add(C::embedding, K::embedding, name, rows, cols);
    if (tied_head)
      for (auto& t : tensors_)
        if (t.name == name) t.tied_head = true;
  }
  std::vector<WeightTensor> take() { return std::move(tensors_); }

 private:
  std::vector<WeightTensor> tensors_;
  std::map<std::tuple<std::string, u64, u64, int, int, bool>, std::size_t> index_;
};

// ---- shared building blocks ----------------------------------------------------------------

struct AttnDims {
  u64 kv = 0, k_dim = 0, v_dim = 0;
};

std::optional<AttnDims> attention_dims(const LayerCache& c) {
  if (auto* f = std::get_if<FullAttention>(&c)) return AttnDims{f->kv_heads, f->k_head_dim, f->v_head_dim};
  if (auto* s = std::get_if<SlidingAttention>(&c)) return AttnDims{s->kv_heads, s->k_head_dim, s->v_head_dim};
  if (auto* k = std::get_if<ChunkedAttention>(&c)) return AttnDims{k->kv_heads, k->k_head_dim, k->v_head_dim};
  return std::nullopt;
}

struct AttnStyle {
  bool qkv_bias = false;
  bool o_bias = false;
  bool qk_norm = false;     // per-head RMSNorm weights (head_dim each) on q and k
  bool gated_q = false;     // q_proj also emits an output gate (Qwen3-Next / Qwen3.5)
  bool fused_qkv = false;   // one qkv_proj (Phi-3)
  bool no_v_proj = false;   // V taken from K (Gemma 4 global layers, attention_k_eq_v)
  bool sinks = false;       // one learned sink logit per head (gpt-oss)
};

void attention(Inventory& inv, const std::string& p, u64 h, u64 heads, const AttnDims& a, const AttnStyle& s) {
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
void gated_mlp(Inventory& inv, C comp, const std::string& p, u64 h, u64 i, bool bias = false, u64 count = 1,
               u64 active = kAll, const char* gate = "gate_proj", const char* up = "up_proj",
               const char* down = "down_proj") {
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
void embeddings(Inventory& inv, const ModelSpec& m, const std::string& embed_name = "model.embed_tokens.weight",
                const std::string& head_name = "lm_head", bool head_bias = false) {
  const u64 h = m.dims.hidden_size, v = m.dims.vocab_size;
  inv.embedding(embed_name, v, h, m.dims.tie_word_embeddings);
  if (!m.dims.tie_word_embeddings) inv.linear(C::lm_head, head_name, v, h, head_bias);
}

bool in_list(const std::optional<std::vector<u64>>& list, u64 i) {
  return list && std::find(list->begin(), list->end(), i) != list->end();
}

// ---- families ------------------------------------------------------------------------------

struct Ctx {
  const ConfigView& c;
  ModelSpec& m;
  Inventory& inv;
  u64 h() const { return m.dims.hidden_size; }
  u64 heads() const { return m.dims.num_attention_heads; }
  u64 n() const { return m.layers.size(); }
  void note(std::string s) const { m.params.notes.push_back(std::move(s)); }
  AttnDims attn(std::size_t i) const {
    const LayerCache* cache = &m.layers[i].cache;
    if (auto* sh = std::get_if<SharedKv>(cache)) cache = &m.layers.at(sh->source_layer).cache;
    auto a = attention_dims(*cache);
    if (!a)
      c.fail_at(c.pointer("num_hidden_layers"), "an attention layer at index " + std::to_string(i),
                std::string(kind_name(*cache)));
    return *a;
  }
  bool is_attention(std::size_t i) const {
    const auto& cache = m.layers[i].cache;
    return attention_dims(cache).has_value() || std::holds_alternative<SharedKv>(cache);
  }
};

// The routed-expert block shared by the Mixtral/Qwen/DeepSeek/Jamba/MiniMax families.
struct MoeStyle {
  std::string prefix;          // "model.layers.*.mlp."
  const char* gate = "gate";   // router module name
  bool router_bias = false;
  bool router_correction_bias = false;  // DeepSeek-V3 e_score_correction_bias
  const char* experts = "experts.*.";
  const char* w_gate = "gate_proj";
  const char* w_up = "up_proj";
  const char* w_down = "down_proj";
  u64 shared_i = 0;            // shared expert(s) width (0: none)
  const char* shared = "shared_expert.";
  bool shared_gate = false;    // Qwen2-MoE / Qwen3-Next: a sigmoid gate (1 x h) on the shared expert
};

void moe_block(const Ctx& x, const MoeStyle& s, u64 experts, u64 top_k, u64 expert_i) {
  const u64 h = x.h();
  x.inv.linear(C::moe_router, s.prefix + s.gate, experts, h, s.router_bias);
  if (s.router_correction_bias) x.inv.vec(C::moe_router, s.prefix + s.gate + ".e_score_correction_bias", experts);
  gated_mlp(x.inv, C::moe_routed, s.prefix + s.experts, h, expert_i, false, experts, top_k, s.w_gate, s.w_up, s.w_down);
  if (s.shared_i) gated_mlp(x.inv, C::moe_shared, s.prefix + s.shared, h, s.shared_i);
  if (s.shared_gate) x.inv.linear(C::moe_shared, s.prefix + "shared_expert_gate", 1, h);
}

u64 top_k(const Ctx& x) {
  if (x.m.dims.experts_per_token == 0)
    x.c.fail("num_experts_per_tok", "a positive number of experts per token (the model has routed experts)", nullptr);
  return x.m.dims.experts_per_token;
}

// Llama-style decoders: attention + (dense or MoE) MLP + RMSNorms, family options below.
void llama_like(const Ctx& x) {
  const auto& c = x.c;
  const std::string& mt = x.m.model_type;
  const u64 h = x.h();
  AttnStyle as;
  as.qkv_bias = as.o_bias = c.boolean("attention_bias").value_or(false);
  bool mlp_bias = c.boolean("mlp_bias").value_or(false);
  u64 norms_per_layer = 2;
  bool norm_bias = false;
  bool starcoder_mlp = false;
  bool fused_gate_up = false;
  if (mt == "qwen2" || mt == "qwen2_moe") {
    as.qkv_bias = true;  // Qwen2: q/k/v biases, none on o_proj
    as.o_bias = false;
  } else if (mt == "qwen3" || mt == "qwen3_moe") {
    as.qk_norm = true;
  } else if (mt == "phi3") {
    as.fused_qkv = true;
    fused_gate_up = true;
  } else if (mt == "gemma2") {
    norms_per_layer = 4;
  } else if (mt == "gemma3" || mt == "gemma3_text") {
    norms_per_layer = 4;
    as.qk_norm = true;
  } else if (mt == "cohere2" || mt == "cohere") {
    norms_per_layer = 1;  // parallel block: one input_layernorm (LayerNorm without bias)
    if (mt == "cohere" && c.boolean("use_qk_norm").value_or(false)) as.qk_norm = true;
  } else if (mt == "starcoder2") {
    as.qkv_bias = as.o_bias = c.boolean("use_bias").value_or(true);
    mlp_bias = as.qkv_bias;
    norm_bias = true;
    starcoder_mlp = true;
  }

  const u64 experts = x.m.dims.num_experts;
  const u64 moe_i = x.m.dims.moe_intermediate_size ? x.m.dims.moe_intermediate_size : x.m.dims.intermediate_size;
  const u64 step = c.uint("decoder_sparse_step").value_or(1);
  const auto mlp_only = c.uint_list("mlp_only_layers");
  MoeStyle ms;
  ms.prefix = "model.layers.*.mlp.";
  if (mt == "mixtral") {
    ms.prefix = "model.layers.*.block_sparse_moe.";
    ms.w_gate = "w1";
    ms.w_down = "w2";
    ms.w_up = "w3";
  }
  if (mt == "qwen2_moe") {
    ms.shared_i = c.uint("shared_expert_intermediate_size").value_or(0);
    ms.shared_gate = ms.shared_i > 0;
  }

  for (std::size_t i = 0; i < x.n(); ++i) {
    const std::string p = "model.layers.*.";
    attention(x.inv, p + "self_attn.", h, x.heads(), x.attn(i), as);
    const bool moe = experts > 0 && !in_list(mlp_only, i) && (step == 0 || (i + 1) % step == 0);
    if (moe) {
      moe_block(x, ms, experts, top_k(x), moe_i);
    } else if (starcoder_mlp) {
      plain_mlp(x.inv, C::mlp_dense, p + "mlp.", h, x.m.dims.intermediate_size, mlp_bias, "c_fc", "c_proj");
    } else if (fused_gate_up) {
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
void gpt2_like(const Ctx& x) {
  const u64 h = x.h();
  const u64 inner = x.m.dims.intermediate_size ? x.m.dims.intermediate_size : 4 * h;
  const u64 positions = x.c.require_uint_any({"n_positions", "max_position_embeddings"});
  for (std::size_t i = 0; i < x.n(); ++i) {
    const AttnDims a = x.attn(i);
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

// Falcon (RW): fused query_key_value, parallel attention/MLP, LayerNorms with bias.
void falcon(const Ctx& x) {
  const auto& c = x.c;
  const u64 h = x.h();
  const bool bias = c.boolean("bias").value_or(false);
  const bool new_arch = c.boolean("new_decoder_architecture").value_or(false);
  const bool parallel = c.boolean("parallel_attn").value_or(true);
  const u64 ffn = c.uint("ffn_hidden_size").value_or(4 * h);
  const u64 heads = x.heads();
  for (std::size_t i = 0; i < x.n(); ++i) {
    const AttnDims a = x.attn(i);
    const std::string p = "transformer.h.*.";
    x.inv.linear(C::attention, p + "self_attention.query_key_value", (heads + 2 * a.kv) * a.k_dim, h, bias);
    x.inv.linear(C::attention, p + "self_attention.dense", h, heads * a.k_dim, bias);
    plain_mlp(x.inv, C::mlp_dense, p + "mlp.", h, ffn, bias, "dense_h_to_4h", "dense_4h_to_h");
    if (new_arch) {
      const u64 lns = c.uint("num_ln_in_parallel_attn").value_or(2);
      if (lns == 2) {
        x.inv.norm(C::norms, p + "ln_attn", h, true);
        x.inv.norm(C::norms, p + "ln_mlp", h, true);
      } else {
        x.inv.norm(C::norms, p + "input_layernorm", h, true);
      }
    } else {
      x.inv.norm(C::norms, p + "input_layernorm", h, true);
      if (!parallel) x.inv.norm(C::norms, p + "post_attention_layernorm", h, true);
    }
  }
  x.inv.norm(C::norms, "transformer.ln_f", h, true);
  embeddings(x.inv, x.m, "transformer.word_embeddings.weight");
}

// Phi-2's remote-code schema (phi-msft): parallel block, one LayerNorm, fused Wqkv, a head with
// its own LayerNorm and bias.
void phi_msft(const Ctx& x) {
  const u64 h = x.h();
  const u64 inner = x.m.dims.intermediate_size ? x.m.dims.intermediate_size : 4 * h;
  for (std::size_t i = 0; i < x.n(); ++i) {
    const AttnDims a = x.attn(i);
    const std::string p = "transformer.h.*.";
    x.inv.norm(C::norms, p + "ln", h, true);
    x.inv.linear(C::attention, p + "mixer.Wqkv", (x.heads() + 2 * a.kv) * a.k_dim, h, true);
    x.inv.linear(C::attention, p + "mixer.out_proj", h, x.heads() * a.k_dim, true);
    plain_mlp(x.inv, C::mlp_dense, p + "mlp.", h, inner, true, "fc1", "fc2");
  }
  x.inv.norm(C::norms, "lm_head.ln", h, true);
  embeddings(x.inv, x.m, "transformer.embd.wte.weight", "lm_head.linear", true);
}

// Phi-1/1.5/2 in transformers' current schema (model_type "phi"): parallel block with one
// LayerNorm, q/k/v/dense with biases, fc1/fc2 with biases, optional q/k LayerNorms, a biased head.
void phi(const Ctx& x) {
  const u64 h = x.h();
  const u64 inner = x.m.dims.intermediate_size ? x.m.dims.intermediate_size : 4 * h;
  const bool qk_ln = x.c.boolean("qk_layernorm").value_or(false);
  for (std::size_t i = 0; i < x.n(); ++i) {
    const AttnDims a = x.attn(i);
    const std::string p = "model.layers.*.";
    x.inv.norm(C::norms, p + "input_layernorm", h, true);
    x.inv.linear(C::attention, p + "self_attn.q_proj", x.heads() * a.k_dim, h, true);
    x.inv.linear(C::attention, p + "self_attn.k_proj", a.kv * a.k_dim, h, true);
    x.inv.linear(C::attention, p + "self_attn.v_proj", a.kv * a.v_dim, h, true);
    x.inv.linear(C::attention, p + "self_attn.dense", h, x.heads() * a.v_dim, true);
    if (qk_ln) {
      x.inv.norm(C::attention, p + "self_attn.q_layernorm", a.k_dim, true);
      x.inv.norm(C::attention, p + "self_attn.k_layernorm", a.k_dim, true);
    }
    plain_mlp(x.inv, C::mlp_dense, p + "mlp.", h, inner, true, "fc1", "fc2");
  }
  x.inv.norm(C::norms, "model.final_layernorm", h, true);
  embeddings(x.inv, x.m, "model.embed_tokens.weight", "lm_head", true);
}

// GPT-NeoX / Pythia: fused query_key_value with bias, two LayerNorms per layer, biased MLP.
void gpt_neox(const Ctx& x) {
  const u64 h = x.h();
  const u64 inner = x.m.dims.intermediate_size ? x.m.dims.intermediate_size : 4 * h;
  const bool bias = x.c.boolean("attention_bias").value_or(true);
  for (std::size_t i = 0; i < x.n(); ++i) {
    const AttnDims a = x.attn(i);
    const std::string p = "gpt_neox.layers.*.";
    x.inv.norm(C::norms, p + "input_layernorm", h, true);
    x.inv.norm(C::norms, p + "post_attention_layernorm", h, true);
    x.inv.linear(C::attention, p + "attention.query_key_value", (x.heads() + 2 * a.kv) * a.k_dim, h, bias);
    x.inv.linear(C::attention, p + "attention.dense", h, x.heads() * a.v_dim, bias);
    plain_mlp(x.inv, C::mlp_dense, p + "mlp.", h, inner, true, "dense_h_to_4h", "dense_4h_to_h");
  }
  x.inv.norm(C::norms, "gpt_neox.final_layer_norm", h, true);
  embeddings(x.inv, x.m, "gpt_neox.embed_in.weight", "embed_out");
}

// Gemma 4: per-layer-type attention (global layers: own head dim / KV heads, V from K), a dense
// MLP in every layer, plus a routed-expert block beside it when enable_moe_block.
void gemma4(const Ctx& x) {
  const auto& c = x.c;
  const u64 h = x.h();
  const bool k_eq_v = c.boolean("attention_k_eq_v").value_or(false);
  const bool moe = c.boolean("enable_moe_block").value_or(false);
  const u64 ple = c.uint("hidden_size_per_layer_input", true).value_or(0);
  const bool double_wide = c.boolean("use_double_wide_mlp").value_or(false);
  for (std::size_t i = 0; i < x.n(); ++i) {
    const std::string p = "model.language_model.layers.*.";
    AttnStyle as;
    as.qkv_bias = as.o_bias = c.boolean("attention_bias").value_or(false);
    as.qk_norm = true;  // v_norm has no scale
    const bool global = !std::holds_alternative<SlidingAttention>(x.m.layers[i].cache);
    as.no_v_proj = k_eq_v && global;
    // Layers that reuse an earlier layer's KV (num_kv_shared_layers) have no k/v projections
    // and, with use_double_wide_mlp, an MLP twice as wide.
    const bool shared_kv = std::holds_alternative<SharedKv>(x.m.layers[i].cache);
    const AttnDims a = x.attn(i);
    if (shared_kv) {
      x.inv.linear(C::attention, p + "self_attn.q_proj", x.heads() * a.k_dim, h, as.qkv_bias);
      x.inv.norm(C::attention, p + "self_attn.q_norm", a.k_dim);
      x.inv.linear(C::attention, p + "self_attn.o_proj", h, x.heads() * a.v_dim, as.o_bias);
    } else {
      attention(x.inv, p + "self_attn.", h, x.heads(), a, as);
    }
    const u64 mlp_i = checked_mul(x.m.dims.intermediate_size, shared_kv && double_wide ? 2 : 1);
    gated_mlp(x.inv, C::mlp_dense, p + "mlp.", h, mlp_i);
    for (const char* n : {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                          "post_feedforward_layernorm"})
      x.inv.norm(C::norms, p + n, h);
    if (moe) {
      const u64 e = x.m.dims.num_experts, k = top_k(x), mi = x.m.dims.moe_intermediate_size;
      x.inv.linear(C::moe_router, p + "router.proj", e, h);
      x.inv.vec(C::moe_router, p + "router.scale", h);
      x.inv.vec(C::moe_router, p + "router.per_expert_scale", e);
      x.inv.add(C::moe_routed, K::linear, p + "experts.gate_up_proj", 2 * mi, h, e, k);
      x.inv.add(C::moe_routed, K::linear, p + "experts.down_proj", h, mi, e, k);
      for (const char* n : {"post_feedforward_layernorm_1", "post_feedforward_layernorm_2", "pre_feedforward_layernorm_2"})
        x.inv.norm(C::norms, p + n, h);
    }
    if (ple) {
      x.inv.linear(C::other, p + "per_layer_input_gate", ple, h);
      x.inv.linear(C::other, p + "per_layer_projection", h, ple);
      x.inv.norm(C::norms, p + "post_per_layer_input_norm", h);
    }
  }
  if (ple) {
    const u64 v = c.uint("vocab_size_per_layer_input").value_or(x.m.dims.vocab_size);
    x.inv.add(C::other, K::embedding, "model.language_model.embed_tokens_per_layer.weight", v, x.n() * ple);
    x.inv.linear(C::other, "model.language_model.per_layer_model_projection", x.n() * ple, h);
    x.inv.norm(C::other, "model.language_model.per_layer_projection_norm", ple);
  }
  x.inv.norm(C::norms, "model.language_model.norm", h);
  embeddings(x.inv, x.m, "model.language_model.embed_tokens.weight");
  if (c.has_root("vision_config") || c.has_root("audio_config"))
    x.note("gemma4: text model only; the vision/audio towers are not counted");
}

// Llama 4: every moe_layers layer has routed experts (fused gate_up) plus one shared expert;
// the others a dense MLP of intermediate_size_mlp. QK norm is a weightless L2 norm.
void llama4(const Ctx& x) {
  const auto& c = x.c;
  const u64 h = x.h();
  const u64 n = x.n();
  auto moe_layers = c.uint_list("moe_layers");
  if (!moe_layers || moe_layers->empty()) {
    const u64 step = c.uint("interleave_moe_layer_step").value_or(1);
    moe_layers.emplace();
    for (u64 i = step - 1; i < n; i += step) moe_layers->push_back(i);
  }
  const u64 e = x.m.dims.num_experts;
  const u64 ei = x.m.dims.intermediate_size;
  const u64 dense_i = c.uint("intermediate_size_mlp").value_or(ei);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string p = "language_model.model.layers.*.";
    AttnStyle as;
    as.qkv_bias = as.o_bias = c.boolean("attention_bias").value_or(false);
    attention(x.inv, p + "self_attn.", h, x.heads(), x.attn(i), as);
    if (e > 0 && in_list(moe_layers, i)) {
      const u64 k = top_k(x);
      x.inv.linear(C::moe_router, p + "feed_forward.router", e, h);
      x.inv.add(C::moe_routed, K::linear, p + "feed_forward.experts.gate_up_proj", 2 * ei, h, e, k);
      x.inv.add(C::moe_routed, K::linear, p + "feed_forward.experts.down_proj", h, ei, e, k);
      gated_mlp(x.inv, C::moe_shared, p + "feed_forward.shared_expert.", h, ei);
    } else {
      gated_mlp(x.inv, C::mlp_dense, p + "feed_forward.", h, dense_i);
    }
    x.inv.norm(C::norms, p + "input_layernorm", h);
    x.inv.norm(C::norms, p + "post_attention_layernorm", h);
  }
  x.inv.norm(C::norms, "language_model.model.norm", h);
  embeddings(x.inv, x.m, "language_model.model.embed_tokens.weight", "language_model.lm_head");
  if (c.has_root("vision_config")) x.note("llama4: text model only; the vision encoder and projector are not counted");
}

// gpt-oss: attention with biases and sinks; every layer routed experts with fused gate_up and
// biases, a router with bias.
void gpt_oss(const Ctx& x) {
  const u64 h = x.h();
  const u64 e = x.m.dims.num_experts, k = top_k(x);
  const u64 ei = x.m.dims.intermediate_size;
  AttnStyle as;
  as.qkv_bias = as.o_bias = x.c.boolean("attention_bias").value_or(true);
  as.sinks = true;
  for (std::size_t i = 0; i < x.n(); ++i) {
    const std::string p = "model.layers.*.";
    attention(x.inv, p + "self_attn.", h, x.heads(), x.attn(i), as);
    x.inv.linear(C::moe_router, p + "mlp.router", e, h, true);
    x.inv.add(C::moe_routed, K::linear, p + "mlp.experts.gate_up_proj", 2 * ei, h, e, k);
    x.inv.add(C::moe_routed, K::vector, p + "mlp.experts.gate_up_proj_bias", 1, 2 * ei, e, k);
    x.inv.add(C::moe_routed, K::linear, p + "mlp.experts.down_proj", h, ei, e, k);
    x.inv.add(C::moe_routed, K::vector, p + "mlp.experts.down_proj_bias", 1, h, e, k);
    x.inv.norm(C::norms, p + "input_layernorm", h);
    x.inv.norm(C::norms, p + "post_attention_layernorm", h);
  }
  x.inv.norm(C::norms, "model.norm", h);
  embeddings(x.inv, x.m, "model.embed_tokens.weight", "lm_head");
  x.note("gpt_oss: OpenAI's 3.6B active (20b) excludes the embedding table; kvplan's active counts it");
}

// ---- DeepSeek (MLA) ------------------------------------------------------------------------

void mla_attention(const Ctx& x, const std::string& p) {
  const auto& d = x.m.dims;
  const u64 h = x.h(), heads = x.heads();
  const bool bias = x.c.boolean("attention_bias").value_or(false);
  const auto* mla = std::get_if<Mla>(&x.m.layers[0].cache);
  const u64 q_dim = checked_mul(heads, d.q_head_dim);
  if (d.mla_q_lora_rank) {
    x.inv.linear(C::attention, p + "q_a_proj", d.mla_q_lora_rank, h, bias);
    x.inv.norm(C::attention, p + "q_a_layernorm", d.mla_q_lora_rank);
    x.inv.linear(C::attention, p + "q_b_proj", q_dim, d.mla_q_lora_rank);
  } else {
    x.inv.linear(C::attention, p + "q_proj", q_dim, h);
  }
  if (mla) {
    x.inv.linear(C::attention, p + "kv_a_proj_with_mqa", mla->kv_lora_rank + mla->rope_dim, h, bias);
    x.inv.norm(C::attention, p + "kv_a_layernorm", mla->kv_lora_rank);
    x.inv.linear(C::attention, p + "kv_b_proj", heads * (d.mla_qk_nope_head_dim + d.mla_v_head_dim),
                 mla->kv_lora_rank);
    if (mla->index_head_dim) {
      // DeepSeek-V3.2 sparse-attention indexer (inference/model.py Indexer).
      const u64 ih = x.c.require_uint("index_n_heads"), id = mla->index_head_dim;
      const u64 q_in = d.mla_q_lora_rank ? d.mla_q_lora_rank : h;
      x.inv.linear(C::other, p + "indexer.wq_b", ih * id, q_in);
      x.inv.linear(C::other, p + "indexer.wk", id, h);
      x.inv.norm(C::other, p + "indexer.k_norm", id, true);
      x.inv.linear(C::other, p + "indexer.weights_proj", ih, h);
    }
  } else {
    const AttnDims a = x.attn(0);
    x.inv.linear(C::attention, p + "k_proj", a.kv * a.k_dim, h, bias);
    x.inv.linear(C::attention, p + "v_proj", a.kv * a.v_dim, h, bias);
  }
  x.inv.linear(C::attention, p + "o_proj", h, heads * d.mla_v_head_dim, bias);
}

void deepseek_layer(const Ctx& x, u64 i, const std::string& p) {
  const auto& c = x.c;
  const u64 h = x.h();
  mla_attention(x, p + "self_attn.");
  const u64 e = x.m.dims.num_experts;
  const u64 first_dense = c.uint("first_k_dense_replace", true).value_or(0);
  const u64 freq = c.uint("moe_layer_freq").value_or(1);
  if (e > 0 && i >= first_dense && i % freq == 0) {
    MoeStyle ms;
    ms.prefix = p + "mlp.";
    ms.router_correction_bias = c.string("topk_method").value_or("") == "noaux_tc";
    ms.shared_i = checked_mul(x.m.dims.moe_intermediate_size, c.uint("n_shared_experts", true).value_or(0));
    ms.shared = "shared_experts.";
    moe_block(x, ms, e, top_k(x), x.m.dims.moe_intermediate_size);
  } else {
    gated_mlp(x.inv, C::mlp_dense, p + "mlp.", h, x.m.dims.intermediate_size);
  }
  x.inv.norm(C::norms, p + "input_layernorm", h);
  x.inv.norm(C::norms, p + "post_attention_layernorm", h);
}

void deepseek(const Ctx& x) {
  const u64 h = x.h();
  for (std::size_t i = 0; i < x.n(); ++i) deepseek_layer(x, i, "model.layers.*.");
  x.inv.norm(C::norms, "model.norm", h);
  embeddings(x.inv, x.m);
  // Multi-token-prediction modules (stored after the main layers): each a full decoder layer
  // plus enorm/hnorm, eh_proj (h x 2h) and its own copy of the embedding and output head.
  const u64 nextn = x.c.uint("num_nextn_predict_layers", true).value_or(0);
  if (nextn) {
    x.inv.mtp = true;
    for (u64 j = 0; j < nextn; ++j) {
      const std::string p = "model.layers.mtp.";
      deepseek_layer(x, x.n() + j, p);
      x.inv.norm(C::norms, p + "enorm", h);
      x.inv.norm(C::norms, p + "hnorm", h);
      x.inv.linear(C::other, p + "eh_proj", h, 2 * h);
      x.inv.norm(C::norms, p + "shared_head.norm", h);
      x.inv.add(C::embedding, K::embedding, p + "embed_tokens.weight", x.m.dims.vocab_size, h);
      x.inv.linear(C::lm_head, p + "shared_head.head", x.m.dims.vocab_size, h);
    }
    x.inv.mtp = false;
    x.note("deepseek: " + std::to_string(nextn) +
           " MTP layer(s) counted in mtp (not in total), each with its stored copy of the embedding and head");
  }
}

// ---- state-space and linear-attention hybrids ---------------------------------------------

// Mamba-1 mixer (transformers MambaMixer / JambaMambaMixer).
void mamba1_mixer(const Ctx& x, const std::string& p, const Mamba& mb, u64 dt_rank, bool proj_bias, bool conv_bias,
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

void mamba2_mixer(const Ctx& x, const std::string& p, const Mamba& mb, bool proj_bias, bool conv_bias);

u64 dt_rank(const Ctx& x, const char* key) {
  const auto& c = x.c;
  if (c.has(key) && c.text()[std::string(key)].is_string()) return ceil_div(x.h(), 16);  // "auto"
  return c.uint(key).value_or(ceil_div(x.h(), 16));
}

void mamba(const Ctx& x) {
  const u64 h = x.h();
  const bool proj_bias = x.c.boolean("use_bias").value_or(false);
  const bool conv_bias = x.c.boolean("use_conv_bias").value_or(true);
  const u64 r = dt_rank(x, "time_step_rank");
  for (std::size_t i = 0; i < x.n(); ++i) {
    const auto* mb = std::get_if<Mamba>(&x.m.layers[i].cache);
    if (!mb) continue;
    x.inv.norm(C::norms, "backbone.layers.*.norm", h);
    if (mb->version == 2) mamba2_mixer(x, "backbone.layers.*.mixer.", *mb, proj_bias, conv_bias);
    else mamba1_mixer(x, "backbone.layers.*.mixer.", *mb, r, proj_bias, conv_bias, false);
  }
  x.inv.norm(C::norms, "backbone.norm_f", h);
  embeddings(x.inv, x.m, "backbone.embeddings.weight");
}

void jamba(const Ctx& x) {
  const auto& c = x.c;
  const u64 h = x.h();
  const u64 r = dt_rank(x, "mamba_dt_rank");
  const bool proj_bias = c.boolean("mamba_proj_bias").value_or(false);
  const bool conv_bias = c.boolean("mamba_conv_bias").value_or(true);
  const u64 period = c.uint("expert_layer_period").value_or(2);
  const u64 offset = c.uint("expert_layer_offset", true).value_or(1);
  const u64 e = x.m.dims.num_experts;
  for (std::size_t i = 0; i < x.n(); ++i) {
    const std::string p = "model.layers.*.";
    if (const auto* mb = std::get_if<Mamba>(&x.m.layers[i].cache)) {
      mamba1_mixer(x, p + "mamba.", *mb, r, proj_bias, conv_bias, true);
    } else {
      attention(x.inv, p + "self_attn.", h, x.heads(), x.attn(i), AttnStyle{});
    }
    if (e > 1 && i % period == offset) {
      MoeStyle ms;
      ms.prefix = p + "feed_forward.";
      ms.gate = "router";
      moe_block(x, ms, e, top_k(x), x.m.dims.intermediate_size);
    } else {
      gated_mlp(x.inv, C::mlp_dense, p + "feed_forward.", h, x.m.dims.intermediate_size);
    }
    x.inv.norm(C::norms, p + "input_layernorm", h);
    x.inv.norm(C::norms, p + "pre_ff_layernorm", h);
  }
  x.inv.norm(C::norms, "model.final_layernorm", h);
  embeddings(x.inv, x.m);
}

// Mamba-2 mixer (transformers NemotronHMamba2Mixer / Mamba2Mixer).
void mamba2_mixer(const Ctx& x, const std::string& p, const Mamba& mb, bool proj_bias, bool conv_bias) {
  const u64 h = x.h(), di = mb.d_inner;
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

void nemotron_h(const Ctx& x) {
  const auto& c = x.c;
  const u64 h = x.h();
  const std::string pattern = c.string("hybrid_override_pattern").value_or("");
  const bool proj_bias = c.boolean("use_bias").value_or(false);
  const bool conv_bias = c.boolean("use_conv_bias").value_or(true);
  const bool mlp_bias = c.boolean("mlp_bias").value_or(false);
  AttnStyle as;
  as.qkv_bias = as.o_bias = c.boolean("attention_bias").value_or(false);
  for (std::size_t i = 0; i < x.n(); ++i) {
    const std::string p = "backbone.layers.*.";
    x.inv.norm(C::norms, p + "norm", h);
    const char kind = i < pattern.size() ? pattern[i] : '?';
    if (const auto* mb = std::get_if<Mamba>(&x.m.layers[i].cache)) {
      mamba2_mixer(x, p + "mixer.", *mb, proj_bias, conv_bias);
    } else if (x.is_attention(i)) {
      attention(x.inv, p + "mixer.", h, x.heads(), x.attn(i), as);
    } else if (kind == '-') {
      plain_mlp(x.inv, C::mlp_dense, p + "mixer.", h, x.m.dims.intermediate_size, mlp_bias, "up_proj", "down_proj");
    } else {
      throw UnsupportedArchitecture::field(c.source(), x.m.model_type, c.pointer("hybrid_override_pattern"),
                                           "kvplan has no parameter rule for layer kind '" + std::string(1, kind) + "'");
    }
  }
  x.inv.norm(C::norms, "backbone.norm_f", h);
  embeddings(x.inv, x.m, "backbone.embeddings.weight");
}

// Qwen3-Next / Qwen3.5: gated DeltaNet or gated attention, then a MoE with a gated shared expert.
void gated_deltanet(const Ctx& x, const std::string& p, const LinearAttention& la) {
  const u64 h = x.h();
  const u64 kd = checked_mul(la.num_k_heads, la.k_head_dim), vd = checked_mul(la.num_v_heads, la.v_head_dim);
  if (x.m.model_type == "qwen3_next") {
    x.inv.linear(C::mixer, p + "in_proj_qkvz", 2 * kd + 2 * vd, h);
    x.inv.linear(C::mixer, p + "in_proj_ba", 2 * la.num_v_heads, h);
  } else {
    x.inv.linear(C::mixer, p + "in_proj_qkv", 2 * kd + vd, h);
    x.inv.linear(C::mixer, p + "in_proj_z", vd, h);
    x.inv.linear(C::mixer, p + "in_proj_b", la.num_v_heads, h);
    x.inv.linear(C::mixer, p + "in_proj_a", la.num_v_heads, h);
  }
  x.inv.add(C::mixer, K::vector, p + "conv1d.weight", 1, checked_mul(2 * kd + vd, la.conv_kernel));
  x.inv.vec(C::mixer, p + "dt_bias", la.num_v_heads);
  x.inv.vec(C::mixer, p + "A_log", la.num_v_heads);
  x.inv.norm(C::mixer, p + "norm", la.v_head_dim);
  x.inv.linear(C::mixer, p + "out_proj", h, vd);
}

void qwen_next_layer(const Ctx& x, std::size_t i, const std::string& p, bool attention_layer) {
  const auto& c = x.c;
  const u64 h = x.h();
  if (attention_layer) {
    AttnStyle as;
    as.qkv_bias = as.o_bias = c.boolean("attention_bias").value_or(false);
    as.qk_norm = true;
    as.gated_q = c.boolean("attn_output_gate").value_or(true);
    attention(x.inv, p + "self_attn.", h, x.heads(), x.attn(i), as);
  } else {
    gated_deltanet(x, p + "linear_attn.", std::get<LinearAttention>(x.m.layers[i].cache));
  }
  const u64 e = x.m.dims.num_experts;
  const u64 step = c.uint("decoder_sparse_step").value_or(1);
  if (e > 0 && !in_list(c.uint_list("mlp_only_layers"), i) && (step == 0 || (i + 1) % step == 0)) {
    MoeStyle ms;
    ms.prefix = p + "mlp.";
    ms.shared_i = c.uint("shared_expert_intermediate_size", true).value_or(0);
    ms.shared_gate = ms.shared_i > 0;
    moe_block(x, ms, e, top_k(x), x.m.dims.moe_intermediate_size);
  } else {
    gated_mlp(x.inv, C::mlp_dense, p + "mlp.", h, x.m.dims.intermediate_size);
  }
  x.inv.norm(C::norms, p + "input_layernorm", h);
  x.inv.norm(C::norms, p + "post_attention_layernorm", h);
}

void qwen_next(const Ctx& x) {
  const u64 h = x.h();
  std::size_t last_attention = 0;
  for (std::size_t i = 0; i < x.n(); ++i) {
    const bool attn = x.is_attention(i);
    if (attn) last_attention = i;
    qwen_next_layer(x, i, "model.layers.*.", attn);
  }
  x.inv.norm(C::norms, "model.norm", h);
  embeddings(x.inv, x.m);
  if (auto mtp = x.c.uint("mtp_num_hidden_layers", true); mtp && *mtp) {
    // Qwen3.5 MTP: fc (h x 2h), two pre-fc norms, decoder layer(s) with full attention, a norm;
    // the embedding and head are shared unless mtp_use_dedicated_embeddings.
    x.inv.mtp = true;
    const std::string p = "mtp.";
    x.inv.linear(C::other, p + "fc", h, 2 * h);
    x.inv.norm(C::norms, p + "pre_fc_norm_embedding", h);
    x.inv.norm(C::norms, p + "pre_fc_norm_hidden", h);
    for (u64 j = 0; j < *mtp; ++j) qwen_next_layer(x, last_attention, p + "layers.*.", true);
    x.inv.norm(C::norms, p + "norm", h);
    if (x.c.boolean("mtp_use_dedicated_embeddings").value_or(false))
      x.inv.add(C::embedding, K::embedding, p + "embed_tokens.weight", x.m.dims.vocab_size, h);
    x.inv.mtp = false;
    x.note(x.m.model_type + ": " + std::to_string(*mtp) + " MTP layer(s) counted in mtp (not in total)");
  }
  if (x.c.has_root("vision_config")) x.note(x.m.model_type + ": text model only; the vision encoder is not counted");
}

// MiniMax-Text-01 / M1: lightning-attention layers (qkv, output gate, out_proj, a norm over all
// heads) or softmax attention, every layer a Mixtral-style MoE.
void minimax(const Ctx& x) {
  const auto& c = x.c;
  const u64 h = x.h();
  const u64 e = x.m.dims.num_experts;
  const u64 shared = c.uint("shared_intermediate_size", true).value_or(0);
  for (std::size_t i = 0; i < x.n(); ++i) {
    const std::string p = "model.layers.*.";
    if (const auto* la = std::get_if<LinearAttention>(&x.m.layers[i].cache)) {
      const u64 inner = checked_mul(x.heads(), la->k_head_dim);
      x.inv.linear(C::mixer, p + "self_attn.qkv_proj", 3 * inner, h);
      x.inv.linear(C::mixer, p + "self_attn.output_gate", inner, h);
      x.inv.linear(C::mixer, p + "self_attn.out_proj", h, inner);
      x.inv.norm(C::mixer, p + "self_attn.norm", inner);
    } else {
      attention(x.inv, p + "self_attn.", h, x.heads(), x.attn(i), AttnStyle{});
    }
    MoeStyle ms;
    ms.prefix = p + "block_sparse_moe.";
    ms.w_gate = "w1";
    ms.w_down = "w2";
    ms.w_up = "w3";
    ms.shared_i = shared;
    moe_block(x, ms, e, top_k(x), x.m.dims.intermediate_size);
    x.inv.norm(C::norms, p + "input_layernorm", h);
    x.inv.norm(C::norms, p + "post_attention_layernorm", h);
  }
  x.inv.norm(C::norms, "model.norm", h);
  embeddings(x.inv, x.m);
  x.note(x.m.model_type + ": MiniMax's 45.9B active (M1) excludes the embedding and output head; kvplan's active "
                          "counts both");
}

// LFM2: gated short-convolution or GQA attention (with q/k layernorms), SwiGLU MLP whose width
// is auto-adjusted from block_ff_dim like transformers' Lfm2MLP.
void lfm2(const Ctx& x) {
  const auto& c = x.c;
  const u64 h = x.h();
  u64 ff = c.uint_any({"block_ff_dim", "intermediate_size"}).value_or(12288);
  if (c.boolean("block_auto_adjust_ff_dim").value_or(true)) {
    ff = 2 * ff / 3;
    if (auto mult = c.number("block_ffn_dim_multiplier")) ff = static_cast<u64>(*mult * static_cast<double>(ff));
    const u64 multiple = c.uint("block_multiple_of").value_or(256);
    ff = multiple * ceil_div(ff, multiple);
  }
  const bool conv_bias = c.boolean("conv_bias").value_or(false);
  for (std::size_t i = 0; i < x.n(); ++i) {
    const std::string p = "model.layers.*.";
    if (const auto* sc = std::get_if<ShortConv>(&x.m.layers[i].cache)) {
      x.inv.add(C::mixer, K::vector, p + "conv.conv.weight", 1, checked_mul(sc->channels, sc->conv_kernel));
      if (conv_bias) x.inv.vec(C::mixer, p + "conv.conv.bias", sc->channels);
      x.inv.linear(C::mixer, p + "conv.in_proj", 3 * sc->channels, h, conv_bias);
      x.inv.linear(C::mixer, p + "conv.out_proj", h, sc->channels, conv_bias);
    } else {
      AttnDims a = x.attn(i);
      x.inv.linear(C::attention, p + "self_attn.q_proj", x.heads() * a.k_dim, h);
      x.inv.linear(C::attention, p + "self_attn.k_proj", a.kv * a.k_dim, h);
      x.inv.linear(C::attention, p + "self_attn.v_proj", a.kv * a.v_dim, h);
      x.inv.linear(C::attention, p + "self_attn.out_proj", h, x.heads() * a.v_dim);
      x.inv.norm(C::attention, p + "self_attn.q_layernorm", a.k_dim);
      x.inv.norm(C::attention, p + "self_attn.k_layernorm", a.k_dim);
    }
    gated_mlp(x.inv, C::mlp_dense, p + "feed_forward.", h, ff, false, 1, kAll, "w1", "w3", "w2");
    x.inv.norm(C::norms, p + "operator_norm", h);
    x.inv.norm(C::norms, p + "ffn_norm", h);
  }
  x.inv.norm(C::norms, "model.embedding_norm", h);
  embeddings(x.inv, x.m);
}

// Families whose layers are plain attention but that kvplan has no weight rule for: the generic
// decoder (q/k/v/o without biases, SwiGLU MLP, two RMSNorms per layer) when the fields give it.
void generic_decoder(const Ctx& x) {
  const auto& d = x.m.dims;
  bool plain = d.hidden_size && d.num_attention_heads && d.vocab_size && d.intermediate_size && d.num_experts == 0;
  for (std::size_t i = 0; plain && i < x.n(); ++i) plain = x.is_attention(i);
  if (!plain) {
    x.note("model_type " + x.m.model_type +
           ": kvplan has no parameter rule for this family and the config does not determine a generic count; "
           "parameter counts left at 0");
    return;
  }
  llama_like(x);
  x.note("model_type " + x.m.model_type +
         ": no family rule; generic decoder estimate (q/k/v/o without biases, gated MLP of intermediate_size, two "
         "RMSNorms per layer, embedding" +
         std::string(d.tie_word_embeddings ? " tied" : " + lm_head") + ")");
}

using Counter = void (*)(const Ctx&);
const std::map<std::string, Counter>& counters() {
  static const std::map<std::string, Counter> m = {
      {"llama", llama_like},        {"mistral", llama_like},       {"mixtral", llama_like},
      {"qwen2", llama_like},        {"qwen2_moe", llama_like},     {"qwen3", llama_like},
      {"qwen3_moe", llama_like},    {"phi3", llama_like},          {"gemma2", llama_like},
      {"gemma3", llama_like},       {"gemma3_text", llama_like},   {"cohere2", llama_like},
      {"starcoder2", llama_like},   {"ministral", llama_like},     {"mistral3_text", llama_like},
      {"gemma", llama_like},        {"phi", phi},                  {"gpt_neox", gpt_neox},
      {"mamba2", mamba},            {"gpt2", gpt2_like},          {"gpt_bigcode", gpt2_like},    {"falcon", falcon},
      {"RefinedWeb", falcon},       {"RefinedWebModel", falcon},   {"phi-msft", phi_msft},
      {"gemma4", gemma4},           {"gemma4_text", gemma4},       {"llama4", llama4},
      {"llama4_text", llama4},      {"gpt_oss", gpt_oss},          {"deepseek_v2", deepseek},
      {"deepseek_v3", deepseek},    {"deepseek_v32", deepseek},    {"kimi_k2", deepseek},
      {"mamba", mamba},             {"jamba", jamba},              {"nemotron_h", nemotron_h},
      {"qwen3_next", qwen_next},    {"qwen3_5", qwen_next},        {"qwen3_5_moe", qwen_next},
      {"qwen3_5_text", qwen_next},  {"qwen3_5_moe_text", qwen_next}, {"minimax", minimax},
      {"minimax_m1", minimax},      {"minimax_text_01", minimax},  {"lfm2", lfm2},
  };
  return m;
}

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

void fill_parameters(const ConfigView& cfg, ModelSpec& m) {
  m.params = ParameterCounts{};
  read_quantization(cfg, m);
  Inventory inv;
  Ctx x{cfg, m, inv};
  try {
    if (auto it = counters().find(m.model_type); it != counters().end()) it->second(x);
    else generic_decoder(x);
  } catch (const Error& e) {
    // A count is never worth failing the load (the cache mapping already succeeded).
    m.params.tensors.clear();
    m.params.notes.push_back(std::string("parameter count unavailable: ") + e.what());
    return;
  }
  m.params.tensors = inv.take();
  sum_up(m);
}

}  // namespace kvplan::detail
