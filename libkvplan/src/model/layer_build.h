#pragma once
// Internal: the only way family files make or inspect layer specs. Factories build one layer's
// cache spec; accessors answer "is this layer of that shape, and with which dimensions". Family
// files never name the LayerCache alternatives, so the layer model can change under them.
#include <cstdint>
#include <optional>
#include <variant>

#include "kvplan/checked.h"
#include "kvplan/layer.h"

namespace kvplan::detail::build {

using u64 = std::uint64_t;

inline LayerCache full_attention(u64 kv_heads, u64 k_dim, u64 v_dim) { return Attention{kv_heads, k_dim, v_dim, Attention::All{}}; }
inline LayerCache sliding_attention(u64 kv_heads, u64 k_dim, u64 v_dim, u64 window) {
  return Attention{kv_heads, k_dim, v_dim, Attention::Window{window}};
}
inline LayerCache chunked_attention(u64 kv_heads, u64 k_dim, u64 v_dim, u64 chunk) {
  return Attention{kv_heads, k_dim, v_dim, Attention::Chunk{chunk}};
}
// index_dim: the sparse-attention indexer's key width (0: no indexer).
inline LayerCache mla(u64 kv_lora_rank, u64 rope_dim, u64 index_dim = 0) { return Mla{kv_lora_rank, rope_dim, index_dim}; }
inline LayerCache mamba1(u64 d_inner, u64 d_state, u64 conv_kernel) { return Mamba1{d_inner, d_state, conv_kernel}; }
inline LayerCache mamba2(u64 n_heads, u64 head_dim, u64 n_groups, u64 d_state, u64 conv_kernel) {
  Mamba2 m{n_heads, head_dim, d_state, n_groups, conv_kernel};
  (void)m.d_inner();  // overflow is an error here, not later
  return m;
}
using LinearVariant = LinearAttention::Variant;
inline LayerCache linear_attention(LinearVariant v, u64 num_k_heads, u64 num_v_heads, u64 k_dim, u64 v_dim,
                                   u64 conv_kernel) {
  return LinearAttention{v, num_k_heads, num_v_heads, k_dim, v_dim, conv_kernel};
}
inline LayerCache short_conv(u64 channels, u64 conv_kernel) { return ShortConv{channels, conv_kernel}; }
inline LayerCache shared_kv(u64 source_layer) { return SharedKv{source_layer}; }
inline LayerCache none() { return NoCache{}; }

// ---- accessors -------------------------------------------------------------------------------

struct AttnDims {
  u64 kv = 0, k_dim = 0, v_dim = 0;
};
// K/V heads and dims of a softmax-attention layer (any span); nullopt for every other kind.
inline std::optional<AttnDims> attention_dims(const LayerCache& c) {
  if (auto* a = std::get_if<Attention>(&c)) return AttnDims{a->kv_heads, a->k_head_dim, a->v_head_dim};
  return std::nullopt;
}
inline bool is_sliding(const LayerCache& c) {
  auto* a = std::get_if<Attention>(&c);
  return a && std::holds_alternative<Attention::Window>(a->span);
}
inline std::optional<u64> shared_kv_source(const LayerCache& c) {
  if (auto* s = std::get_if<SharedKv>(&c)) return s->source_layer;
  return std::nullopt;
}

struct MlaDims {
  u64 kv_lora_rank = 0, rope_dim = 0, index_dim = 0;
};
inline std::optional<MlaDims> mla_dims(const LayerCache& c) {
  if (auto* m = std::get_if<Mla>(&c)) return MlaDims{m->kv_lora_rank, m->rope_dim, m->index_head_dim};
  return std::nullopt;
}

struct Mamba1Dims {
  u64 d_inner = 0, d_state = 0, conv_kernel = 0;
};
inline std::optional<Mamba1Dims> mamba1_dims(const LayerCache& c) {
  if (auto* m = std::get_if<Mamba1>(&c)) return Mamba1Dims{m->d_inner, m->d_state, m->conv_kernel};
  return std::nullopt;
}
struct Mamba2Dims {
  u64 n_heads = 0, head_dim = 0, n_groups = 0, d_state = 0, conv_kernel = 0;
  u64 d_inner() const { return checked_mul(n_heads, head_dim, "d_inner"); }
};
inline std::optional<Mamba2Dims> mamba2_dims(const LayerCache& c) {
  if (auto* m = std::get_if<Mamba2>(&c))
    return Mamba2Dims{m->n_heads, m->head_dim, m->n_groups, m->d_state, m->conv_kernel};
  return std::nullopt;
}

struct LinearDims {
  u64 num_k_heads = 0, num_v_heads = 0, k_dim = 0, v_dim = 0, conv_kernel = 0;
};
inline std::optional<LinearDims> linear_attention_dims(const LayerCache& c) {
  if (auto* l = std::get_if<LinearAttention>(&c))
    return LinearDims{l->num_k_heads, l->num_v_heads, l->k_head_dim, l->v_head_dim, l->conv_kernel};
  return std::nullopt;
}

struct ShortConvDims {
  u64 channels = 0, conv_kernel = 0;
};
inline std::optional<ShortConvDims> short_conv_dims(const LayerCache& c) {
  if (auto* s = std::get_if<ShortConv>(&c)) return ShortConvDims{s->channels, s->conv_kernel};
  return std::nullopt;
}

}  // namespace kvplan::detail::build
