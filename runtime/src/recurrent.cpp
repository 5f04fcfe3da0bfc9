// Constant-size state layers: Mamba-1/2 selective state space, linear attention (Gated
// DeltaNet, Lightning, KDA) and LFM2's short convolution. The cached path reads the state
// tensors at the start of a call, scans the new tokens in fp32 and writes the state back in
// its storage dtype; the reference path scans the whole sequence from a zero state (Mamba and
// Lightning through their quadratic "dual" form, which never forms a state at all).
#include <algorithm>

#include "internal.h"
#include "kvplan/checked.h"

namespace kvplan::runtime::detail {
namespace {

using Vec = Eigen::VectorXf;
using Idx = Eigen::Index;

Vec random_vec(Rng& rng, Idx n, float lo, float hi) {
  Vec v(n);
  for (Idx i = 0; i < n; ++i) v[i] = lo + (hi - lo) * rng.uniform();
  return v;
}

// Depthwise causal convolution: Ext = [K-1 earlier rows; T new rows] x channels, w = [ch, K].
Mat causal_conv(const Mat& Ext, const Mat& w, const Vec* bias) {
  const Idx K = w.cols(), T = Ext.rows() - (K - 1);
  Mat Y(T, Ext.cols());
  for (Idx t = 0; t < T; ++t) {
    auto y = Y.row(t);
    if (bias) y = bias->transpose();
    else y.setZero();
    for (Idx k = 0; k < K; ++k) y.array() += w.col(k).transpose().array() * Ext.row(t + k).array();
  }
  return Y;
}

void silu_inplace(Mat& X) { X = X.unaryExpr([](float v) { return silu(v); }); }

// Conv window: the state rows (zeros for a fresh sequence) followed by the new inputs.
Mat conv_window(const Tensor* state, Idx K, const Mat& U, bool fresh) {
  Mat Ext(K - 1 + U.rows(), U.cols());
  if (K > 1) {
    if (fresh || !state) Ext.topRows(K - 1).setZero();
    else Ext.topRows(K - 1) = read_rows(*state, 0, static_cast<std::uint64_t>(K - 1));
  }
  Ext.bottomRows(U.rows()) = U;
  return Ext;
}

Mat load_state(const Tensor& t, bool fresh) {
  if (fresh) return Mat::Zero(static_cast<Idx>(t.rows()), static_cast<Idx>(t.row_len()));
  return read_rows(t, 0, t.rows());
}

std::vector<std::uint64_t> dims(std::initializer_list<std::int64_t> d) {
  std::vector<std::uint64_t> out;
  for (auto v : d) out.push_back(static_cast<std::uint64_t>(v));
  return out;
}

// ---- Mamba-1 ---------------------------------------------------------------------------------
class Mamba1Mixer final : public Mixer {
 public:
  Mamba1Mixer(const MixerArgs& a, const Mamba1& m)
      : di_(static_cast<Idx>(m.d_inner)), N_(static_cast<Idx>(m.d_state)), K_(static_cast<Idx>(m.conv_kernel)) {
    const auto hidden = a.dims.hidden;
    R_ = static_cast<Idx>(ceil_div(hidden, 16));
    Win_ = random_weight(a.rng, 2 * di_, hidden);
    convw_ = random_weight(a.rng, di_, K_);
    convb_ = random_vec(a.rng, di_, -0.1f, 0.1f);
    Wx_ = random_weight(a.rng, R_ + 2 * N_, di_);
    Wdt_ = random_weight(a.rng, di_, R_, 0.1f);
    dtb_ = random_vec(a.rng, di_, -4.6f, -2.3f);  // softplus^-1 of dt in ~[0.01, 0.1]
    A_ = Mat(di_, N_);
    for (Idx i = 0; i < di_; ++i)
      for (Idx n = 0; n < N_; ++n) A_(i, n) = -static_cast<float>(n + 1);  // S4D-real init
    D_ = Vec::Ones(di_);
    Wout_ = random_weight(a.rng, hidden, di_, 0.5f);
  }
  std::vector<Tensor> allocate(std::uint64_t, const CacheDtypes& dt, const Options& o) const override {
    std::vector<Tensor> t;
    t.emplace_back("conv_state", dt.conv, dims({1, K_ - 1, di_}), storage_scale(dt.conv, o));
    t.emplace_back("ssm_state", dt.ssm, dims({1, di_, 1, N_}), storage_scale(dt.ssm, o));
    return t;
  }
  struct Pre {
    Mat U, Z, dt, B, C;
  };
  Pre prepare(const Mat& Xn, const Tensor* conv, bool fresh, Tensor* conv_out) const {
    Mat XZ = linear(Xn, Win_);
    Mat Ext = conv_window(conv, K_, XZ.leftCols(di_), fresh);
    if (conv_out) write_rows(*conv_out, 0, Ext.bottomRows(K_ - 1));
    Pre p;
    p.U = causal_conv(Ext, convw_, &convb_);
    silu_inplace(p.U);
    p.Z = XZ.rightCols(di_);
    Mat DBC = linear(p.U, Wx_);
    p.dt = DBC.leftCols(R_) * Wdt_.transpose();
    for (Idx t = 0; t < p.dt.rows(); ++t)
      for (Idx i = 0; i < di_; ++i) p.dt(t, i) = softplus(p.dt(t, i) + dtb_[i]);
    p.B = DBC.middleCols(R_, N_);
    p.C = DBC.rightCols(N_);
    return p;
  }
  Mat finish(const Pre& p, Mat Y) const {
    for (Idx t = 0; t < Y.rows(); ++t)
      for (Idx i = 0; i < di_; ++i) Y(t, i) = (Y(t, i) + D_[i] * p.U(t, i)) * silu(p.Z(t, i));
    return linear(Y, Wout_);
  }
  Mat forward(const Mat& Xn, std::int64_t pos0, std::vector<Tensor>& cache, Context&, std::size_t) const override {
    const bool fresh = pos0 == 0;
    Pre p = prepare(Xn, &cache[0], fresh, &cache[0]);
    Mat h = load_state(cache[1], fresh);  // [di, N]
    Mat Y(Xn.rows(), di_);
    for (Idx t = 0; t < Xn.rows(); ++t)
      for (Idx i = 0; i < di_; ++i) {
        const float d = p.dt(t, i), du = d * p.U(t, i);
        float y = 0;
        for (Idx n = 0; n < N_; ++n) {
          h(i, n) = std::exp(d * A_(i, n)) * h(i, n) + du * p.B(t, n);
          y += p.C(t, n) * h(i, n);
        }
        Y(t, i) = y;
      }
    write_rows(cache[1], 0, h);
    return finish(p, std::move(Y));
  }
  // Dual form: y_t = sum_{s<=t} sum_n C_t B_s exp(A (cum_t - cum_s)) dt_s u_s.
  Mat reference(const Mat& Xn, Context&, std::size_t) const override {
    Pre p = prepare(Xn, nullptr, true, nullptr);
    const Idx T = Xn.rows();
    Mat cum(T, di_);
    for (Idx t = 0; t < T; ++t) {
      cum.row(t) = p.dt.row(t);
      if (t) cum.row(t) += cum.row(t - 1);
    }
    Mat Y = Mat::Zero(T, di_);
    for (Idx t = 0; t < T; ++t)
      for (Idx s = 0; s <= t; ++s)
        for (Idx i = 0; i < di_; ++i) {
          const float gap = cum(t, i) - cum(s, i), w = p.dt(s, i) * p.U(s, i);
          float acc = 0;
          for (Idx n = 0; n < N_; ++n) acc += p.C(t, n) * p.B(s, n) * std::exp(A_(i, n) * gap);
          Y(t, i) += acc * w;
        }
    return finish(p, std::move(Y));
  }
  std::uint64_t weight_count() const override {
    return static_cast<std::uint64_t>(Win_.size() + convw_.size() + Wx_.size() + Wdt_.size() + A_.size() + Wout_.size());
  }

 private:
  Idx di_, N_, K_, R_;
  Mat Win_, convw_, Wx_, Wdt_, A_, Wout_;
  Vec convb_, dtb_, D_;
};

// ---- Mamba-2 ---------------------------------------------------------------------------------
class Mamba2Mixer final : public Mixer {
 public:
  Mamba2Mixer(const MixerArgs& a, const Mamba2& m)
      : H_(static_cast<Idx>(m.n_heads)), P_(static_cast<Idx>(m.head_dim)), G_(static_cast<Idx>(m.n_groups)),
        N_(static_cast<Idx>(m.d_state)), K_(static_cast<Idx>(m.conv_kernel)) {
    if (H_ <= 0 || G_ <= 0 || H_ % G_) throw InputError::value("Mamba-2 groups", std::to_string(G_), "a divisor of the heads");
    di_ = H_ * P_;
    cd_ = di_ + 2 * G_ * N_;
    const auto hidden = a.dims.hidden;
    Win_ = random_weight(a.rng, di_ + cd_ + H_, hidden);
    convw_ = random_weight(a.rng, cd_, K_);
    convb_ = random_vec(a.rng, cd_, -0.1f, 0.1f);
    dtb_ = random_vec(a.rng, H_, -4.6f, -2.3f);
    A_ = -random_vec(a.rng, H_, 1.0f, 16.0f);
    D_ = Vec::Ones(H_);
    Wout_ = random_weight(a.rng, hidden, di_, 0.5f);
  }
  std::vector<Tensor> allocate(std::uint64_t, const CacheDtypes& dt, const Options& o) const override {
    std::vector<Tensor> t;
    t.emplace_back("conv_state", dt.conv, dims({1, K_ - 1, cd_}), storage_scale(dt.conv, o));
    t.emplace_back("ssm_state", dt.ssm, dims({1, H_, P_, N_}), storage_scale(dt.ssm, o));
    return t;
  }
  struct Pre {
    Mat X, B, C, Z, dt;
  };
  Pre prepare(const Mat& Xn, const Tensor* conv, bool fresh, Tensor* conv_out) const {
    Mat P = linear(Xn, Win_);
    Mat Ext = conv_window(conv, K_, P.middleCols(di_, cd_), fresh);
    if (conv_out) write_rows(*conv_out, 0, Ext.bottomRows(K_ - 1));
    Mat Cv = causal_conv(Ext, convw_, &convb_);
    silu_inplace(Cv);
    Pre p{Cv.leftCols(di_), Cv.middleCols(di_, G_ * N_), Cv.rightCols(G_ * N_), P.leftCols(di_), P.rightCols(H_)};
    for (Idx t = 0; t < p.dt.rows(); ++t)
      for (Idx h = 0; h < H_; ++h) p.dt(t, h) = softplus(p.dt(t, h) + dtb_[h]);
    return p;
  }
  Mat finish(const Pre& p, Mat Y) const {
    for (Idx t = 0; t < Y.rows(); ++t)
      for (Idx h = 0; h < H_; ++h)
        for (Idx j = 0; j < P_; ++j) Y(t, h * P_ + j) = (Y(t, h * P_ + j) + D_[h] * p.X(t, h * P_ + j)) * silu(p.Z(t, h * P_ + j));
    rmsnorm_inplace(Y);
    return linear(Y, Wout_);
  }
  Mat forward(const Mat& Xn, std::int64_t pos0, std::vector<Tensor>& cache, Context&, std::size_t) const override {
    const bool fresh = pos0 == 0;
    Pre p = prepare(Xn, &cache[0], fresh, &cache[0]);
    Mat S = load_state(cache[1], fresh);  // [H*P, N]
    Mat Y(Xn.rows(), di_);
    const Idx per = H_ / G_;
    for (Idx t = 0; t < Xn.rows(); ++t)
      for (Idx h = 0; h < H_; ++h) {
        const Idx g = h / per;
        const float d = p.dt(t, h), decay = std::exp(d * A_[h]);
        auto Sh = S.middleRows(h * P_, P_);
        auto x = p.X.row(t).segment(h * P_, P_);
        Sh = decay * Sh + d * x.transpose() * p.B.row(t).segment(g * N_, N_);
        Y.row(t).segment(h * P_, P_) = (Sh * p.C.row(t).segment(g * N_, N_).transpose()).transpose();
      }
    write_rows(cache[1], 0, S);
    return finish(p, std::move(Y));
  }
  // SSD dual form: y_t = sum_{s<=t} (C_t . B_s) exp(A (cum_t - cum_s)) dt_s x_s.
  Mat reference(const Mat& Xn, Context&, std::size_t) const override {
    Pre p = prepare(Xn, nullptr, true, nullptr);
    const Idx T = Xn.rows(), per = H_ / G_;
    Mat Y = Mat::Zero(T, di_);
    for (Idx h = 0; h < H_; ++h) {
      const Idx g = h / per;
      std::vector<float> cum(static_cast<std::size_t>(T));
      for (Idx t = 0; t < T; ++t) cum[t] = p.dt(t, h) + (t ? cum[t - 1] : 0.0f);
      for (Idx t = 0; t < T; ++t)
        for (Idx s = 0; s <= t; ++s) {
          const float cb = p.C.row(t).segment(g * N_, N_).dot(p.B.row(s).segment(g * N_, N_));
          const float w = cb * std::exp(A_[h] * (cum[t] - cum[s])) * p.dt(s, h);
          Y.row(t).segment(h * P_, P_) += w * p.X.row(s).segment(h * P_, P_);
        }
    }
    return finish(p, std::move(Y));
  }
  std::uint64_t weight_count() const override { return static_cast<std::uint64_t>(Win_.size() + convw_.size() + Wout_.size()); }

 private:
  Idx H_, P_, G_, N_, K_, di_ = 0, cd_ = 0;
  Mat Win_, convw_, Wout_;
  Vec convb_, dtb_, A_, D_;
};

// ---- Linear attention: Gated DeltaNet, KDA, Lightning -----------------------------------------
class Linear final : public Mixer {
 public:
  using Variant = LinearAttention::Variant;
  Linear(const MixerArgs& a, const LinearAttention& l)
      : v_(l.variant), kh_(static_cast<Idx>(l.num_k_heads)), vh_(static_cast<Idx>(l.num_v_heads)),
        dk_(static_cast<Idx>(l.k_head_dim)), dv_(static_cast<Idx>(l.v_head_dim)), K_(static_cast<Idx>(l.conv_kernel)) {
    if (kh_ <= 0 || vh_ % kh_) throw InputError::value("linear attention heads", std::to_string(vh_), "a multiple of the key heads");
    const auto hidden = a.dims.hidden;
    cd_ = 2 * kh_ * dk_ + vh_ * dv_;
    ga_ = v_ == Variant::kda ? vh_ * dk_ : vh_;  // per-channel decay (KDA) or per-head
    Win_ = random_weight(a.rng, cd_ + vh_ * dv_ + vh_ + ga_, hidden);  // qkv, z (gate), beta, decay
    if (K_ > 0) convw_ = random_weight(a.rng, cd_, K_);
    Alog_ = random_vec(a.rng, ga_, -1.0f, 1.0f);
    dtb_ = random_vec(a.rng, ga_, -4.6f, -2.3f);
    slope_ = Vec(vh_);
    for (Idx h = 0; h < vh_; ++h) slope_[h] = std::exp2(-8.0f * static_cast<float>(h + 1) / static_cast<float>(vh_));
    Wout_ = random_weight(a.rng, hidden, vh_ * dv_, 0.5f);
  }
  std::vector<Tensor> allocate(std::uint64_t, const CacheDtypes& dt, const Options& o) const override {
    std::vector<Tensor> t;
    if (K_ > 0) t.emplace_back("conv_state", dt.conv, dims({1, K_ - 1, cd_}), storage_scale(dt.conv, o));
    t.emplace_back("ssm_state", dt.ssm, dims({1, vh_, dv_, dk_}), storage_scale(dt.ssm, o));
    return t;
  }
  struct Pre {
    Mat q, k, v, z, beta, g;
  };
  Pre prepare(const Mat& Xn, const Tensor* conv, bool fresh, Tensor* conv_out) const {
    Mat P = linear(Xn, Win_);
    Mat QKV;
    if (K_ > 0) {
      Mat Ext = conv_window(conv, K_, P.leftCols(cd_), fresh);
      if (conv_out) write_rows(*conv_out, 0, Ext.bottomRows(K_ - 1));
      QKV = causal_conv(Ext, convw_, nullptr);
    } else {
      QKV = P.leftCols(cd_);
    }
    silu_inplace(QKV);
    Pre p{QKV.leftCols(kh_ * dk_), QKV.middleCols(kh_ * dk_, kh_ * dk_), QKV.rightCols(vh_ * dv_),
          P.middleCols(cd_, vh_ * dv_), P.middleCols(cd_ + vh_ * dv_, vh_), P.rightCols(ga_)};
    if (v_ != Variant::lightning) {
      // L2-normalised q and k per head; q scaled by 1/sqrt(dk).
      for (Idx t = 0; t < p.q.rows(); ++t)
        for (Idx h = 0; h < kh_; ++h) {
          p.q.row(t).segment(h * dk_, dk_).normalize();
          p.q.row(t).segment(h * dk_, dk_) *= 1.0f / std::sqrt(static_cast<float>(dk_));
          p.k.row(t).segment(h * dk_, dk_).normalize();
        }
      for (Idx t = 0; t < p.beta.rows(); ++t) {
        for (Idx h = 0; h < vh_; ++h) p.beta(t, h) = sigmoid(p.beta(t, h));
        for (Idx c = 0; c < ga_; ++c) p.g(t, c) = -std::exp(Alog_[c]) * softplus(p.g(t, c) + dtb_[c]);
      }
    } else {
      p.q *= 1.0f / std::sqrt(static_cast<float>(dk_));
    }
    return p;
  }
  Mat finish(const Pre& p, Mat O) const {
    rmsnorm_inplace(O, dv_);
    for (Idx t = 0; t < O.rows(); ++t)
      for (Idx c = 0; c < O.cols(); ++c) O(t, c) *= (v_ == Variant::lightning ? sigmoid(p.z(t, c)) : silu(p.z(t, c)));
    return linear(O, Wout_);
  }
  // The recurrence over `T` tokens from state S ([vh*dv, dk]); both paths use it.
  Mat scan(const Pre& p, Mat& S) const {
    const Idx T = p.q.rows(), per = vh_ / kh_;
    Mat O(T, vh_ * dv_);
    Vec kv(dv_);
    for (Idx t = 0; t < T; ++t)
      for (Idx h = 0; h < vh_; ++h) {
        const Idx hk = h / per;
        auto Sh = S.middleRows(h * dv_, dv_);  // dv x dk
        auto q = p.q.row(t).segment(hk * dk_, dk_);
        auto k = p.k.row(t).segment(hk * dk_, dk_);
        auto v = p.v.row(t).segment(h * dv_, dv_);
        if (v_ == Variant::lightning) {
          Sh = std::exp(-slope_[h]) * Sh + v.transpose() * k;
        } else {
          if (v_ == Variant::kda)
            for (Idx c = 0; c < dk_; ++c) Sh.col(c) *= std::exp(p.g(t, h * dk_ + c));
          else
            Sh *= std::exp(p.g(t, h));
          kv.noalias() = Sh * k.transpose();
          Sh.noalias() += (p.beta(t, h) * (v.transpose() - kv)) * k;
        }
        O.row(t).segment(h * dv_, dv_) = (Sh * q.transpose()).transpose();
      }
    return O;
  }
  Mat forward(const Mat& Xn, std::int64_t pos0, std::vector<Tensor>& cache, Context&, std::size_t) const override {
    const bool fresh = pos0 == 0;
    Tensor* conv = K_ > 0 ? &cache[0] : nullptr;
    Tensor& ssm = cache[K_ > 0 ? 1 : 0];
    Pre p = prepare(Xn, conv, fresh, conv);
    Mat S = load_state(ssm, fresh);
    Mat O = scan(p, S);
    write_rows(ssm, 0, S);
    return finish(p, std::move(O));
  }
  Mat reference(const Mat& Xn, Context&, std::size_t) const override {
    Pre p = prepare(Xn, nullptr, true, nullptr);
    const Idx T = Xn.rows(), per = vh_ / kh_;
    if (v_ == Variant::lightning) {
      // Quadratic form: o_t = sum_{s<=t} exp(-slope (t-s)) (q_t . k_s) v_s.
      Mat O = Mat::Zero(T, vh_ * dv_);
      for (Idx h = 0; h < vh_; ++h)
        for (Idx t = 0; t < T; ++t)
          for (Idx s = 0; s <= t; ++s) {
            const Idx hk = h / per;
            const float w = std::exp(-slope_[h] * static_cast<float>(t - s)) *
                            p.q.row(t).segment(hk * dk_, dk_).dot(p.k.row(s).segment(hk * dk_, dk_));
            O.row(t).segment(h * dv_, dv_) += w * p.v.row(s).segment(h * dv_, dv_);
          }
      return finish(p, std::move(O));
    }
    Mat S = Mat::Zero(vh_ * dv_, dk_);
    return finish(p, scan(p, S));
  }
  std::uint64_t weight_count() const override { return static_cast<std::uint64_t>(Win_.size() + convw_.size() + Wout_.size()); }

 private:
  Variant v_;
  Idx kh_, vh_, dk_, dv_, K_, cd_ = 0, ga_ = 0;
  Mat Win_, convw_, Wout_;
  Vec Alog_, dtb_, slope_;
};

// ---- LFM2 short convolution -------------------------------------------------------------------
class ShortConvMixer final : public Mixer {
 public:
  ShortConvMixer(const MixerArgs& a, const ShortConv& s) : ch_(static_cast<Idx>(s.channels)), K_(static_cast<Idx>(s.conv_kernel)) {
    Win_ = random_weight(a.rng, 3 * ch_, a.dims.hidden);
    convw_ = random_weight(a.rng, ch_, K_);
    Wout_ = random_weight(a.rng, a.dims.hidden, ch_, 0.5f);
  }
  std::vector<Tensor> allocate(std::uint64_t, const CacheDtypes& dt, const Options& o) const override {
    std::vector<Tensor> t;
    t.emplace_back("conv_state", dt.conv, dims({1, K_ - 1, ch_}), storage_scale(dt.conv, o));
    return t;
  }
  Mat run(const Mat& Xn, const Tensor* state, bool fresh, Tensor* out) const {
    Mat P = linear(Xn, Win_);
    Mat Bx = P.leftCols(ch_).cwiseProduct(P.rightCols(ch_));
    Mat Ext = conv_window(state, K_, Bx, fresh);
    if (out) write_rows(*out, 0, Ext.bottomRows(K_ - 1));
    Mat Y = causal_conv(Ext, convw_, nullptr).cwiseProduct(P.middleCols(ch_, ch_));
    return linear(Y, Wout_);
  }
  Mat forward(const Mat& Xn, std::int64_t pos0, std::vector<Tensor>& cache, Context&, std::size_t) const override {
    return run(Xn, &cache[0], pos0 == 0, &cache[0]);
  }
  Mat reference(const Mat& Xn, Context&, std::size_t) const override { return run(Xn, nullptr, true, nullptr); }
  std::uint64_t weight_count() const override { return static_cast<std::uint64_t>(Win_.size() + convw_.size() + Wout_.size()); }

 private:
  Idx ch_, K_;
  Mat Win_, convw_, Wout_;
};

}  // namespace

std::unique_ptr<Mixer> make_recurrent(const MixerArgs& a) {
  const auto& c = a.cache;
  if (const auto* m = std::get_if<Mamba1>(&c)) {
    if (m->conv_kernel < 1) throw InputError::value("mamba conv_kernel", "0", "a positive kernel");
    return std::make_unique<Mamba1Mixer>(a, *m);
  }
  if (const auto* m = std::get_if<Mamba2>(&c)) {
    if (m->conv_kernel < 1) throw InputError::value("mamba conv_kernel", "0", "a positive kernel");
    return std::make_unique<Mamba2Mixer>(a, *m);
  }
  if (const auto* l = std::get_if<LinearAttention>(&c)) return std::make_unique<Linear>(a, *l);
  if (const auto* s = std::get_if<ShortConv>(&c)) {
    if (s->conv_kernel < 1) throw InputError::value("short_conv kernel", "0", "a positive kernel");
    return std::make_unique<ShortConvMixer>(a, *s);
  }
  throw Error("reference runtime: not a recurrent layer");
}

}  // namespace kvplan::runtime::detail
