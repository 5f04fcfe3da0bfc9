// Assembles the decoder: embedding, per layer (mixer + SwiGLU MLP, pre-RMSNorm, residual),
// final norm and LM head; allocates caches and runs forward passes.
#include <algorithm>
#include <utility>
#include <vector>

#include "internal.h"
#include "kvplan/checked.h"
#include "kvplan/report.h"

namespace kvplan::runtime {

using detail::Mat;

std::uint64_t Cache::bytes() const {
  std::uint64_t b = 0;
  for (const auto& l : layers_)
    for (const auto& t : l) b = checked_add(b, t.bytes(), "cache bytes");
  return b;
}

struct Model::Impl {
  ModelSpec spec;
  Options opt;
  RunDims dims;
  Mat embed, head;  // head empty when tied
  struct Block {
    // The layer's token mixers, run side by side on the same normalised input and summed
    // (Falcon-H1's parallel attention + Mamba-2); empty for an MLP-only layer.
    std::vector<std::shared_ptr<detail::Mixer>> mixers;
    std::vector<std::size_t> tensors;  // cache tensors each mixer allocates, in order
    Mat Wgu, Wd;
  };
  std::vector<Block> blocks;
  std::vector<bool> keep;
  std::uint64_t weights = 0;

  Mat mlp(const Mat& Xn, const Block& b) const {
    const Eigen::Index f = b.Wd.cols();
    Mat H = detail::linear(Xn, b.Wgu);
    Mat A = H.leftCols(f).unaryExpr([](float v) { return detail::silu(v); }).cwiseProduct(H.rightCols(f));
    return detail::linear(A, b.Wd);
  }

  Mat embed_rows(std::span<const std::int32_t> tokens) const {
    Mat X(static_cast<Eigen::Index>(tokens.size()), embed.cols());
    for (std::size_t t = 0; t < tokens.size(); ++t) {
      if (tokens[t] < 0 || static_cast<std::uint64_t>(tokens[t]) >= dims.vocab)
        throw InputError::value("token id", std::to_string(tokens[t]), "an id below the vocabulary size " + std::to_string(dims.vocab));
      X.row(static_cast<Eigen::Index>(t)) = embed.row(tokens[t]);
    }
    return X;
  }

  std::vector<float> logits(const Mat& X, bool all) const {
    Mat Xn = all ? detail::rmsnorm(X) : detail::rmsnorm(X.bottomRows(1));
    Mat L = detail::linear(Xn, head.size() ? head : embed);
    return std::vector<float>(L.data(), L.data() + L.size());
  }
};

namespace {
RunDims run_dims(const ModelSpec& s, const Options& o) {
  RunDims d;
  const auto& m = s.dims;
  if (o.scaled) {
    d.hidden = o.scaled_hidden, d.vocab = o.scaled_vocab, d.ffn = o.scaled_ffn;
    d.mla_heads = std::min<std::uint64_t>(std::max<std::uint64_t>(m.num_attention_heads, 1), o.scaled_mla_heads);
    d.mla_q_lora_rank = 0;
    d.tied_embeddings = true;
  } else {
    if (s.params.active > o.max_full_size_params)
      throw InputError::value("model", s.name,
                              "a model small enough for full-size mode (" + std::to_string(s.params.active) +
                                  " active parameters, limit " + std::to_string(o.max_full_size_params) +
                                  "); pass --scaled");
    d.hidden = m.hidden_size, d.vocab = m.vocab_size;
    d.ffn = m.intermediate_size;
    if (m.num_experts && m.moe_intermediate_size && m.experts_per_token)
      d.ffn = checked_mul(m.moe_intermediate_size, m.experts_per_token, "active FFN width");
    if (!d.ffn) d.ffn = checked_mul(4, d.hidden, "FFN width");
    d.mla_heads = m.num_attention_heads;
    d.mla_q_lora_rank = m.mla_q_lora_rank;
    d.tied_embeddings = m.tie_word_embeddings;
  }
  if (!d.hidden || !d.vocab)
    throw InputError::value("model dims", s.name, "a hidden size and vocabulary size (full-size mode); try --scaled");
  return d;
}
}  // namespace

Model::Model(ModelSpec spec, Options opt) : impl_(std::make_unique<Impl>()) {
  auto& m = *impl_;
  m.spec = std::move(spec);
  m.opt = opt;
  m.dims = run_dims(m.spec, m.opt);
  Eigen::setNbThreads(std::max(1, opt.threads));
  detail::Rng rng{opt.seed};
  m.embed = detail::random_weight(rng, m.dims.vocab, m.dims.hidden);
  m.embed *= std::sqrt(static_cast<float>(m.dims.hidden));  // unit-variance embeddings
  if (!m.dims.tied_embeddings) m.head = detail::random_weight(rng, m.dims.vocab, m.dims.hidden);
  const std::size_t L = m.spec.layers.size();
  m.keep.assign(L, false);
  for (const auto& l : m.spec.layers)
    for (const auto& c : l.mixers)
      if (const auto* s = std::get_if<SharedKv>(&c)) {
        if (s->source_layer >= L) throw InputError::value("shared_kv source layer", std::to_string(s->source_layer), "an existing layer");
        m.keep[s->source_layer] = true;
      }
  // Scaled mode: layers with identical cache specs share one set of mixer weights (the caches
  // stay one per layer); this keeps 60-layer models with wide states small and fast to build.
  std::vector<std::pair<LayerCache, std::shared_ptr<detail::Mixer>>> shared;
  for (std::size_t i = 0; i < L; ++i) {
    Impl::Block b;
    for (const auto& c : m.spec.layers[i].mixers) {
    detail::MixerArgs args{m.spec, m.opt, m.dims, i, rng, c};
    const bool none = std::holds_alternative<NoCache>(c);
    const bool share = m.opt.scaled && !std::holds_alternative<SharedKv>(c) && !none;
    const auto same = share ? std::find_if(shared.begin(), shared.end(), [&](const auto& e) { return e.first == c; })
                            : shared.end();
    if (same != shared.end()) {
      b.mixers.push_back(same->second);
    } else if (!none) {
      b.mixers.push_back(std::visit(
          [&](const auto& k) -> std::shared_ptr<detail::Mixer> {
            using T = std::decay_t<decltype(k)>;
            if constexpr (std::is_same_v<T, Mla>) return detail::make_mla(args);
            else if constexpr (std::is_same_v<T, Mamba1> || std::is_same_v<T, Mamba2> || std::is_same_v<T, LinearAttention> ||
                               std::is_same_v<T, ShortConv>)
              return detail::make_recurrent(args);
            else if constexpr (std::is_same_v<T, Attention> || std::is_same_v<T, SharedKv>)
              return detail::make_attention(args);
            else if constexpr (std::is_same_v<T, NoCache>) return nullptr;  // excluded above
            else static_assert(unhandled_kind<T>, "reference runtime: a layer kind without a mixer");
          },
          c));
      if (share) shared.emplace_back(c, b.mixers.back());
      m.weights = checked_add(m.weights, b.mixers.back()->weight_count(), "weights");
    }
    }
    // How many cache tensors each mixer allocates (a fixed count), to split a layer's tensors.
    if (b.mixers.size() > 1)
      for (const auto& mx : b.mixers) b.tensors.push_back(mx->allocate(1, CacheDtypes{}, m.opt).size());
    b.Wgu = detail::random_weight(rng, 2 * m.dims.ffn, m.dims.hidden);
    b.Wd = detail::random_weight(rng, m.dims.hidden, m.dims.ffn, 0.5f);
    m.weights = checked_add(m.weights, static_cast<std::uint64_t>(b.Wgu.size() + b.Wd.size()), "weights");
    m.blocks.push_back(std::move(b));
  }
  m.weights = checked_add(m.weights, static_cast<std::uint64_t>(m.embed.size() + m.head.size()), "weights");
}

Model::~Model() = default;
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;

const ModelSpec& Model::spec() const { return impl_->spec; }
const Options& Model::options() const { return impl_->opt; }
const RunDims& Model::dims() const { return impl_->dims; }
std::uint64_t Model::weight_count() const { return impl_->weights; }

Cache Model::allocate(std::uint64_t capacity, const CacheDtypes& dtypes) const {
  if (capacity == 0) throw InputError::value("tokens", "0", "a positive number of tokens");
  Cache c;
  c.capacity_ = capacity;
  c.dtypes_ = dtypes;
  for (const auto& b : impl_->blocks) {
    std::vector<Tensor> layer;  // every mixer's tensors, in mixer order
    for (const auto& mx : b.mixers)
      for (auto& x : mx->allocate(capacity, dtypes, impl_->opt)) layer.push_back(std::move(x));
    c.layers_.push_back(std::move(layer));
  }
  return c;
}

std::vector<float> Model::forward(std::span<const std::int32_t> tokens, Cache& cache, bool all_positions,
                                  ForwardStats* stats) const {
  const auto& m = *impl_;
  if (tokens.empty()) throw InputError::value("tokens", "0", "at least one token to run");
  if (cache.layers_.size() != m.blocks.size()) throw InputError::value("cache", "another model's cache", "a cache this model allocated");
  const std::uint64_t pos0 = cache.position_;
  const std::uint64_t end = checked_add(pos0, tokens.size(), "tokens");
  if (end > cache.capacity_) detail::capacity_exceeded(end, cache.capacity_);
  Mat X = m.embed_rows(tokens);
  detail::Context ctx{std::vector<std::shared_ptr<detail::AssembledKv>>(m.blocks.size()), m.keep};
  for (std::size_t i = 0; i < m.blocks.size(); ++i) {
    const auto& b = m.blocks[i];
    if (b.mixers.size() == 1) {
      X += b.mixers.front()->forward(detail::rmsnorm(X), static_cast<std::int64_t>(pos0), cache.layers_[i], ctx, i);
    } else if (!b.mixers.empty()) {
      // Parallel mixers: each runs on its own slice of the layer's tensors, outputs summed.
      const Mat Xn = detail::rmsnorm(X);
      auto& all = cache.layers_[i];
      std::size_t at = 0;
      for (std::size_t k = 0; k < b.mixers.size(); ++k) {
        const std::size_t n = b.tensors.at(k);
        std::vector<Tensor> part(std::make_move_iterator(all.begin() + static_cast<std::ptrdiff_t>(at)),
                                 std::make_move_iterator(all.begin() + static_cast<std::ptrdiff_t>(at + n)));
        X += b.mixers[k]->forward(Xn, static_cast<std::int64_t>(pos0), part, ctx, i);
        std::move(part.begin(), part.end(), all.begin() + static_cast<std::ptrdiff_t>(at));
        at += n;
      }
    }
    X += m.mlp(detail::rmsnorm(X), b);
  }
  cache.position_ = end;
  if (stats) stats->tokens_computed += tokens.size();
  return m.logits(X, all_positions);
}

std::vector<float> Model::reference(std::span<const std::int32_t> tokens) const {
  const auto& m = *impl_;
  if (tokens.empty()) throw InputError::value("tokens", "0", "at least one token to run");
  Mat X = m.embed_rows(tokens);
  detail::Context ctx{std::vector<std::shared_ptr<detail::AssembledKv>>(m.blocks.size()), m.keep};
  for (std::size_t i = 0; i < m.blocks.size(); ++i) {
    const auto& b = m.blocks[i];
    if (!b.mixers.empty()) {
      const Mat Xn = detail::rmsnorm(X);
      for (const auto& mx : b.mixers) X += mx->reference(Xn, ctx, i);
    }
    X += m.mlp(detail::rmsnorm(X), b);
  }
  return m.logits(X, true);
}

std::vector<std::int32_t> sample_tokens(std::uint64_t count, std::uint64_t vocab, std::uint64_t seed) {
  detail::Rng rng{seed};
  std::vector<std::int32_t> t(count);
  for (auto& v : t) v = static_cast<std::int32_t>(rng.next() % vocab);
  return t;
}

}  // namespace kvplan::runtime
