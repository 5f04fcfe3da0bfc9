// Benchmark (not a test): how close the reference runtime runs to this machine's limits.
// In one run it measures
//   - memory bandwidth two ways: a STREAM-like triad a[i] = b[i] + s * c[i] (3 x 4 bytes per i,
//     STREAM's convention, which does not count the write-allocate read), and read-only (a
//     sum and a row-split GEMV over 512 MiB, 4 bytes per float). Decode is a read-only stream over the weights (GEMV) and the cache, so the
//     roofline uses the read bandwidth (best of runs before and after the decode steps); the
//     triad is printed beside it for comparison,
//   - Eigen's fp32 GEMM peak (n x n x n, 2 n^3 flops),
// then runs Qwen3-0.6B (full size, FP32) and reports
//   - decode tok/s at 64 tokens of context (median step) as a fraction of the bandwidth roofline
//     (tok/s = bandwidth / (weight bytes + KV bytes read per token)),
//   - prefill of 1024 tokens as a fraction of the GEMM peak (flops the runtime performs).
// Usage: bench_runtime [--threads N] [--quick] [--json]
#include <algorithm>
#include <cmath>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "kvplan/kvplan.h"
#include "kvplan/runtime/runtime.h"

using namespace kvplan;
using Clock = std::chrono::steady_clock;

namespace {
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double triad_bytes_per_second(std::size_t n, int reps) {
  std::vector<float> a(n), b(n, 1.0f), c(n, 2.0f);
  const float s = 3.0f;
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto t = Clock::now();
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(n); ++i) a[i] = b[i] + s * c[i];
    best = std::min(best, since(t));
  }
  if (a[n / 2] != 7.0f) std::cerr << "triad: wrong result\n";
  return 3.0 * sizeof(float) * n / best;
}

// Read-only bandwidth: the access pattern of a decode step (every weight read once, nothing
// written), probed two ways and the better kept: each thread summing its slice (Eigen's vectorised
// reduction), and each thread running a GEMV over its block of rows of a row-major matrix, which
// is exactly what the runtime's decode does with every weight (several rows in flight per thread).
// Eigen's GEMV is single-threaded: each OpenMP thread runs its own, as the runtime's decode does.
double read_bytes_per_second(const std::vector<float>& b, int reps) {
  const int eigen_threads = Eigen::nbThreads();
  Eigen::setNbThreads(1);
  using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Index cols = 2048, rows = static_cast<Eigen::Index>(b.size()) / cols;
  const Eigen::Map<const RowMat> W(b.data(), rows, cols);
  const Eigen::VectorXf x = Eigen::VectorXf::Ones(cols);
  Eigen::VectorXf y(rows);
  double best = 1e30;
  int nthreads = 1;
#ifdef _OPENMP
  nthreads = omp_get_max_threads();
#endif
  const Eigen::Index per = (rows + nthreads - 1) / nthreads;
  for (int r = 0; r < reps; ++r) {
    auto t = Clock::now();
    double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
    for (int k = 0; k < nthreads; ++k) {
      const Eigen::Index r0 = std::min(rows, k * per), r1 = std::min(rows, r0 + per);
      s += W.middleRows(r0, r1 - r0).sum();
    }
    best = std::min(best, since(t));
    if (!(s > 0)) std::cerr << "read: wrong result\n";
    t = Clock::now();
#pragma omp parallel for schedule(static)
    for (int k = 0; k < nthreads; ++k) {
      const Eigen::Index r0 = std::min(rows, k * per), r1 = std::min(rows, r0 + per);
      y.segment(r0, r1 - r0).noalias() = W.middleRows(r0, r1 - r0) * x;
    }
    best = std::min(best, since(t));
    if (y(rows / 2) != static_cast<float>(cols)) std::cerr << "read: wrong GEMV result\n";
  }
  Eigen::setNbThreads(eigen_threads);
  return sizeof(float) * static_cast<double>(rows * cols) / best;
}

double gemm_flops_per_second(int n, int reps) {
  using M = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  M A = M::Random(n, n), B = M::Random(n, n), C(n, n);
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto t = Clock::now();
    C.noalias() = A * B.transpose();
    best = std::min(best, since(t));
  }
  if (!std::isfinite(C(0, 0))) std::cerr << "gemm: not finite\n";
  return 2.0 * n * n * static_cast<double>(n) / best;
}
}  // namespace

int main(int argc, char** argv) try {
  int threads = 0;
  bool quick = false, json = false;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    if (s == "--threads" && i + 1 < argc) threads = std::stoi(argv[++i]);
    else if (s == "--quick") quick = true;
    else if (s == "--json") json = true;
    else throw InputError::value("argument", s, "--threads N, --quick or --json");
  }
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
#ifdef _OPENMP
  omp_set_num_threads(threads);
#endif
  Eigen::setNbThreads(threads);

  const double triad_bw = triad_bytes_per_second(quick ? (16u << 20) : (64u << 20), quick ? 3 : 5);
  // The bandwidth of a shared or virtual machine drifts: measure the read bandwidth before and
  // after the decode steps and take the best, so the roofline is a ceiling, not a lucky low.
  const std::vector<float> stream(quick ? (32u << 20) : (128u << 20), 1.0f);
  double bw = read_bytes_per_second(stream, quick ? 3 : 5);
  const double peak = gemm_flops_per_second(quick ? 768 : 2048, quick ? 2 : 3);

  runtime::Options opt;
  opt.scaled = false;
  opt.threads = threads;
  const ModelSpec spec = load_model("Qwen/Qwen3-0.6B");
  runtime::Model model(spec, opt);
  const auto& d = model.dims();
  const CacheDtypes fp32{Dtype::fp32, Dtype::fp32, Dtype::fp32, Dtype::fp32};
  const auto toks = runtime::sample_tokens(1100, d.vocab, 5);

  // Decode at 64 tokens of context.
  const std::uint64_t ctx = 64, steps = quick ? 4 : 16;
  runtime::Cache c = model.allocate(ctx + steps, fp32);
  model.forward(std::span(toks).first(ctx), c);
  std::vector<double> step_s;
  for (std::uint64_t i = 0; i < steps; ++i) {
    auto t = Clock::now();
    model.forward(std::span(toks).subspan(ctx + i, 1), c);
    step_s.push_back(since(t));
  }
  std::sort(step_s.begin(), step_s.end());
  const double decode_tps = 1.0 / step_s[step_s.size() / 2];  // median step
  bw = std::max(bw, read_bytes_per_second(stream, quick ? 3 : 5));
  // Bytes one decode step reads: every weight once (the tied embedding is read whole as the
  // LM head) plus the K/V of the context (about ctx + steps/2 tokens on average).
  const double weight_bytes = 4.0 * model.weight_count();
  const double kv_bytes = static_cast<double>(c.bytes()) * (ctx + steps / 2.0) / (ctx + steps);
  const double roofline_tps = bw / (weight_bytes + kv_bytes);

  // Prefill of 1024 tokens: flops performed = 2 x tokens x (weights except the embedding
  // lookup) + the LM head for the last token + attention (QK^T and PV over the full square).
  const std::uint64_t T = quick ? 256 : 1024;
  runtime::Cache cp = model.allocate(T, fp32);
  auto t = Clock::now();
  model.forward(std::span(toks).first(T), cp);
  const double prefill_s = since(t);
  const double emb = static_cast<double>(d.vocab) * d.hidden;
  const double qh = static_cast<double>(spec.dims.num_attention_heads), kd = static_cast<double>(spec.dims.q_head_dim);
  const double flops = 2.0 * T * (model.weight_count() - emb) + 2.0 * emb +
                       spec.layers.size() * 2.0 * 2.0 * qh * kd * T * static_cast<double>(T);
  const double prefill_flops = flops / prefill_s;

  nlohmann::json j = {{"threads", threads},
                      {"quick", quick},
                      {"triad_bandwidth_bytes_per_second", triad_bw},
                      {"read_bandwidth_bytes_per_second", bw},
                      {"gemm_peak_flops", peak},
                      {"decode_context", ctx},
                      {"decode_tokens_per_second", decode_tps},
                      {"decode_bytes_per_token", weight_bytes + kv_bytes},
                      {"decode_roofline_tokens_per_second", roofline_tps},
                      {"decode_fraction_of_roofline", decode_tps / roofline_tps},
                      {"prefill_tokens", T},
                      {"prefill_tokens_per_second", T / prefill_s},
                      {"prefill_flops_per_second", prefill_flops},
                      {"prefill_fraction_of_gemm_peak", prefill_flops / peak}};
  if (json) {
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::printf("threads: %d%s\n", threads, quick ? " (quick)" : "");
  std::printf("triad bandwidth:   %8.2f GB/s (STREAM counting)\n", triad_bw / 1e9);
  std::printf("read bandwidth:    %8.2f GB/s (the decode roofline's ceiling)\n", bw / 1e9);
  std::printf("Eigen GEMM peak:   %8.2f GFLOP/s\n", peak / 1e9);
  std::printf("decode @ %llu ctx:  %8.2f tok/s; roofline %.2f tok/s (%.2f GB/token) -> %.0f%% of roofline\n",
              static_cast<unsigned long long>(ctx), decode_tps, roofline_tps, (weight_bytes + kv_bytes) / 1e9,
              100 * decode_tps / roofline_tps);
  std::printf("prefill %llu tok:  %8.1f tok/s; %.2f GFLOP/s -> %.0f%% of GEMM peak\n", static_cast<unsigned long long>(T),
              T / prefill_s, prefill_flops / 1e9, 100 * prefill_flops / peak);
  return 0;
} catch (const std::exception& e) {
  std::cerr << "bench_runtime: " << e.what() << "\n";
  return 2;
}
