// `kvplan plan` and `kvplan sweep` with fuzzed configs and options: the first bytes choose the
// options (GPU, parallelism, context, concurrency, dtypes, utilization, the sweep grid), the rest
// is config.json text, or, when a byte says so, a bundled model is used so the planner is
// reached often. Only kvplan::Error may escape; a plan that fits adds up to the usable memory,
// every figure is finite, and the sweep has one cell per (context, concurrency) pair.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include "kvplan/kvplan.h"

namespace {
struct NullBuf : std::streambuf {
  int overflow(int c) override { return c; }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};
bool finite_nonneg(double x) { return std::isfinite(x) && x >= 0; }

std::uint64_t small(FuzzedDataProvider& f, std::uint64_t max) { return f.ConsumeIntegralInRange<std::uint64_t>(0, max); }
// Mostly realistic numbers, sometimes the extremes (0, 2^32, 2^64-1).
std::uint64_t count(FuzzedDataProvider& f, std::uint64_t typical) {
  switch (f.ConsumeIntegralInRange(0, 7)) {
    case 0: return 0;
    case 1: return 1ull << 32;
    case 2: return ~0ull;
    case 3: return f.ConsumeIntegral<std::uint64_t>();
    default: return small(f, typical);
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<kvplan::BundledModel> bundled = kvplan::bundled_models();
  static const std::vector<kvplan::Accelerator>& gpus = kvplan::accelerator_catalog();
  static const char* const dtypes[] = {"bf16", "fp8", "fp16", "fp32", "q8_0", "q4_0", "nvfp4"};
  FuzzedDataProvider f(data, size);
  kvplan::PlanInput in;
  in.gpu = gpus[f.ConsumeIntegralInRange<std::size_t>(0, gpus.size() - 1)];
  if (f.ConsumeBool()) in.tp = count(f, 16);
  if (f.ConsumeBool()) in.gpus = count(f, 64);
  in.pp = f.ConsumeBool() ? count(f, 8) : 1;
  in.dp = f.ConsumeBool() ? count(f, 8) : 1;
  in.context = count(f, 1 << 20);
  in.concurrency = count(f, 512);
  in.block_tokens = f.ConsumeBool() ? count(f, 64) : 1;
  in.utilization = f.ConsumeProbability<double>();
  if (f.ConsumeBool()) in.shared_prefix_tokens = small(f, 1 << 16);
  if (f.ConsumeBool()) {
    const char* d = dtypes[f.ConsumeIntegralInRange<std::size_t>(0, std::size(dtypes) - 1)];
    in.k_dtype = in.v_dtype = kvplan::parse_dtype(d, "kv dtype");
  }
  std::vector<std::uint64_t> contexts(f.ConsumeIntegralInRange<std::size_t>(0, 8)), concurrency(f.ConsumeIntegralInRange<std::size_t>(0, 8));
  for (auto& c : contexts) c = count(f, 1 << 20);
  for (auto& c : concurrency) c = count(f, 512);
  const bool use_bundled = f.ConsumeBool();
  const std::size_t which = f.ConsumeIntegralInRange<std::size_t>(0, bundled.size() - 1);
  const std::string text = f.ConsumeRemainingBytesAsString();

  kvplan::ModelSpec m;
  try {
    m = use_bundled ? kvplan::load_model(bundled[which].id) : kvplan::load_model_from_json(text, "fuzz-plan.json");
  } catch (const kvplan::Error&) {
    return 0;
  }
  NullBuf nb;
  std::ostream sink(&nb);
  try {
    const kvplan::Plan p = kvplan::plan(m, in);
    sink << kvplan::to_json(p).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
         << kvplan::format_plan_text(p);
    const auto& g = p.per_gpu;
    if (g.usable_bytes > g.memory_bytes) __builtin_trap();
    if (p.fits && g.weights_bytes + g.kv_bytes + g.state_bytes + g.reserved_bytes + g.free_bytes != g.usable_bytes)
      __builtin_trap();
    if (!finite_nonneg(p.decode_step_seconds) || !finite_nonneg(p.decode_tokens_per_second) || !finite_nonneg(p.ttft_seconds))
      __builtin_trap();
  } catch (const kvplan::Error&) {
  }
  try {
    const kvplan::SweepResult s = kvplan::sweep(m, in, contexts, concurrency);
    const std::size_t cells = s.contexts.size() * s.concurrency.size();
    if (s.cache_bytes.size() != cells || s.fits.size() != cells || s.decode_step_seconds.size() != cells)
      __builtin_trap();
    for (double t : s.decode_step_seconds)
      if (!finite_nonneg(t)) __builtin_trap();
    kvplan::write_sweep_json(sink, s, {{"model", m.name}});
    kvplan::write_sweep_csv(sink, s);
  } catch (const kvplan::Error&) {
  }
  return 0;
}
