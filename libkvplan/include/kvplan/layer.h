#pragma once
#include <cstdint>
#include <string_view>
#include <variant>

#include "kvplan/dtype.h"

namespace kvplan {

// One small value type per kind of per-layer cache. Each answers "what does this layer hold
// for N tokens" through the free functions below; a new architecture is added by mapping its
// config onto these kinds, never by special cases further down the chain.

// Softmax attention over every earlier token: K and V rows per token.
struct FullAttention {
  std::uint64_t kv_heads = 0;
  std::uint64_t k_head_dim = 0;
  std::uint64_t v_head_dim = 0;  // differs from k_head_dim in some models
};

// Attention over the last `window` tokens (the current one included): holds min(N, window).
struct SlidingAttention {
  std::uint64_t kv_heads = 0;
  std::uint64_t k_head_dim = 0;
  std::uint64_t v_head_dim = 0;
  std::uint64_t window = 0;
};

// Attention inside fixed chunks of `chunk` tokens (Llama 4): a buffer of at most one chunk.
struct ChunkedAttention {
  std::uint64_t kv_heads = 0;
  std::uint64_t k_head_dim = 0;
  std::uint64_t v_head_dim = 0;
  std::uint64_t chunk = 0;
};

// Multi-head latent attention: one compressed latent plus the decoupled rope key per token,
// shared by all heads (no K/V factor 2). DeepSeek-V3.2's indexer adds its own key per token.
struct Mla {
  std::uint64_t kv_lora_rank = 0;
  std::uint64_t rope_dim = 0;
  std::uint64_t index_head_dim = 0;  // 0 when the model has no sparse-attention indexer
};

// Selective state space (Mamba-1 / Mamba-2): a conv window and an SSM state per sequence.
struct Mamba {
  int version = 2;                  // 1 or 2
  std::uint64_t d_inner = 0;        // expand * hidden (Mamba-2: n_heads * head_dim)
  std::uint64_t d_state = 0;
  std::uint64_t n_groups = 0;       // Mamba-2 B/C groups; 0 for Mamba-1
  std::uint64_t n_heads = 0;        // Mamba-2 heads; 0 for Mamba-1
  std::uint64_t head_dim = 0;       // Mamba-2 head dim; 0 for Mamba-1
  std::uint64_t conv_kernel = 0;
};

// Linear attention with a constant-size matrix state per head.
struct LinearAttention {
  enum class Variant { gated_delta_net, lightning, kda };
  Variant variant = Variant::gated_delta_net;
  std::uint64_t num_k_heads = 0;
  std::uint64_t num_v_heads = 0;
  std::uint64_t k_head_dim = 0;
  std::uint64_t v_head_dim = 0;
  std::uint64_t conv_kernel = 0;    // 0: no short convolution (lightning)
};

// A gated short convolution (LFM2): keeps the last conv_kernel - 1 inputs.
struct ShortConv {
  std::uint64_t channels = 0;
  std::uint64_t conv_kernel = 0;
};

// Reads the cache of an earlier layer (cross-layer KV sharing): holds nothing itself.
struct SharedKv {
  std::uint64_t source_layer = 0;
};

// A layer with no token cache or state (an MLP-only block).
struct NoCache {};

using LayerCache = std::variant<FullAttention, SlidingAttention, ChunkedAttention, Mla, Mamba,
                                LinearAttention, ShortConv, SharedKv, NoCache>;

// The interface's kind names: full_attention, sliding_attention, chunked_attention, mla,
// mamba, linear_attention, short_conv, shared_kv, none.
std::string_view kind_name(const LayerCache& c);

// How elements are stored. `conv` and `ssm` apply to recurrent state.
struct CacheDtypes {
  Dtype k = Dtype::bf16;
  Dtype v = Dtype::bf16;
  Dtype conv = Dtype::bf16;
  Dtype ssm = Dtype::bf16;
};

// Bytes one layer holds for ONE sequence, on one tensor-parallel rank.
struct LayerBytes {
  std::uint64_t k_bytes = 0;      // K (or MLA latent+rope, incl. indexer keys)
  std::uint64_t v_bytes = 0;
  std::uint64_t conv_bytes = 0;   // recurrent conv state
  std::uint64_t ssm_bytes = 0;    // recurrent matrix/SSM state
  std::uint64_t tokens_held = 0;  // tokens in the token cache (0 for state-only kinds)
  std::uint64_t kv_bytes() const;     // k + v (checked)
  std::uint64_t state_bytes() const;  // conv + ssm (checked)
  std::uint64_t total_bytes() const;
};

// Tokens the layer keeps when a sequence is `tokens` long.
std::uint64_t tokens_held(const LayerCache& c, std::uint64_t tokens);

// KV heads held per rank under tensor parallelism `tp`: heads split evenly, and when tp
// exceeds the head count each rank still keeps one (replicated) head.
std::uint64_t kv_heads_per_rank(std::uint64_t kv_heads, std::uint64_t tp);

// Exact bytes for one sequence of `tokens` tokens on one rank of a TP group of size `tp`.
LayerBytes layer_bytes(const LayerCache& c, std::uint64_t tokens, const CacheDtypes& dt,
                       std::uint64_t tp = 1);

// Bytes one more token adds while no window is full (0 for state-only kinds).
std::uint64_t bytes_per_token(const LayerCache& c, const CacheDtypes& dt, std::uint64_t tp = 1);

// Shapes of the state tensors for one sequence on one rank (used by docs, runtime, engines).
struct StateShape {
  std::uint64_t conv_rows = 0, conv_cols = 0;          // (kernel-1, channels)
  std::uint64_t ssm_a = 0, ssm_b = 0, ssm_c = 0;       // e.g. (heads, head_dim, d_state)
};
StateShape state_shape(const LayerCache& c, std::uint64_t tp = 1);

}  // namespace kvplan
