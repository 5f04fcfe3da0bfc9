#pragma once
// Weights as vLLM holds them, where its kernels pad or repack what the checkpoint stores.
// Today: MXFP4 MoE checkpoints (gpt-oss, quant_method "mxfp4"), whose routed experts vLLM's
// Mxfp4MoEMethod allocates at padded sizes that depend on the MoE backend it picks for the GPU.
#include <cstdint>
#include <string>
#include <string_view>

#include "kvplan/model.h"

namespace kvplan {

// The GPU families vLLM's MXFP4 backend choice tells apart (by CUDA compute capability).
enum class VllmGpuArch {
  cuda_pre_hopper,  // SM80-SM89 (A100, A10, L4, L40S, RTX 30/40): MXFP4 runs on Marlin only
  sm90,             // Hopper (H100, H200, H20, H800, GH200)
  sm100,            // datacenter Blackwell (B200, B300, GB200)
  sm120,            // consumer / workstation Blackwell (RTX 5090, RTX PRO 6000)
  other,            // ROCm, XPU, ...: a padding kvplan does not derive
};

// One expert's bytes as Mxfp4MoEMethod.create_weights allocates them: w13 (2 x I rows of H/2
// bytes of e2m1 pairs, H/32 e8m0 scales, a bf16 bias) and w2 (H rows of I/2 bytes, I/32 scales, a
// bf16 bias), with I = the intermediate size per partition and H = the hidden size after the
// backend's padding.
std::uint64_t vllm_mxfp4_expert_bytes(std::uint64_t hidden, std::uint64_t intermediate);

// The routed experts of one GPU as vLLM holds them: a band [low, high] over the backends the GPU
// and release may pick (low == high where only one can run), with the typical end kvplan takes
// for its point estimate. `applies` is false for a model that is not an MXFP4 MoE checkpoint.
struct VllmMxfp4Experts {
  bool applies = false;
  std::uint64_t checkpoint = 0;  // the same experts at the checkpoint's own shapes (per GPU)
  std::uint64_t low = 0, high = 0, typical = 0;
  std::string low_backend, high_backend;  // "Marlin (I 2944, H 3072)", ...
  std::string source;                     // the vLLM code the band follows, and what is not derived
};
// tp: tensor parallel size; ep_ranks: expert-parallel ranks (0: no expert parallelism, the
// intermediate size is split over tp); pp: pipeline stages (MoE layers split evenly);
// engine_version: "0.10.1", "latest", ... (empty: latest); force_marlin: VLLM_MXFP4_USE_MARLIN=1.
VllmMxfp4Experts vllm_mxfp4_experts(const ModelSpec& m, VllmGpuArch arch, std::uint64_t tp, std::uint64_t ep_ranks,
                                    std::uint64_t pp, std::string_view engine_version, bool force_marlin = false);

}  // namespace kvplan
