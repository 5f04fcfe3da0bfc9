// `kvplan check` end to end through the public API: launch-command or deployment text ->
// Deployment -> check_deployment on a catalog GPU -> every report format. The first bytes choose
// the GPU, --gpus, the requirements and (often) a bundled model, so the engines' budgets and the
// verdict are reached; the rest is the text. Only kvplan::Error may escape, and a verdict must be
// consistent: PASS only when every check passed, the GPU count suffices and the required context
// and concurrency are met.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kvplan/kvplan.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<kvplan::BundledModel> bundled = kvplan::bundled_models();
  static const std::vector<kvplan::Accelerator>& gpus = kvplan::accelerator_catalog();
  FuzzedDataProvider f(data, size);
  kvplan::CheckOptions o;
  o.gpu = gpus[f.ConsumeIntegralInRange<std::size_t>(0, gpus.size() - 1)].name;
  if (f.ConsumeBool()) o.gpus = f.ConsumeBool() ? f.ConsumeIntegralInRange<std::uint64_t>(1, 64) : f.ConsumeIntegral<std::uint64_t>();
  if (f.ConsumeBool()) o.require_concurrency = f.ConsumeIntegralInRange<std::uint64_t>(1, 1024);
  if (f.ConsumeBool()) o.require_context = f.ConsumeIntegralInRange<std::uint64_t>(1, 1 << 21);
  if (f.ConsumeBool()) o.model = bundled[f.ConsumeIntegralInRange<std::size_t>(0, bundled.size() - 1)].id;
  const bool as_file = f.ConsumeBool();
  const std::string text = f.ConsumeRemainingBytesAsString();
  kvplan::Deployment d;
  try {
    d = as_file ? kvplan::parse_deployment(text, "fuzz-deployment.yaml")
                : kvplan::parse_launch_command(kvplan::split_command_line(text));
  } catch (const kvplan::Error&) {
    return 0;
  }
  kvplan::CheckResult r;
  try {
    r = kvplan::check_deployment(d, o);
  } catch (const kvplan::Error&) {
    return 0;
  }
  bool all_ok = true;
  for (const auto& c : r.checks) all_ok = all_ok && c.ok;
  if (r.passed != all_ok || r.passed != r.reasons.empty()) __builtin_trap();
  if (r.passed && !r.starts) __builtin_trap();
  if (r.passed && d.engine != kvplan::EngineKind::llamacpp && r.gpus < r.gpus_needed) __builtin_trap();
  const auto ctx = o.require_context ? o.require_context : d.require_context;
  if (r.passed && ctx && (r.context < *ctx || r.max_fitting_context < *ctx)) __builtin_trap();
  const auto conc = o.require_concurrency ? o.require_concurrency : d.require_concurrency;
  if (r.passed && conc && r.max_concurrency + 1e-9 < static_cast<double>(*conc)) __builtin_trap();
  for (const char* fmt : {"text", "json", "github", "junit"}) (void)kvplan::format_check(r, fmt);
  return 0;
}
