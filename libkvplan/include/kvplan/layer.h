#pragma once
#include <cstdint>
#include <string_view>
#include <variant>
#include <vector>

#include "kvplan/dtype.h"

namespace kvplan {

// One small value type per kind of per-layer cache. Each answers "what does this layer hold
// for N tokens" through the free functions below; a new architecture is added by mapping its
// config onto these kinds, never by special cases further down the chain.

// Softmax attention: K and V rows per token for the tokens its span keeps. One type for full,
// sliding-window and chunked-local attention; only the span differs.
struct Attention {
  // Every earlier token (full attention).
  struct All {
    bool operator==(const All&) const = default;
  };
  // The last `tokens` tokens, the current one included (sliding window): holds min(N, tokens).
  struct Window {
    std::uint64_t tokens = 0;
    bool operator==(const Window&) const = default;
  };
  // Fixed chunks of `tokens` tokens (Llama 4's chunked local attention): a buffer of at most one chunk.
  struct Chunk {
    std::uint64_t tokens = 0;
    bool operator==(const Chunk&) const = default;
  };
  using Span = std::variant<All, Window, Chunk>;

  std::uint64_t kv_heads = 0;
  std::uint64_t k_head_dim = 0;
  std::uint64_t v_head_dim = 0;  // differs from k_head_dim in some models
  Span span = All{};
  bool operator==(const Attention&) const = default;
};

// Multi-head latent attention: one compressed latent plus the decoupled rope key per token,
// shared by all heads (no K/V factor 2). DeepSeek-V3.2's indexer adds its own key per token.
struct Mla {
  std::uint64_t kv_lora_rank = 0;
  std::uint64_t rope_dim = 0;
  std::uint64_t index_head_dim = 0;  // 0 when the model has no sparse-attention indexer
  bool operator==(const Mla&) const = default;
};

// Mamba-1 selective state space (transformers MambaMixer / JambaMambaMixer): a conv window over
// the d_inner channels and one (d_inner x d_state) SSM state per sequence.
struct Mamba1 {
  std::uint64_t d_inner = 0;        // expand * hidden
  std::uint64_t d_state = 0;
  std::uint64_t conv_kernel = 0;
  bool operator==(const Mamba1&) const = default;
};

// Mamba-2 (transformers Mamba2Mixer / NemotronHMamba2Mixer): a conv window over the heads'
// channels plus the B/C groups, and one (head_dim x d_state) SSM state per head.
struct Mamba2 {
  std::uint64_t n_heads = 0;
  std::uint64_t head_dim = 0;
  std::uint64_t d_state = 0;
  std::uint64_t n_groups = 0;       // B/C groups (replicated up to the TP degree)
  std::uint64_t conv_kernel = 0;
  std::uint64_t d_inner() const;    // n_heads * head_dim (checked)
  bool operator==(const Mamba2&) const = default;
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
  bool operator==(const LinearAttention&) const = default;
};

// A gated short convolution (LFM2): keeps the last conv_kernel - 1 inputs.
struct ShortConv {
  std::uint64_t channels = 0;
  std::uint64_t conv_kernel = 0;
  bool operator==(const ShortConv&) const = default;
};

// Reads the cache of an earlier layer (cross-layer KV sharing): holds nothing itself.
struct SharedKv {
  std::uint64_t source_layer = 0;
  bool operator==(const SharedKv&) const = default;
};

// A layer with no token cache or state (an MLP-only block).
struct NoCache {
  bool operator==(const NoCache&) const = default;
};

// Every kind compares by value (defaulted operator==), so a LayerCache does too: same kind and
// same fields.
using LayerCache = std::variant<Attention, Mla, Mamba1, Mamba2, LinearAttention, ShortConv, SharedKv, NoCache>;

// The interface's kind names: full_attention, sliding_attention, chunked_attention (Attention
// by its span), mla,
// mamba (Mamba-1 and Mamba-2), linear_attention, short_conv, shared_kv, none.
std::string_view kind_name(const LayerCache& c);

// One model layer: the token mixers of its block, each with its own cache. Almost every layer
// has one; Falcon-H1 runs attention and Mamba-2 side by side in every layer and Zamba2 adds a
// shared attention block to some of its Mamba-2 layers. An MLP-only block holds {NoCache}.
struct LayerSpec {
  std::uint64_t index = 0;
  std::vector<LayerCache> mixers;
  // The layer's one mixer (the common case); throws kvplan::Error when it has several, so code
  // written for one mixer cannot silently drop the others.
  const LayerCache& cache() const;
  bool operator==(const LayerSpec&) const = default;
};

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
// Tokens an attention span keeps when a sequence is `tokens` long.
std::uint64_t tokens_held(const Attention::Span& s, std::uint64_t tokens);
// The window or chunk length of a span; 0 for All.
std::uint64_t span_tokens(const Attention::Span& s);

// KV heads held per rank under tensor parallelism `tp`: heads split evenly, and when tp
// exceeds the head count each rank still keeps one (replicated) head.
std::uint64_t kv_heads_per_rank(std::uint64_t kv_heads, std::uint64_t tp);

// Exact bytes for one sequence of `tokens` tokens on one rank of a TP group of size `tp`.
LayerBytes layer_bytes(const LayerCache& c, std::uint64_t tokens, const CacheDtypes& dt,
                       std::uint64_t tp = 1);

// Bytes one more token adds while no window is full (0 for state-only kinds).
std::uint64_t bytes_per_token(const LayerCache& c, const CacheDtypes& dt, std::uint64_t tp = 1);

// ---- A whole layer: every mixer of it.
// The layer's kind in reports: its first mixer's kind (Falcon-H1: full_attention, then mamba).
std::string_view kind_name(const LayerSpec& l);
// Tokens the layer's token caches keep (the most any of its mixers keeps).
std::uint64_t tokens_held(const LayerSpec& l, std::uint64_t tokens);
// The sum of layer_bytes over the mixers (tokens_held: the most any mixer keeps).
LayerBytes layer_bytes(const LayerSpec& l, std::uint64_t tokens, const CacheDtypes& dt, std::uint64_t tp = 1);
// The sum of bytes_per_token over the mixers.
std::uint64_t bytes_per_token(const LayerSpec& l, const CacheDtypes& dt, std::uint64_t tp = 1);

// Shapes of the state tensors for one sequence on one rank (used by docs, runtime, engines).
struct StateShape {
  std::uint64_t conv_rows = 0, conv_cols = 0;          // (kernel-1, channels)
  std::uint64_t ssm_a = 0, ssm_b = 0, ssm_c = 0;       // e.g. (heads, head_dim, d_state)
};
StateShape state_shape(const LayerCache& c, std::uint64_t tp = 1);

// ---- The two cache formulas. kvplan's own sizing and every engine profile call these; an
// engine's quirks are arguments, never a second copy of the arithmetic.

// How an engine divides a K (or V) row over tensor-parallel ranks.
enum class HeadSplit {
  // Whole heads per rank, at least one (replicated when tp > heads): kvplan, vLLM, SGLang and
  // TensorRT-LLM's KVCacheManager pool (ceil(Hkv / tp) heads per rank).
  per_rank_heads,
  // One flat row of heads x head_dim values divided by tp, rounded down (TensorRT-LLM's
  // estimator `h * Hkv // tp`, which its KVCacheManager's pool does not follow when tp > Hkv);
  // with tp = 1 it is one row over all heads (llama.cpp's n_embd_k_gqa rows, which matter for
  // block-quantised cache types).
  flat_row,
};

struct AttentionRowBytes {
  std::uint64_t k_bytes = 0;
  std::uint64_t v_bytes = 0;
  std::uint64_t total_bytes() const;  // k + v (checked)
};

// Bytes of one token's K and V rows of a softmax-attention layer (any span), on one rank of a
// TP group of `tp`.
AttentionRowBytes attention_row_bytes(const Attention& a, Dtype k, Dtype v, std::uint64_t tp = 1,
                                      HeadSplit split = HeadSplit::per_rank_heads);

// Bytes of one token's MLA row (K only, no V): the latent plus the decoupled rope key, and the
// sparse-attention indexer's key when `with_indexer` and the layer has one.
std::uint64_t mla_row_bytes(const Mla& m, Dtype d, bool with_indexer = true);

struct StateBytes {
  std::uint64_t conv_bytes = 0;
  std::uint64_t ssm_bytes = 0;
  std::uint64_t total_bytes() const;  // conv + ssm (checked)
};

// An engine's way of storing recurrent state (Mamba, linear attention, short conv).
struct StateOptions {
  Dtype conv = Dtype::bf16;
  Dtype ssm = Dtype::bf16;
  std::uint64_t tp = 1;               // ranks the state is split over (Mamba-2 groups replicated up to tp)
  std::uint64_t extra_conv_rows = 0;  // vLLM: speculative tokens add conv rows
};

// Conv state and SSM / linear-attention state bytes of one sequence on one rank; zero for kinds
// that hold no recurrent state.
StateBytes state_bytes(const LayerCache& c, const StateOptions& o);

// For `if constexpr` chains in a generic visitor over LayerCache: the final `else` is
// `static_assert(unhandled_kind<T>)`, so a new kind fails to compile there.
template <class T>
inline constexpr bool unhandled_kind = false;

// std::visit(overloaded{[](const Attention&) {...}, [](const Mla&) {...}, ...}, cache): one
// lambda per kind and no `auto` arm, so a new kind fails to compile where it is not handled.
template <class... Ts>
struct overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
overloaded(Ts...) -> overloaded<Ts...>;

}  // namespace kvplan
