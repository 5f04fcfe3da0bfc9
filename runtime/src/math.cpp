#include <algorithm>
#include <limits>

#include "internal.h"
#include "kvplan/checked.h"

namespace kvplan::runtime::detail {

Mat linear(const Mat& X, const Mat& W) {
  Mat Y(X.rows(), W.rows());
  const int threads = Eigen::nbThreads();
  if (threads > 1 && X.rows() <= 4 && W.rows() >= 1024) {
    const Eigen::Index n = W.rows(), per = (n + threads - 1) / threads;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; ++t) {
      const Eigen::Index r0 = std::min<Eigen::Index>(n, t * per), r1 = std::min<Eigen::Index>(n, r0 + per);
      if (r1 > r0) Y.middleCols(r0, r1 - r0).noalias() = X * W.middleRows(r0, r1 - r0).transpose();
    }
    return Y;
  }
  Y.noalias() = X * W.transpose();
  return Y;
}

Mat random_weight(Rng& rng, std::uint64_t out, std::uint64_t in, float gain) {
  Mat W(static_cast<Eigen::Index>(out), static_cast<Eigen::Index>(in));
  const float a = gain * std::sqrt(3.0f / static_cast<float>(std::max<std::uint64_t>(in, 1)));
  float* p = W.data();
  const std::uint64_t n = out * in;
  for (std::uint64_t i = 0; i < n; ++i) p[i] = rng.symmetric(a);
  return W;
}

void rmsnorm_inplace(Mat& X, Eigen::Index group, Eigen::Index col0, Eigen::Index cols) {
  if (cols < 0) cols = X.cols() - col0;
  if (group == 0) group = cols;
  for (Eigen::Index r = 0; r < X.rows(); ++r)
    for (Eigen::Index c = col0; c < col0 + cols; c += group) {
      auto seg = X.row(r).segment(c, group);
      const float ms = seg.squaredNorm() / static_cast<float>(group);
      seg *= 1.0f / std::sqrt(ms + 1e-6f);
    }
}

Mat rmsnorm(const Mat& X) {
  Mat Y = X;
  rmsnorm_inplace(Y);
  return Y;
}

void rope_inplace(Mat& X, Eigen::Index col0, Eigen::Index heads, Eigen::Index stride, Eigen::Index dim,
                  std::int64_t pos0, double theta) {
  const Eigen::Index half = dim / 2;
  if (half == 0) return;
  std::vector<double> inv(static_cast<std::size_t>(half));
  for (Eigen::Index i = 0; i < half; ++i) inv[i] = std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(dim));
  for (Eigen::Index t = 0; t < X.rows(); ++t) {
    const double p = static_cast<double>(pos0 + t);
    for (Eigen::Index i = 0; i < half; ++i) {
      const float c = static_cast<float>(std::cos(p * inv[i])), s = static_cast<float>(std::sin(p * inv[i]));
      for (Eigen::Index h = 0; h < heads; ++h) {
        float* v = X.row(t).data() + col0 + h * stride;
        const float a = v[i], b = v[i + half];
        v[i] = a * c - b * s;
        v[i + half] = b * c + a * s;
      }
    }
  }
}

Mat attend(const Mat& Q, std::int64_t q_heads, std::int64_t kd, std::int64_t vd, const std::vector<CMap>& K,
           const std::vector<CMap>& V, std::int64_t q_pos0, const std::vector<std::int64_t>& kpos, const Mask& mask,
           float scale, const std::vector<std::uint8_t>* allow) {
  const std::int64_t T = Q.rows(), kvh = static_cast<std::int64_t>(K.size()), g = q_heads / kvh;
  const std::int64_t n = static_cast<std::int64_t>(kpos.size());
  Mat out(T, q_heads * vd);
  Mat Qg(g * T, kd), S, O;
  for (std::int64_t h = 0; h < kvh; ++h) {
    for (std::int64_t j = 0; j < g; ++j) Qg.middleRows(j * T, T) = Q.middleCols((h * g + j) * kd, kd);
    S.noalias() = Qg * K[h].transpose();
    for (std::int64_t r = 0; r < g * T; ++r) {
      const std::int64_t t = r % T, qp = q_pos0 + t;
      float* row = S.row(r).data();
      float mx = -std::numeric_limits<float>::infinity();
      for (std::int64_t s = 0; s < n; ++s) {
        const bool ok = mask.visible(qp, kpos[s]) && (!allow || (*allow)[t * n + s]);
        row[s] = ok ? row[s] * scale : -std::numeric_limits<float>::infinity();
        mx = std::max(mx, row[s]);
      }
      float sum = 0;
      for (std::int64_t s = 0; s < n; ++s) sum += (row[s] = std::isinf(row[s]) ? 0.0f : std::exp(row[s] - mx));
      const float inv = sum > 0 ? 1.0f / sum : 0.0f;
      for (std::int64_t s = 0; s < n; ++s) row[s] *= inv;
    }
    O.noalias() = S * V[h];
    for (std::int64_t j = 0; j < g; ++j) out.middleCols((h * g + j) * vd, vd) = O.middleRows(j * T, T);
  }
  return out;
}

Mat read_rows(const Tensor& t, std::uint64_t first, std::uint64_t count) {
  Mat M(static_cast<Eigen::Index>(count), static_cast<Eigen::Index>(t.row_len()));
  for (std::uint64_t r = 0; r < count; ++r) t.read_row(first + r, M.row(static_cast<Eigen::Index>(r)).data());
  return M;
}

void write_rows(Tensor& t, std::uint64_t first, const Mat& rows) {
  for (Eigen::Index r = 0; r < rows.rows(); ++r) t.write_row(first + static_cast<std::uint64_t>(r), rows.row(r).data());
}

void capacity_exceeded(std::uint64_t needed, std::uint64_t capacity) {
  throw InputError::value("tokens", std::to_string(needed),
                          "at most the cache capacity allocated (" + std::to_string(capacity) + " tokens)");
}

std::uint64_t query_heads(const ModelSpec& spec, const Options& opt, std::uint64_t kv_heads) {
  const std::uint64_t heads = spec.dims.num_attention_heads;
  std::uint64_t group = (kv_heads && heads >= kv_heads && heads % kv_heads == 0) ? heads / kv_heads : 1;
  if (opt.scaled) group = std::min<std::uint64_t>(group, std::max<std::uint64_t>(opt.max_query_group, 1));
  return checked_mul(kv_heads, group, "query heads");
}

}  // namespace kvplan::runtime::detail
