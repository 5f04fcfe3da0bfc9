// vLLM's MXFP4 MoE experts as the engine holds them (engines/vllm_weights.cpp). Expected bytes are
// derived by hand from vllm/model_executor/layers/quantization/mxfp4.py@007d50058a06
// Mxfp4MoEMethod.create_weights: per expert w13 = 2I rows x (H/2 value bytes + H/32 e8m0 scales + 2
// bias bytes), w2 = H rows x (I/2 + I/32 + 2), with I and H rounded up per backend (Marlin: I to 128,
// H to 256; SM100 FlashInfer: both to 256; Triton: I to 64). gpt-oss-120b: H = I = 2880, 128
// experts, 36 layers = 4,608 experts.
#include <cstdint>

#include "helpers.h"
#include "kvplan/vllm_weights.h"
#include "kvplan/weights.h"

using namespace kvplan;
using u64 = std::uint64_t;

namespace {
constexpr u64 kExperts120b = 36 * 128;
// Checkpoint shapes: 5760 x (1440 + 90 + 2) + 2880 x (1440 + 90 + 2).
constexpr u64 kCheckpointExpert = 5760 * 1532 + 2880 * 1532;  // 13,236,480
// Marlin: I 2944, H 3072: 5888 x (1536 + 96 + 2) + 3072 x (1472 + 92 + 2).
constexpr u64 kMarlinExpert = 5888 * 1634 + 3072 * 1566;  // 14,431,744
// SM100 FlashInfer: I 3072, H 3072: 6144 x (1536 + 96 + 2) + 3072 x (1536 + 96 + 2).
constexpr u64 kFlashinferExpert = 6144 * 1634 + 3072 * 1634;
}  // namespace

BOOST_AUTO_TEST_SUITE(vllm_weights)

BOOST_AUTO_TEST_CASE(one_expert_at_each_backends_shapes) {
  BOOST_TEST(vllm_mxfp4_expert_bytes(2880, 2880) == kCheckpointExpert);
  BOOST_TEST(kCheckpointExpert == 13'236'480u);
  BOOST_TEST(vllm_mxfp4_expert_bytes(3072, 2944) == kMarlinExpert);
  BOOST_TEST(kMarlinExpert == 14'431'744u);
  BOOST_TEST(vllm_mxfp4_expert_bytes(3072, 3072) == kFlashinferExpert);
}

BOOST_AUTO_TEST_CASE(gpt_oss_120b_per_architecture) {
  const ModelSpec m = load_model("openai/gpt-oss-120b");
  // The checkpoint's experts as kvplan's weight rule counts them are the unpadded allocation.
  const auto ampere = vllm_mxfp4_experts(m, VllmGpuArch::cuda_pre_hopper, 1, 0, 1, "0.10.1");
  BOOST_REQUIRE(ampere.applies);
  BOOST_TEST(ampere.checkpoint == kExperts120b * kCheckpointExpert);
  BOOST_TEST(ampere.checkpoint == weight_bytes(m).experts);
  // Below SM90: Marlin only, exact: 66,501,476,352 B, 5.51 GB above the checkpoint's experts.
  BOOST_TEST(ampere.low == kExperts120b * kMarlinExpert);
  BOOST_TEST(ampere.high == ampere.low);
  BOOST_TEST(ampere.low == 66'501'476'352u);
  BOOST_TEST(ampere.low_backend == "Marlin (I 2944, H 3072)");
  // Hopper: Triton's allocation (no padding at 2880) to Marlin's; 0.10.x typically Marlin (vllm#23278).
  const auto hopper = vllm_mxfp4_experts(m, VllmGpuArch::sm90, 1, 0, 1, "0.10.1");
  BOOST_TEST(hopper.low == kExperts120b * kCheckpointExpert);
  BOOST_TEST(hopper.high == kExperts120b * kMarlinExpert);
  BOOST_TEST(hopper.typical == hopper.high);
  BOOST_TEST(vllm_mxfp4_experts(m, VllmGpuArch::sm90, 1, 0, 1, "").typical == 0u);  // latest: the band's midpoint
  // VLLM_MXFP4_USE_MARLIN=1 pins Hopper to Marlin.
  const auto forced = vllm_mxfp4_experts(m, VllmGpuArch::sm90, 1, 0, 1, "", true);
  BOOST_TEST(forced.low == forced.high);
  BOOST_TEST(forced.low == kExperts120b * kMarlinExpert);
  // Blackwell SM100: Triton to FlashInfer's 256-padded layout.
  const auto b200 = vllm_mxfp4_experts(m, VllmGpuArch::sm100, 1, 0, 1, "");
  BOOST_TEST(b200.low == kExperts120b * kCheckpointExpert);
  BOOST_TEST(b200.high == kExperts120b * kFlashinferExpert);
}

BOOST_AUTO_TEST_CASE(tensor_and_expert_parallel_split) {
  const ModelSpec m = load_model("openai/gpt-oss-120b");
  // TP 2 on an A100: I per partition 1440 -> Marlin 1536, H 3072:
  // 3072 x (1536 + 96 + 2) + 3072 x (768 + 48 + 2) = 7,532,544 B an expert.
  const auto tp2 = vllm_mxfp4_experts(m, VllmGpuArch::cuda_pre_hopper, 2, 0, 1, "");
  BOOST_TEST(tp2.low == kExperts120b * (3072u * 1634 + 3072u * 818));
  // EP over 4 ranks: 32 whole experts a layer, I unsplit.
  const auto ep4 = vllm_mxfp4_experts(m, VllmGpuArch::cuda_pre_hopper, 4, 4, 1, "");
  BOOST_TEST(ep4.low == 36u * 32 * kMarlinExpert);
  // PP 2: half the layers.
  BOOST_TEST(vllm_mxfp4_experts(m, VllmGpuArch::cuda_pre_hopper, 1, 0, 2, "").low == 18u * 128 * kMarlinExpert);
}

BOOST_AUTO_TEST_CASE(only_mxfp4_moe_checkpoints) {
  BOOST_TEST(!vllm_mxfp4_experts(load_model("meta-llama/Llama-3.1-8B"), VllmGpuArch::sm90, 1, 0, 1, "").applies);
  BOOST_TEST(!vllm_mxfp4_experts(load_model("Qwen/Qwen3-30B-A3B"), VllmGpuArch::sm90, 1, 0, 1, "").applies);
}

BOOST_AUTO_TEST_SUITE_END()
