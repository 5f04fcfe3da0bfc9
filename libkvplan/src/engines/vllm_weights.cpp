// Weights as vLLM holds them: the MXFP4 MoE padding of vllm/model_executor/layers/quantization/mxfp4.py.
//
// Sources (vllm-project/vllm):
// - mxfp4.py@007d50058a06dec0f82472d63c819244d460c40d, get_mxfp4_backend: on CUDA, SM90 takes
//   FlashInfer's MXFP4 BF16 MoE only with VLLM_USE_FLASHINFER_MOE_MXFP4_BF16; the SM100 family takes
//   FlashInfer (CUTLASS / TRT-LLM / BF16) whenever flashinfer is installed; otherwise Triton
//   (triton_kernels, torch >= 2.8, and 9.0 <= capability < 11.0) unless VLLM_MXFP4_USE_MARLIN, else
//   Marlin. So SM80-SM89 and SM120 always run Marlin; SM90 runs Triton, or Marlin without
//   triton_kernels; SM100 runs FlashInfer, or Triton without it.
// - mxfp4.py@007d500 Mxfp4MoEMethod.create_weights: the intermediate size per partition and the
//   hidden size are rounded up per backend before the parameters are allocated: Marlin I to 128 and
//   H to 256 ("n % 256 == 0 and k % 128 == 0"); SM100 FlashInfer TRT-LLM / BF16 I and H to 256;
//   SM100 CUTLASS and SM90 FlashInfer I and H to 128; ROCm to get_padding_alignment(); otherwise
//   (Triton) I to 64, H as is. w13_weight (E, 2I, H/2) uint8, w13_weight_scale (E, 2I, H/32) uint8,
//   w13_bias (E, 2I) bf16, w2_weight (E, H, I/2), w2_weight_scale (E, H, I/32), w2_bias (E, H) bf16.
// - utils/marlin_utils_fp4.py@00d52e93333741b205e70acb9217a2849f173696 prepare_moe_fp4_layer_for_marlin:
//   gptq_marlin_repack keeps 4 bits a value, mxfp4_marlin_process_scales ends in float8_e8m0fnu (one
//   byte a scale), the biases stay bf16: the repacked experts take the bytes create_weights allocated.
// - vllm-project/vllm#23278 (vLLM 0.10.1, one H100, `vllm serve openai/gpt-oss-120b`): the log shows
//   marlin_utils_fp4.py's "Weight-only FP4 compression will be used leveraging the Marlin kernel" and
//   "Model loading took 65.9651 GiB": the Marlin layout on Hopper at that release.
// Not derived: the Triton path's swizzle (triton_kernels HopperMXValueLayout / HopperMXScaleLayout,
// mxfp4_utils._swizzle_mxfp4) and ROCm's get_padding_alignment; those ends are bands, named below.
#include "kvplan/vllm_weights.h"

#include <algorithm>
#include <cctype>

#include "kvplan/checked.h"

namespace kvplan {

namespace {

using u64 = std::uint64_t;

u64 round_up_to(u64 x, u64 m) { return checked_mul(ceil_div(x, m), m, "mxfp4 padding"); }

// The release's minor version (0.10.1 -> 10); "latest", empty or anything unread: a large number.
unsigned vllm_minor_of(std::string_view text) {
  std::string_view s = text;
  if (!s.empty() && (s[0] == 'v' || s[0] == 'V')) s.remove_prefix(1);
  if (s.size() < 3 || s[0] != '0' || s[1] != '.') return 1000;
  unsigned minor = 0;
  std::size_t i = 2;
  for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) minor = minor * 10 + static_cast<unsigned>(s[i] - '0');
  return i == 2 ? 1000 : minor;
}

struct Layout {
  const char* backend;
  u64 intermediate_align, hidden_align;
};
constexpr Layout kMarlin{"Marlin", 128, 256};
constexpr Layout kTriton{"Triton (triton_kernels)", 64, 1};
constexpr Layout kFlashinferSm100{"FlashInfer SM100 (TRT-LLM / BF16)", 256, 256};

}  // namespace

u64 vllm_mxfp4_expert_bytes(u64 hidden, u64 intermediate) {
  const u64 w13_rows = checked_mul(2, intermediate, "mxfp4 expert");
  const u64 w13 = checked_mul(w13_rows, checked_add(checked_add(hidden / 2, hidden / 32, "mxfp4 expert"), 2, "mxfp4 expert"), "mxfp4 expert");
  const u64 w2 = checked_mul(hidden, checked_add(checked_add(intermediate / 2, intermediate / 32, "mxfp4 expert"), 2, "mxfp4 expert"), "mxfp4 expert");
  return checked_add(w13, w2, "mxfp4 expert");
}

VllmMxfp4Experts vllm_mxfp4_experts(const ModelSpec& m, VllmGpuArch arch, u64 tp, u64 ep_ranks, u64 pp,
                                    std::string_view engine_version, bool force_marlin) {
  VllmMxfp4Experts out;
  if (!m.quantization || m.quantization->method != "mxfp4" || m.dims.num_experts == 0 || tp == 0 || pp == 0) return out;
  const u64 e = m.dims.num_experts, h = m.dims.hidden_size;
  const u64 inter = m.dims.moe_intermediate_size ? m.dims.moe_intermediate_size : m.dims.intermediate_size;
  if (h == 0 || inter == 0) return out;
  // MoE layers: the copies of the fused gate_up matrix (2I x H) over the experts.
  u64 copies = 0;
  for (const auto& t : m.params.tensors)
    if (!t.mtp && t.component == WeightComponent::moe_routed && t.kind == WeightKind::linear && t.rows == 2 * inter && t.cols == h)
      copies = checked_add(copies, t.count, "mxfp4 experts");
  if (copies == 0 || copies % e != 0) return out;
  const u64 layers = ceil_div(copies / e, pp);
  // FusedMoE: with expert parallelism each rank holds E / ep experts whole; without, every rank
  // holds all experts with the intermediate size split over tp.
  const u64 experts = ep_ranks > 1 ? ceil_div(e, ep_ranks) : e;
  const u64 part = ep_ranks > 1 ? inter : ceil_div(inter, tp);
  const u64 n = checked_mul(layers, experts, "mxfp4 experts");
  auto bytes = [&](const Layout& l) {
    return checked_mul(n, vllm_mxfp4_expert_bytes(round_up_to(h, l.hidden_align), round_up_to(part, l.intermediate_align)), "mxfp4 experts");
  };
  auto describe = [&](const Layout& l) {
    return std::string(l.backend) + " (I " + std::to_string(round_up_to(part, l.intermediate_align)) + ", H " +
           std::to_string(round_up_to(h, l.hidden_align)) + ")";
  };
  out.applies = true;
  out.checkpoint = checked_mul(n, vllm_mxfp4_expert_bytes(h, part), "mxfp4 experts");
  const std::string code = "vllm/model_executor/layers/quantization/mxfp4.py get_mxfp4_backend + Mxfp4MoEMethod.create_weights";
  auto set = [&](const Layout& lo, const Layout& hi) {
    out.low = bytes(lo), out.high = bytes(hi);
    out.low_backend = describe(lo), out.high_backend = describe(hi);
  };
  const bool cuda = arch != VllmGpuArch::other;
  if (arch == VllmGpuArch::cuda_pre_hopper || (cuda && force_marlin)) {
    set(kMarlin, kMarlin);
    out.typical = out.low;
    out.source = code + ": " + (force_marlin ? "VLLM_MXFP4_USE_MARLIN=1" : "below SM90 MXFP4 MoE runs on Marlin only") +
                 "; prepare_moe_fp4_layer_for_marlin keeps those bytes (4-bit repack, e8m0 scales, bf16 biases)";
  } else if (arch == VllmGpuArch::sm90) {
    set(kTriton, kMarlin);
    // 0.10.x on an H100 logged the Marlin path (vllm-project/vllm#23278); later releases ship
    // triton_kernels and log "Using Triton backend" (vllm-project/vllm#33155, 0.14.1).
    out.typical = vllm_minor_of(engine_version) <= 10 ? out.high : 0;
    out.source = code + ": on SM90 Triton (I to 64; its triton_kernels swizzle, mxfp4_utils._swizzle_mxfp4, is not "
                        "derived: the low end is the unswizzled allocation) or Marlin without triton_kernels (the "
                        "high end; vLLM 0.10.1 on an H100 ran it, vllm-project/vllm#23278)";
  } else if (arch == VllmGpuArch::sm100) {
    set(kTriton, kFlashinferSm100);
    out.source = code + ": on SM100 FlashInfer's TRT-LLM / BF16 MoE (I and H to 256, the high end) with flashinfer "
                        "installed, Triton without it (I to 64, its swizzle not derived)";
  } else if (arch == VllmGpuArch::sm120) {
    // Marlin in current releases (Triton needs capability < 11.0, FlashInfer the SM100 family);
    // which 0.10.x picked here is not derived, so the band reaches down to Triton's allocation.
    if (vllm_minor_of(engine_version) > 10) set(kMarlin, kMarlin), out.typical = out.low;
    else set(kTriton, kMarlin);
    out.source = code + ": on SM120 Marlin (Triton needs capability below 11.0, FlashInfer the SM100 family)";
  } else {
    set(kTriton, kFlashinferSm100);
    out.source = code + ": ROCm pads I and H to get_padding_alignment() (not derived; band from no padding to 256)";
  }
  return out;
}

}  // namespace kvplan
