// Softmax attention layers: full, sliding window (ring buffer of `window` slots), chunked
// local (ring of `chunk` slots), shared-KV readers, and MLA (latent cache, absorbed decode).
#include <algorithm>
#include <numeric>

#include "internal.h"
#include "kvplan/checked.h"

namespace kvplan::runtime::detail {
namespace {

std::vector<std::int64_t> iota_positions(std::int64_t first, std::int64_t n) {
  std::vector<std::int64_t> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), first);
  return p;
}

std::vector<CMap> maps(const std::vector<Mat>& ms) {
  std::vector<CMap> out;
  for (const auto& m : ms) out.emplace_back(m.data(), m.rows(), m.cols());
  return out;
}

class AttentionMixer final : public Mixer {
 public:
  enum class Kind { full, sliding, chunked, shared };

  explicit AttentionMixer(const MixerArgs& a) : theta_(a.spec.dims.rope_theta) {
    const LayerCache* c = &a.cache;
    if (const auto* s = std::get_if<SharedKv>(c)) {
      kind_ = Kind::shared;
      source_ = s->source_layer;
      if (source_ >= a.layer) throw InputError::value("shared_kv source layer", std::to_string(source_), "an earlier layer");
      // The source layer's attention mixer (a hybrid layer holds one beside its SSM).
      const auto& src = a.spec.layers[source_].mixers;
      const auto it = std::find_if(src.begin(), src.end(), [](const LayerCache& x) { return std::holds_alternative<Attention>(x); });
      c = it != src.end() ? &*it : &src.front();
      if (!std::holds_alternative<Attention>(*c))
        throw InputError::value("shared_kv source layer", std::to_string(source_), "a full, sliding or chunked attention layer");
    }
    std::visit(
        [&](const auto& l) {
          using T = std::decay_t<decltype(l)>;
          if constexpr (std::is_same_v<T, Attention>) {
            kvh_ = static_cast<std::int64_t>(l.kv_heads);
            kd_ = static_cast<std::int64_t>(l.k_head_dim);
            vd_ = static_cast<std::int64_t>(l.v_head_dim);
            std::visit(overloaded{
                           [](const Attention::All&) {},
                           [&](const Attention::Window& w) {
                             if (kind_ != Kind::shared) kind_ = Kind::sliding;
                             mask_ = {Mask::Kind::sliding, static_cast<std::int64_t>(w.tokens)};
                           },
                           [&](const Attention::Chunk& k) {
                             if (kind_ != Kind::shared) kind_ = Kind::chunked;
                             mask_ = {Mask::Kind::chunked, static_cast<std::int64_t>(k.tokens)};
                           },
                       },
                       l.span);
          } else if constexpr (std::is_same_v<T, Mla> || std::is_same_v<T, Mamba1> || std::is_same_v<T, Mamba2> || std::is_same_v<T, LinearAttention> ||
                               std::is_same_v<T, ShortConv> || std::is_same_v<T, SharedKv> || std::is_same_v<T, NoCache>) {
            // not softmax attention: kvh_ stays 0 and the check below refuses it
          } else {
            static_assert(unhandled_kind<T>, "reference runtime: a layer kind the attention mixer does not handle");
          }
        },
        *c);
    if (kvh_ <= 0 || kd_ <= 0 || vd_ <= 0) throw InputError::value("attention layer", "0", "positive heads and head dims");
    if ((mask_.kind != Mask::Kind::causal) && mask_.span <= 0)
      throw InputError::value("attention window", "0", "a positive window / chunk");
    qh_ = static_cast<std::int64_t>(query_heads(a.spec, a.opt, static_cast<std::uint64_t>(kvh_)));
    const auto hidden = a.dims.hidden;
    const std::uint64_t rows = kind_ == Kind::shared ? qh_ * kd_ : qh_ * kd_ + kvh_ * (kd_ + vd_);
    W_ = random_weight(a.rng, rows, hidden);
    Wo_ = random_weight(a.rng, hidden, static_cast<std::uint64_t>(qh_ * vd_), 0.5f);
  }

  std::vector<Tensor> allocate(std::uint64_t capacity, const CacheDtypes& dt, const Options& o) const override {
    if (kind_ == Kind::shared) return {};
    std::uint64_t slots = capacity;
    if (kind_ != Kind::full) slots = std::min<std::uint64_t>(capacity, static_cast<std::uint64_t>(mask_.span));
    const auto kvh = static_cast<std::uint64_t>(kvh_);
    std::vector<Tensor> t;
    t.emplace_back("k", dt.k, std::vector<std::uint64_t>{1, kvh, slots, static_cast<std::uint64_t>(kd_)}, scale_for(dt.k, o));
    t.emplace_back("v", dt.v, std::vector<std::uint64_t>{1, kvh, slots, static_cast<std::uint64_t>(vd_)}, scale_for(dt.v, o));
    return t;
  }

  Mat forward(const Mat& Xn, std::int64_t pos0, std::vector<Tensor>& cache, Context& ctx, std::size_t layer) const override {
    Mat P = linear(Xn, W_);
    Mat Q = P.leftCols(qh_ * kd_);
    prepare(Q, qh_, pos0);
    if (kind_ == Kind::shared) return read_shared(Q, pos0, ctx);
    Mat K = P.middleCols(qh_ * kd_, kvh_ * kd_);
    prepare(K, kvh_, pos0);
    Mat V = P.rightCols(kvh_ * vd_);
    const std::int64_t T = Xn.rows();
    Tensor& tk = cache.at(0);
    Tensor& tv = cache.at(1);
    const std::int64_t slots = static_cast<std::int64_t>(tk.shape()[2]);
    auto a = std::make_shared<AssembledKv>();
    a->mask = mask_, a->kd = kd_, a->vd = vd_;
    std::vector<CMap> Km, Vm;
    if (kind_ == Kind::full) {
      if (pos0 + T > slots) capacity_exceeded(static_cast<std::uint64_t>(pos0 + T), static_cast<std::uint64_t>(slots));
      for (std::int64_t h = 0; h < kvh_; ++h)
        for (std::int64_t t = 0; t < T; ++t) {
          tk.write_row(h * slots + pos0 + t, K.row(t).data() + h * kd_);
          tv.write_row(h * slots + pos0 + t, V.row(t).data() + h * vd_);
        }
      const std::int64_t n = pos0 + T;
      a->kpos = iota_positions(0, n);
      if (tk.fp32_data() && tv.fp32_data() && !ctx.keep[layer]) {
        // fp32: attend straight over the cache buffers, no copy.
        for (std::int64_t h = 0; h < kvh_; ++h) {
          Km.emplace_back(tk.fp32_data() + h * slots * kd_, n, kd_);
          Vm.emplace_back(tv.fp32_data() + h * slots * vd_, n, vd_);
        }
      } else {
        for (std::int64_t h = 0; h < kvh_; ++h) {
          a->K.push_back(read_rows(tk, h * slots, n));
          a->V.push_back(read_rows(tv, h * slots, n));
        }
        Km = maps(a->K), Vm = maps(a->V);
      }
    } else {
      // Ring buffer: position p lives in slot p % slots. Read what is still held, add the new
      // rows exactly as the storage will hold them, then overwrite the oldest slots.
      const std::int64_t past = std::min(pos0, slots), first = pos0 - past;
      a->kpos = iota_positions(first, past + T);
      for (std::int64_t h = 0; h < kvh_; ++h) {
        Mat Kh(past + T, kd_), Vh(past + T, vd_);
        for (std::int64_t i = 0; i < past; ++i) {
          tk.read_row(h * slots + (first + i) % slots, Kh.row(i).data());
          tv.read_row(h * slots + (first + i) % slots, Vh.row(i).data());
        }
        for (std::int64_t t = 0; t < T; ++t) {
          tk.round_trip(K.row(t).data() + h * kd_, Kh.row(past + t).data());
          tv.round_trip(V.row(t).data() + h * vd_, Vh.row(past + t).data());
        }
        a->K.push_back(std::move(Kh));
        a->V.push_back(std::move(Vh));
      }
      for (std::int64_t t = std::max<std::int64_t>(0, T - slots); t < T; ++t)
        for (std::int64_t h = 0; h < kvh_; ++h) {
          tk.write_row(h * slots + (pos0 + t) % slots, K.row(t).data() + h * kd_);
          tv.write_row(h * slots + (pos0 + t) % slots, V.row(t).data() + h * vd_);
        }
      Km = maps(a->K), Vm = maps(a->V);
    }
    Mat O = attend(Q, qh_, kd_, vd_, Km, Vm, pos0, a->kpos, mask_, 1.0f / std::sqrt(static_cast<float>(kd_)));
    if (ctx.keep[layer]) ctx.kv[layer] = std::move(a);
    return linear(O, Wo_);
  }

  Mat reference(const Mat& Xn, Context& ctx, std::size_t layer) const override {
    Mat P = linear(Xn, W_);
    Mat Q = P.leftCols(qh_ * kd_);
    prepare(Q, qh_, 0);
    if (kind_ == Kind::shared) return read_shared(Q, 0, ctx);
    Mat K = P.middleCols(qh_ * kd_, kvh_ * kd_);
    prepare(K, kvh_, 0);
    Mat V = P.rightCols(kvh_ * vd_);
    auto a = std::make_shared<AssembledKv>();
    a->mask = mask_, a->kd = kd_, a->vd = vd_;
    a->kpos = iota_positions(0, Xn.rows());
    for (std::int64_t h = 0; h < kvh_; ++h) {
      a->K.push_back(K.middleCols(h * kd_, kd_));
      a->V.push_back(V.middleCols(h * vd_, vd_));
    }
    Mat O = attend(Q, qh_, kd_, vd_, maps(a->K), maps(a->V), 0, a->kpos, mask_, 1.0f / std::sqrt(static_cast<float>(kd_)));
    if (ctx.keep[layer]) ctx.kv[layer] = std::move(a);
    return linear(O, Wo_);
  }

  std::uint64_t weight_count() const override { return static_cast<std::uint64_t>(W_.size() + Wo_.size()); }

  static float scale_for(Dtype d, const Options& o) {
    switch (d) {
      case Dtype::fp8_e4m3:
      case Dtype::fp8_e5m2: return o.fp8_scale;
      case Dtype::int8: return o.int_amax / 127.0f;
      case Dtype::int4: return o.int_amax / 7.0f;
      default: return 1.0f;
    }
  }

 private:
  // Qwen3-style per-head RMSNorm, then RoPE over the whole head.
  void prepare(Mat& X, std::int64_t heads, std::int64_t pos0) const {
    rmsnorm_inplace(X, kd_);
    rope_inplace(X, 0, heads, kd_, kd_, pos0, theta_);
  }

  Mat read_shared(const Mat& Q, std::int64_t pos0, Context& ctx) const {
    const auto& src = ctx.kv.at(source_);
    if (!src) throw Error("shared_kv layer: the source layer's K/V were not kept");
    Mat O = attend(Q, qh_, kd_, vd_, maps(src->K), maps(src->V), pos0, src->kpos, src->mask,
                   1.0f / std::sqrt(static_cast<float>(kd_)));
    return linear(O, Wo_);
  }

  Kind kind_ = Kind::full;
  std::size_t source_ = 0;
  Mask mask_;
  std::int64_t kvh_ = 0, qh_ = 0, kd_ = 0, vd_ = 0;
  double theta_;
  Mat W_, Wo_;
};

// ---- MLA -------------------------------------------------------------------------------------

class MlaMixer final : public Mixer {
 public:
  explicit MlaMixer(const MixerArgs& a) : theta_(a.spec.dims.rope_theta), topk_(static_cast<std::int64_t>(a.opt.index_topk)) {
    const auto& m = std::get<Mla>(a.cache);
    r_ = static_cast<std::int64_t>(m.kv_lora_rank);
    dr_ = static_cast<std::int64_t>(m.rope_dim);
    di_ = static_cast<std::int64_t>(m.index_head_dim);
    H_ = static_cast<std::int64_t>(a.dims.mla_heads);
    dn_ = static_cast<std::int64_t>(a.spec.dims.mla_qk_nope_head_dim ? a.spec.dims.mla_qk_nope_head_dim : 128);
    dv_ = static_cast<std::int64_t>(a.spec.dims.mla_v_head_dim ? a.spec.dims.mla_v_head_dim : 128);
    if (r_ <= 0 || dr_ % 2 != 0) throw InputError::value("MLA dims", std::to_string(r_), "a positive kv_lora_rank and even rope dim");
    const auto hidden = a.dims.hidden;
    const auto ql = a.dims.mla_q_lora_rank;
    if (ql) {
      Wqa_ = random_weight(a.rng, ql, hidden);
      Wq_ = random_weight(a.rng, static_cast<std::uint64_t>(H_ * (dn_ + dr_)), ql);
    } else {
      Wq_ = random_weight(a.rng, static_cast<std::uint64_t>(H_ * (dn_ + dr_)), hidden);
    }
    Wkva_ = random_weight(a.rng, static_cast<std::uint64_t>(r_ + dr_), hidden);
    Wkvb_ = random_weight(a.rng, static_cast<std::uint64_t>(H_ * (dn_ + dv_)), static_cast<std::uint64_t>(r_));
    Wo_ = random_weight(a.rng, hidden, static_cast<std::uint64_t>(H_ * dv_), 0.5f);
    if (di_) {
      hi_ = static_cast<std::int64_t>(a.opt.index_heads);
      Wiq_ = random_weight(a.rng, static_cast<std::uint64_t>(hi_ * di_), hidden);
      Wik_ = random_weight(a.rng, static_cast<std::uint64_t>(di_), hidden);
      Wiw_ = random_weight(a.rng, static_cast<std::uint64_t>(hi_), hidden);
    }
  }

  std::vector<Tensor> allocate(std::uint64_t capacity, const CacheDtypes& dt, const Options& o) const override {
    std::vector<Tensor> t;
    // One row per token: the compressed latent followed by the shared rope key (vLLM's layout).
    t.emplace_back("kv_latent", dt.k, std::vector<std::uint64_t>{1, capacity, static_cast<std::uint64_t>(r_ + dr_)},
                   AttentionMixer::scale_for(dt.k, o));
    if (di_)
      t.emplace_back("indexer_k", dt.k, std::vector<std::uint64_t>{1, capacity, static_cast<std::uint64_t>(di_)},
                     AttentionMixer::scale_for(dt.k, o));
    return t;
  }

  // Absorbed: queries are mapped into the latent space (W_UK folded into q), attention runs
  // over the cached latent rows directly, and W_UV is applied after.
  Mat forward(const Mat& Xn, std::int64_t pos0, std::vector<Tensor>& cache, Context&, std::size_t) const override {
    const std::int64_t T = Xn.rows(), n = pos0 + T;
    Mat Q = queries(Xn, pos0);
    Mat L = latent(Xn, pos0);
    Tensor& tl = cache.at(0);
    const auto cap = static_cast<std::int64_t>(tl.shape()[1]);
    if (n > cap) capacity_exceeded(static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(cap));
    write_rows(tl, static_cast<std::uint64_t>(pos0), L);
    Mat owned;
    const float* cdata = tl.fp32_data();
    if (!cdata) owned = read_rows(tl, 0, static_cast<std::uint64_t>(n)), cdata = owned.data();
    CMap C(cdata, n, r_ + dr_);
    std::vector<std::uint8_t> allow;
    if (di_) {
      Tensor& ti = cache.at(1);
      write_rows(ti, static_cast<std::uint64_t>(pos0), linear(Xn, Wik_));
      allow = index_allow(Xn, read_rows(ti, 0, static_cast<std::uint64_t>(n)), pos0);
    }
    Mat Qa(T, H_ * (r_ + dr_));
    for (std::int64_t h = 0; h < H_; ++h) {
      Qa.middleCols(h * (r_ + dr_), r_).noalias() = Q.middleCols(h * (dn_ + dr_), dn_) * Wkvb_.middleRows(h * (dn_ + dv_), dn_);
      Qa.middleCols(h * (r_ + dr_) + r_, dr_) = Q.middleCols(h * (dn_ + dr_) + dn_, dr_);
    }
    std::vector<CMap> K{C};
    Mat Olat = attend(Qa, H_, r_ + dr_, r_ + dr_, K, K, pos0, iota_positions(0, n), Mask{}, scale(),
                      allow.empty() ? nullptr : &allow);
    Mat O(T, H_ * dv_);
    for (std::int64_t h = 0; h < H_; ++h)
      O.middleCols(h * dv_, dv_).noalias() =
          Olat.middleCols(h * (r_ + dr_), r_) * Wkvb_.middleRows(h * (dn_ + dv_) + dn_, dv_).transpose();
    return linear(O, Wo_);
  }

  // Naive: decompress the latent into per-head K (nope part + shared rope key) and V.
  Mat reference(const Mat& Xn, Context&, std::size_t) const override {
    const std::int64_t T = Xn.rows();
    Mat Q = queries(Xn, 0);
    Mat L = latent(Xn, 0);
    Mat KV = L.leftCols(r_) * Wkvb_.transpose();
    std::vector<Mat> K, V;
    for (std::int64_t h = 0; h < H_; ++h) {
      Mat k(T, dn_ + dr_);
      k.leftCols(dn_) = KV.middleCols(h * (dn_ + dv_), dn_);
      k.rightCols(dr_) = L.rightCols(dr_);
      K.push_back(std::move(k));
      V.push_back(KV.middleCols(h * (dn_ + dv_) + dn_, dv_));
    }
    std::vector<std::uint8_t> allow;
    if (di_) allow = index_allow(Xn, linear(Xn, Wik_), 0);
    Mat O = attend(Q, H_, dn_ + dr_, dv_, maps(K), maps(V), 0, iota_positions(0, T), Mask{}, scale(),
                   allow.empty() ? nullptr : &allow);
    return linear(O, Wo_);
  }

  std::uint64_t weight_count() const override {
    return static_cast<std::uint64_t>(Wqa_.size() + Wq_.size() + Wkva_.size() + Wkvb_.size() + Wo_.size() + Wiq_.size() +
                                      Wik_.size() + Wiw_.size());
  }

 private:
  float scale() const { return 1.0f / std::sqrt(static_cast<float>(dn_ + dr_)); }

  Mat queries(const Mat& Xn, std::int64_t pos0) const {
    Mat Q;
    if (Wqa_.size()) {
      Mat Qa = linear(Xn, Wqa_);
      rmsnorm_inplace(Qa);
      Q = linear(Qa, Wq_);
    } else {
      Q = linear(Xn, Wq_);
    }
    rope_inplace(Q, dn_, H_, dn_ + dr_, dr_, pos0, theta_);
    return Q;
  }

  Mat latent(const Mat& Xn, std::int64_t pos0) const {
    Mat L = linear(Xn, Wkva_);
    rmsnorm_inplace(L, 0, 0, r_);
    rope_inplace(L, r_, 1, dr_, dr_, pos0, theta_);
    return L;
  }

  // DeepSeek-V3.2 lightning indexer: score(t, s) = sum_j w_j(t) relu(q_j(t) . k(s)); each
  // query keeps its top-k earlier tokens. Empty when every query keeps everything.
  std::vector<std::uint8_t> index_allow(const Mat& Xn, const Mat& Kidx, std::int64_t pos0) const {
    const std::int64_t T = Xn.rows(), n = Kidx.rows();
    if (n <= topk_) return {};
    Mat Qi = linear(Xn, Wiq_), Wt = linear(Xn, Wiw_);
    std::vector<std::uint8_t> allow(static_cast<std::size_t>(T * n), 0);
    std::vector<std::pair<float, std::int64_t>> sc;
    for (std::int64_t t = 0; t < T; ++t) {
      const std::int64_t qp = pos0 + t;
      sc.clear();
      for (std::int64_t s = 0; s <= qp && s < n; ++s) {
        float v = 0;
        for (std::int64_t j = 0; j < hi_; ++j)
          v += Wt(t, j) * std::max(0.0f, Qi.row(t).segment(j * di_, di_).dot(Kidx.row(s)));
        sc.emplace_back(v, s);
      }
      const std::size_t keep = std::min<std::size_t>(sc.size(), static_cast<std::size_t>(topk_));
      std::partial_sort(sc.begin(), sc.begin() + static_cast<std::ptrdiff_t>(keep), sc.end(),
                        [](const auto& x, const auto& y) { return x.first > y.first || (x.first == y.first && x.second < y.second); });
      for (std::size_t i = 0; i < keep; ++i) allow[static_cast<std::size_t>(t * n + sc[i].second)] = 1;
    }
    return allow;
  }

  double theta_;
  std::int64_t topk_;
  std::int64_t H_ = 0, r_ = 0, dr_ = 0, dn_ = 0, dv_ = 0, di_ = 0, hi_ = 0;
  Mat Wqa_, Wq_, Wkva_, Wkvb_, Wo_, Wiq_, Wik_, Wiw_;
};

}  // namespace

std::unique_ptr<Mixer> make_attention(const MixerArgs& a) { return std::make_unique<AttentionMixer>(a); }
std::unique_ptr<Mixer> make_mla(const MixerArgs& a) { return std::make_unique<MlaMixer>(a); }

float storage_scale(Dtype d, const Options& o) { return AttentionMixer::scale_for(d, o); }

}  // namespace kvplan::runtime::detail
