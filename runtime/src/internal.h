#pragma once
// Eigen-side internals of the reference runtime: the layer mixers and shared math.
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include "kvplan/error.h"
#include "kvplan/runtime/runtime.h"

namespace kvplan::runtime::detail {

using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using CMap = Eigen::Map<const Mat>;

// splitmix64: seeded, fast, reproducible across platforms.
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  float uniform() { return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f); }  // [0, 1)
  float symmetric(float a) { return (2.0f * uniform() - 1.0f) * a; }
};

// Weights [out, in], row-major like PyTorch's nn.Linear, uniform with unit output variance.
Mat random_weight(Rng& rng, std::uint64_t out, std::uint64_t in, float gain = 1.0f);

// Y = X W^T. Eigen's GEMM threads the matrix-matrix case; a few rows (decode) are a GEMV,
// which Eigen runs on one thread, so its rows of W are split across the threads here.
Mat linear(const Mat& X, const Mat& W);

// RMSNorm (weight 1) of each row, in groups of `group` columns (per head); group 0 = whole row.
void rmsnorm_inplace(Mat& X, Eigen::Index group = 0, Eigen::Index col0 = 0, Eigen::Index cols = -1);
Mat rmsnorm(const Mat& X);
// NeoX-style RoPE on `heads` blocks of `dim` columns starting at col0 with stride `stride`;
// row t is at position pos0 + t.
void rope_inplace(Mat& X, Eigen::Index col0, Eigen::Index heads, Eigen::Index stride, Eigen::Index dim,
                  std::int64_t pos0, double theta);

inline float silu(float x) { return x / (1.0f + std::exp(-x)); }
inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
inline float softplus(float x) { return x > 20.0f ? x : std::log1p(std::exp(x)); }

// Which earlier positions a query sees.
struct Mask {
  enum class Kind { causal, sliding, chunked } kind = Kind::causal;
  std::int64_t span = 0;  // window or chunk
  bool visible(std::int64_t q, std::int64_t k) const {
    if (k > q) return false;
    if (kind == Kind::sliding) return q - k < span;
    if (kind == Kind::chunked) return q / span == k / span;
    return true;
  }
};

// Softmax attention: Q [T, q_heads*kd]; K[h] [n, kd], V[h] [n, vd] per KV head; query heads
// grouped over KV heads (GQA). `allow` (T x n, optional) further restricts visibility.
// Returns [T, q_heads*vd].
Mat attend(const Mat& Q, std::int64_t q_heads, std::int64_t kd, std::int64_t vd, const std::vector<CMap>& K,
           const std::vector<CMap>& V, std::int64_t q_pos0, const std::vector<std::int64_t>& kpos, const Mask& mask,
           float scale, const std::vector<std::uint8_t>* allow = nullptr);

// K/V of an attention layer as assembled for one forward call, kept for shared-KV readers.
struct AssembledKv {
  std::vector<Mat> K, V;
  std::vector<std::int64_t> kpos;
  Mask mask;
  std::int64_t kd = 0, vd = 0;
};

struct Context {
  std::vector<std::shared_ptr<AssembledKv>> kv;  // per layer, when a later layer shares it
  std::vector<bool> keep;                        // layer i's K/V is read by a shared layer
};

class Mixer {
 public:
  virtual ~Mixer() = default;
  virtual std::vector<Tensor> allocate(std::uint64_t capacity, const CacheDtypes& dt, const Options& o) const = 0;
  // Xn: normalised input rows [T, hidden] at positions pos0...; cache: this layer's tensors.
  virtual Mat forward(const Mat& Xn, std::int64_t pos0, std::vector<Tensor>& cache, Context& ctx,
                      std::size_t layer) const = 0;
  virtual Mat reference(const Mat& Xn, Context& ctx, std::size_t layer) const = 0;
  virtual std::uint64_t weight_count() const = 0;
};

struct MixerArgs {
  const ModelSpec& spec;
  const Options& opt;
  const RunDims& dims;
  std::size_t layer;
  Rng& rng;
  const LayerCache& cache;  // the mixer to build: one of spec.layers[layer].mixers
};

std::unique_ptr<Mixer> make_attention(const MixerArgs& a);  // full, sliding, chunked, shared_kv
std::unique_ptr<Mixer> make_mla(const MixerArgs& a);
std::unique_ptr<Mixer> make_recurrent(const MixerArgs& a);  // mamba, linear_attention, short_conv

// Query heads an attention layer runs with (exact, or scaled down to max_query_group per KV head).
std::uint64_t query_heads(const ModelSpec& spec, const Options& opt, std::uint64_t kv_heads);

// Reads rows [first, first+count) of a tensor into a matrix (dequantised).
Mat read_rows(const Tensor& t, std::uint64_t first, std::uint64_t count);
void write_rows(Tensor& t, std::uint64_t first, const Mat& rows);

// Per-tensor scale the runtime uses for a storage dtype (fp8/int8/int4), 1 otherwise.
float storage_scale(Dtype d, const Options& o);

[[noreturn]] void capacity_exceeded(std::uint64_t needed, std::uint64_t capacity);

}  // namespace kvplan::runtime::detail
