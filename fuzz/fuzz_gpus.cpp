// Custom-accelerator files (`kvplan plan --gpu-file`, Python's gpu=dict): only kvplan::Error may
// escape the reader, an accepted device keeps the invariants the planner relies on, and a plan
// on it either is an error or gives finite figures that add up.
#include <cmath>
#include <cstdint>
#include <string_view>

#include "kvplan/error.h"
#include "kvplan/hardware.h"
#include "kvplan/model.h"
#include "kvplan/planner.h"

namespace {
bool finite_nonneg(double x) { return std::isfinite(x) && x >= 0; }
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const kvplan::ModelSpec model = kvplan::load_model("Qwen/Qwen3-0.6B");
  std::string_view text(reinterpret_cast<const char*>(data), size);
  kvplan::Accelerator a;
  try {
    a = kvplan::accelerator_from_json(text, "fuzz-gpu.json");
  } catch (const kvplan::Error&) {
    return 0;
  }
  if (a.name.empty() || a.memory_bytes == 0 || a.memory_marketing_bytes == 0) __builtin_trap();
  // Bandwidth is optional (0: not known, the plan then has no decode-speed figures), never negative or infinite.
  if (!(a.bandwidth_bytes_per_s >= 0) || !std::isfinite(a.bandwidth_bytes_per_s)) __builtin_trap();
  if (!finite_nonneg(a.bf16_flops) || !finite_nonneg(a.fp8_flops) || !finite_nonneg(a.interconnect_bytes_per_s))
    __builtin_trap();
  (void)kvplan::to_json(a).dump();
  try {
    kvplan::PlanInput in;
    in.gpu = a;
    in.context = 4096;
    in.concurrency = 8;
    const kvplan::Plan p = kvplan::plan(model, in);
    (void)kvplan::to_json(p).dump();
    (void)kvplan::format_plan_text(p);
    const auto& g = p.per_gpu;
    if (g.usable_bytes > g.memory_bytes) __builtin_trap();
    if (p.fits && g.weights_bytes + g.kv_bytes + g.state_bytes + g.reserved_bytes + g.free_bytes != g.usable_bytes)
      __builtin_trap();
    if (!finite_nonneg(p.decode_step_seconds) || !finite_nonneg(p.decode_tokens_per_second) ||
        !finite_nonneg(p.ttft_seconds))
      __builtin_trap();
  } catch (const kvplan::Error&) {
  }
  return 0;
}
