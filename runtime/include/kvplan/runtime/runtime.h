#pragma once
// kvplan's reference runtime: a decoder with seeded random weights built from a ModelSpec,
// that allocates the real cache tensors of every layer (K/V, MLA latents, recurrent state) in
// the requested storage dtype and runs prefill and decode through them. It exists to prove the
// core library's byte formulas against buffers that were actually allocated and used.
// This header is Eigen-free; the implementation links Eigen.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kvplan/layer.h"
#include "kvplan/model.h"
#include "kvplan/runtime/tensor.h"

namespace kvplan::runtime {

struct Options {
  // Scaled mode shrinks what no cache depends on (hidden size, vocabulary, FFN width, query
  // heads down to `max_query_group` per KV head, MLA query heads, Mamba dt rank) so any bundled
  // model runs in seconds; every cache dimension stays the spec's. Off = the model's real sizes.
  bool scaled = true;
  // Full-size mode builds fp32 weights for the active parameters; larger models must be scaled.
  std::uint64_t max_full_size_params = 3'000'000'000ull;
  std::uint64_t seed = 0x6b7670;
  std::uint64_t scaled_hidden = 64;
  std::uint64_t scaled_vocab = 256;
  std::uint64_t scaled_ffn = 128;
  std::uint64_t max_query_group = 2;
  std::uint64_t scaled_mla_heads = 2;
  // DeepSeek-V3.2's indexer keeps the top `index_topk` earlier tokens for each query (2048 in
  // its config); `index_heads` indexer query heads.
  std::uint64_t index_topk = 2048;
  std::uint64_t index_heads = 4;
  // Per-tensor scales of the 1-byte formats (stored = real / scale): fp8 uses vLLM's default
  // k_scale = v_scale = 1.0; int8/int4 map +-int_amax onto the integer range.
  float fp8_scale = 1.0f;
  float int_amax = 8.0f;
  // Threads for Eigen's GEMM (needs the runtime built with OpenMP); 1 in tests.
  int threads = 1;
};

// The sizes the runtime actually runs with.
struct RunDims {
  std::uint64_t hidden = 0, vocab = 0, ffn = 0, mla_heads = 0, mla_q_lora_rank = 0;
  bool tied_embeddings = false;
};

// Per-layer cache tensors of one sequence, allocated once for `capacity` tokens.
class Cache {
 public:
  std::uint64_t capacity() const { return capacity_; }
  std::uint64_t position() const { return position_; }  // tokens processed so far
  const CacheDtypes& dtypes() const { return dtypes_; }
  const std::vector<std::vector<Tensor>>& layers() const { return layers_; }
  std::vector<Tensor>& layer(std::size_t i) { return layers_.at(i); }
  std::uint64_t bytes() const;  // sum of every tensor's buffer bytes

 private:
  friend class Model;
  std::uint64_t capacity_ = 0, position_ = 0;
  CacheDtypes dtypes_;
  std::vector<std::vector<Tensor>> layers_;
};

// Tokens computed by one forward call (S13: with a cache a decode step computes 1 token).
struct ForwardStats {
  std::uint64_t tokens_computed = 0;
};

class Model {
 public:
  explicit Model(ModelSpec spec, Options opt = {});
  ~Model();
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;

  const ModelSpec& spec() const;
  const Options& options() const;
  const RunDims& dims() const;
  std::uint64_t weight_count() const;  // numbers in the weight matrices actually allocated

  // Allocates every layer's cache for a sequence of up to `capacity` tokens.
  Cache allocate(std::uint64_t capacity, const CacheDtypes& dtypes) const;

  // Runs `tokens` at positions cache.position() ... through the model, writing the cache.
  // Returns the logits of the last token (vocab numbers), or of every token (T x vocab,
  // row-major) when `all_positions`.
  std::vector<float> forward(std::span<const std::int32_t> tokens, Cache& cache, bool all_positions = false,
                             ForwardStats* stats = nullptr) const;

  // Without any cache: every token recomputed from scratch in fp32 (attention with masks over
  // freshly computed K/V, MLA through the decompressed per-head K/V, recurrent layers as a
  // full-sequence scan or its quadratic dual form). Logits of every token, T x vocab.
  std::vector<float> reference(std::span<const std::int32_t> tokens) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Deterministic token ids for tests and examples.
std::vector<std::int32_t> sample_tokens(std::uint64_t count, std::uint64_t vocab, std::uint64_t seed = 7);

}  // namespace kvplan::runtime
