// Step time for `kvplan simulate`: kvplan/step_time.h's step_time() applied to one scheduler
// step's batch (the function `plan` uses), or a linear model fitted to measured step times.
#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <sstream>

#include "kvplan/error.h"
#include "kvplan/files.h"
#include "kvplan/planner.h"
#include "kvplan/units.h"
#include "kvplan/weights.h"
#include "simulate/sim_internal.h"

namespace kvplan {

namespace detail {

StepTimer::StepTimer(const ModelSpec& m, const Accelerator& gpu, const VllmOptions& e, const StepTimeModel& t)
    : model_(t) {
  if (t.kind == StepTimeModel::Kind::linear) return;
  const VllmResult r = vllm_profile(m, e);
  tp_ = static_cast<double>(std::max<std::uint64_t>(1, e.tensor_parallel_size));
  const double pp = static_cast<double>(std::max<std::uint64_t>(1, e.pipeline_parallel_size));
  // Cache bytes read per token (per GPU) from the engine's own per-layer pages: each group's
  // page of block_size tokens times its layers; windows cap what a step reads. The profile
  // describes the busiest pipeline stage; stages run one after another, so x pp.
  for (const auto& g : r.groups) {
    const double layers = static_cast<double>(g.layers.size()) * pp;
    std::uint64_t cap = UINT64_MAX;
    switch (g.kind) {
      case VllmGroupKind::mamba:
        state_bytes_ += static_cast<double>(r.mamba_page_bytes ? r.mamba_page_bytes : g.page_bytes) * layers;
        continue;
      case VllmGroupKind::sliding_window:
      case VllmGroupKind::chunked_local:
        if (g.window) cap = g.window;
        break;
      case VllmGroupKind::full_attention:
      case VllmGroupKind::mla:
        break;
    }
    cache_.push_back({static_cast<double>(g.page_bytes) / static_cast<double>(g.block_size) * layers, cap});
  }
  init_compute(m, gpu, t);
}

StepTimer::StepTimer(const ModelSpec& m, const Accelerator& gpu, std::uint64_t tp, std::vector<CacheRead> cache,
                     double state_bytes, const StepTimeModel& t)
    : model_(t) {
  if (t.kind == StepTimeModel::Kind::linear) return;
  tp_ = static_cast<double>(std::max<std::uint64_t>(1, tp));
  cache_ = std::move(cache);
  state_bytes_ = state_bytes;
  init_compute(m, gpu, t);
}

// Weights, FLOPs and the GPU's peaks: the part every engine shares.
void StepTimer::init_compute(const ModelSpec& m, const Accelerator& gpu, const StepTimeModel& t) {
  const WeightBytes w = weight_bytes(m);
  active_bytes_ = w.active;
  expert_bytes_ = w.experts;
  experts_ = m.dims.num_experts;
  experts_per_token_ = m.dims.experts_per_token;
  linear_flops_per_token_ = 2.0 * static_cast<double>(m.params.active) / tp_;
  // Attention FLOPs, as the planner counts them for TTFT (attention_cost), per GPU.
  for (const auto& l : m.layers) {
    const AttentionCost a = attention_cost(m, l);
    if (a.flops_per_pair <= 0) continue;
    const std::uint64_t cap = a.max_keys;
    const double f = a.flops_per_pair / tp_;
    auto it = std::find_if(attn_.begin(), attn_.end(), [cap](const AttnGroup& a) { return a.cap == cap; });
    if (it == attn_.end()) attn_.push_back({f, cap});
    else it->flops_per_pair += f;
  }
  if (!(gpu.bandwidth_bytes_per_s > 0)) throw InputError::value("GPU bandwidth", gpu.name, "a GPU with a known memory bandwidth");
  device_ = step_device(m, gpu, static_cast<std::uint64_t>(tp_));
  if (!(device_.peak_flops > 0))
    throw InputError::value("GPU peak FLOP/s (" + device_.peak_field + ")", gpu.name + ": unknown",
                            "a GPU with a known dense " + device_.peak_name + " peak (give a --gpu-file with " +
                                device_.peak_field + ")");
  if (!(t.prefill_efficiency >= 0 && t.prefill_efficiency <= 1))
    throw InputError::value("prefill efficiency", std::to_string(t.prefill_efficiency), "a fraction in (0, 1], or 0 for the calibrated one");
  model_.calibration = with_compute_fraction(model_.calibration, t.prefill_efficiency);
  if (!(t.time_scale > 0)) throw InputError::value("step time scale", std::to_string(t.time_scale), "a positive factor");
}

StepTimer::StepTimer(const StepTimeModel& linear) : model_(linear) {
  if (linear.kind != StepTimeModel::Kind::linear)
    throw InputError::value("step time model", "roofline", "a linear (calibrated) model without a model and GPU");
}

void StepTimer::add(StepBatch& b, std::uint64_t computed, std::uint64_t scheduled) const {
  const std::uint64_t ctx = computed + scheduled;
  b.kv_tokens_read += ctx;
  b.requests += 1;
  if (model_.kind == StepTimeModel::Kind::linear) return;
  for (const auto& g : cache_) b.kv_bytes_read += g.bytes_per_token * static_cast<double>(std::min(ctx, g.cap));
  b.kv_bytes_read += state_bytes_;
  b.flops += linear_flops_per_token_ * static_cast<double>(scheduled);
  for (const auto& a : attn_)  // one decode token attends min(ctx, cap) keys: attended_pairs' value, without the call
    b.flops += a.flops_per_pair * (scheduled == 1 ? static_cast<double>(std::min(ctx, a.cap)) : attended_pairs(computed, ctx, a.cap));
}

double StepTimer::seconds(StepBatch& b) const {
  if (model_.kind == StepTimeModel::Kind::linear)
    return std::max(0.0, model_.a + model_.b * static_cast<double>(b.prefill_tokens) +
                             model_.c * static_cast<double>(b.decode_tokens) +
                             model_.d * static_cast<double>(b.kv_tokens_read));
  const std::uint64_t tokens = b.prefill_tokens + b.decode_tokens;
  b.work = StepWork{};
  b.work.weight_bytes = weight_bytes_read(active_bytes_, expert_bytes_, experts_, experts_per_token_, tokens) / tp_;
  b.work.kv_bytes = b.kv_bytes_read;
  b.work.flops = b.flops;
  set_batch(b.work, device_, tokens, b.requests);
  return step_time(b.work, device_, model_.calibration).seconds * model_.time_scale;
}

std::string StepTimer::describe() const {
  std::ostringstream os;
  if (model_.kind == StepTimeModel::Kind::linear) {
    os << "calibrated: step = " << model_.a << " + " << model_.b << " x prefill_tokens + " << model_.c
       << " x decode_tokens + " << model_.d << " x kv_tokens_read s (least squares over " << model_.samples
       << " measured steps from " << model_.source << ", rms error " << model_.rms_error_s << " s)";
  } else {
    os << describe_step_time(device_, model_.calibration);
    if (model_.time_scale != 1) os << ", x " << model_.time_scale << " (the band's " << (model_.time_scale > 1 ? "slow" : "fast") << " end)";
  }
  return os.str();
}

// ---- LogHistogram ----
namespace {
constexpr double kHistMin = 1e-6;
const double kLogStep = std::log(1.001);
constexpr std::size_t kHistBins = 27700;  // 1e-6 .. ~1e6 s
}  // namespace

void LogHistogram::add(double v) {
  if (counts_.empty()) counts_.assign(kHistBins, 0);
  if (n_ == 0) min_ = max_ = v;
  min_ = std::min(min_, v);
  max_ = std::max(max_, v);
  sum_ += v;
  ++n_;
  std::size_t i = 0;
  if (v > kHistMin) i = std::min<std::size_t>(kHistBins - 1, static_cast<std::size_t>(std::log(v / kHistMin) / kLogStep) + 1);
  ++counts_[i];
}

double LogHistogram::quantile(double q) const {
  if (n_ == 0) return 0;
  // The nearest-rank order statistic: the smallest value with at least ceil(q x n) values <= it.
  const std::uint64_t rank = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(n_) - 1e-9)));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      if (i == 0) return min_;
      // Bucket i holds (kHistMin e^{(i-1)s}, kHistMin e^{is}]: report its geometric middle.
      const double v = kHistMin * std::exp((static_cast<double>(i) - 0.5) * kLogStep);
      return std::clamp(v, min_, max_);
    }
  }
  return max_;
}

Percentiles LogHistogram::summary() const {
  Percentiles p;
  p.count = n_;
  if (n_ == 0) return p;
  p.mean = sum_ / static_cast<double>(n_);
  p.p50 = quantile(0.5);
  p.p90 = quantile(0.9);
  p.p99 = quantile(0.99);
  p.max = max_;
  return p;
}

}  // namespace detail

StepTimeModel fit_step_time(std::string_view csv_text, std::string_view source) {
  std::istringstream is{std::string(csv_text)};
  std::string line;
  std::vector<std::string> header;
  std::size_t lineno = 0;
  auto split = [](const std::string& l) {
    std::vector<std::string> f;
    std::stringstream ss(l);
    std::string x;
    while (std::getline(ss, x, ',')) {
      while (!x.empty() && (x.back() == '\r' || x.back() == ' ')) x.pop_back();
      while (!x.empty() && x.front() == ' ') x.erase(x.begin());
      f.push_back(x);
    }
    return f;
  };
  while (header.empty() && std::getline(is, line)) {
    ++lineno;
    if (!line.empty() && line != "\r") header = split(line);
  }
  const char* names[5] = {"prefill_tokens", "decode_tokens", "kv_tokens_read", "seconds"};
  std::size_t idx[4];
  for (int k = 0; k < 4; ++k) {
    auto it = std::find(header.begin(), header.end(), names[k]);
    if (it == header.end())
      throw ConfigError::field(source, "header", "columns prefill_tokens, decode_tokens, kv_tokens_read, seconds",
                               "no column \"" + std::string(names[k]) + "\"", "");
    idx[k] = static_cast<std::size_t>(it - header.begin());
  }
  // Normal equations X^T X beta = X^T y over rows [1, prefill, decode, kv].
  double A[4][4] = {}, y[4] = {};
  std::vector<std::array<double, 5>> rows;
  while (std::getline(is, line)) {
    ++lineno;
    if (line.empty() || line == "\r") continue;
    const auto f = split(line);
    std::array<double, 5> r{1, 0, 0, 0, 0};
    for (int k = 0; k < 4; ++k) {
      if (idx[k] >= f.size())
        throw ConfigError::field(std::string(source) + ":" + std::to_string(lineno), names[k], "a number", "nothing", "");
      char* end = nullptr;
      const double v = std::strtod(f[idx[k]].c_str(), &end);
      if (f[idx[k]].empty() || end != f[idx[k]].c_str() + f[idx[k]].size() || !std::isfinite(v) || v < 0)
        throw ConfigError::field(std::string(source) + ":" + std::to_string(lineno), names[k], "a non-negative number",
                                 "\"" + f[idx[k]] + "\"", "");
      r[k + 1] = v;
    }
    rows.push_back(r);
    for (int i = 0; i < 4; ++i) {
      y[i] += r[i] * r[4];
      for (int j = 0; j < 4; ++j) A[i][j] += r[i] * r[j];
    }
  }
  if (rows.size() < 4)
    throw ConfigError::field(source, "rows", "at least 4 measured steps", std::to_string(rows.size()), "");
  // Gaussian elimination with partial pivoting; a column that never varies is dropped (its
  // coefficient stays 0) rather than producing a meaningless fit.
  double M[4][5];
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) M[i][j] = A[i][j];
    M[i][4] = y[i];
  }
  double beta[4] = {0, 0, 0, 0};
  bool used[4] = {true, true, true, true};
  const double scale = std::max(1.0, A[0][0]);
  for (int c = 0; c < 4; ++c) {
    int p = c;
    for (int r = c + 1; r < 4; ++r)
      if (std::fabs(M[r][c]) > std::fabs(M[p][c])) p = r;
    if (std::fabs(M[p][c]) < 1e-12 * scale) {
      used[c] = false;
      continue;
    }
    std::swap(M[p], M[c]);
    for (int r = 0; r < 4; ++r) {
      if (r == c) continue;
      const double f = M[r][c] / M[c][c];
      for (int k = c; k < 5; ++k) M[r][k] -= f * M[c][k];
    }
  }
  for (int c = 0; c < 4; ++c)
    if (used[c]) beta[c] = M[c][4] / M[c][c];
  StepTimeModel t;
  t.kind = StepTimeModel::Kind::linear;
  t.a = beta[0], t.b = beta[1], t.c = beta[2], t.d = beta[3];
  t.samples = rows.size();
  double se = 0;
  for (const auto& r : rows) {
    const double e = t.a + t.b * r[1] + t.c * r[2] + t.d * r[3] - r[4];
    se += e * e;
  }
  t.rms_error_s = std::sqrt(se / static_cast<double>(rows.size()));
  t.source = std::string(source);
  return t;
}

StepTimeModel load_step_time(const std::string& path) {
  return fit_step_time(read_regular_file(path, 256ull << 20, "calibration file (--calibration)"), path);
}

}  // namespace kvplan
