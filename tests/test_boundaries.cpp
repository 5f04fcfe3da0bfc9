// Holes that a planted bug slipped through (issue 18): each test here fails on that bug.
// (a) Mamba-2 groups replicated when tp > n_groups: exact per-rank state, derived by hand from
//     vLLM's MambaStateShapeCalculator.mamba2_state_shape / extra_groups_for_head_shards
//     (vllm/model_executor/layers/mamba/mamba_utils.py), through size, plan, vLLM and SGLang.
// (b) `check` at the boundary: a requirement exactly equal to what fits passes, one more fails,
//     for every engine (so `>=` turned into `>` fails here).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "helpers.h"
#include "util/config_view.h"

using namespace kvplan;
using namespace kvplan::test;

namespace {

// Nemotron-H-56B-Base-8K (bundled, verbatim config): 54 Mamba-2 layers ('M' in
// hybrid_override_pattern), mamba_num_heads 256, mamba_head_dim 64 (d_inner 16,384),
// ssm_state_size 256, n_groups 8, conv_kernel 4, bfloat16.
constexpr std::uint64_t kMambaLayers = 54;

ModelSpec nemotron_h(std::uint64_t n_groups) {
  std::ifstream in(source_path("model_configs/nvidia__Nemotron-H-56B-Base-8K.json"));
  std::stringstream text;
  text << in.rdbuf();
  // The config writes time_step_limit as [0.0, Infinity]: the config reader's JSON parser takes it.
  auto cfg = detail::parse_config_text(text.str(), "nemotron-h.json");
  cfg["n_groups"] = n_groups;  // n_groups = 1: the same model with one B/C group (no bundled model has one)
  return load_model_from_json(cfg.dump(), "nemotron-h-groups-" + std::to_string(n_groups) + ".json");
}

struct Expected {
  std::uint64_t tp, n_groups;
  std::uint64_t conv_elems;  // (conv_kernel - 1) x (d_inner + 2 x groups' x d_state) / tp
  std::uint64_t ssm_elems;   // (heads / tp) x head_dim x d_state
};

// By hand, vLLM's rule: groups' = n_groups when tp divides it, else n_groups + (tp - n_groups).
//  tp 16, 8 groups: groups' = 16; conv 3 x (16,384 + 2 x 16 x 256) / 16 = 3 x 1,536 = 4,608;
//                   ssm 16 x 64 x 256 = 262,144.        (unreplicated: 3 x 1,280 = 3,840)
//  tp 2, 1 group:   groups' = 2;  conv 3 x (16,384 + 1,024) / 2 = 3 x 8,704 = 26,112;
//                   ssm 128 x 64 x 256 = 2,097,152.     (unreplicated: 3 x 8,448 = 25,344)
//  tp 4, 1 group:   groups' = 4;  conv 3 x (16,384 + 2,048) / 4 = 3 x 4,608 = 13,824;
//                   ssm 64 x 64 x 256 = 1,048,576.      (unreplicated: 3 x 4,224 = 12,672)
const Expected kCases[] = {{16, 8, 4608, 262144}, {2, 1, 26112, 2097152}, {4, 1, 13824, 1048576}};

}  // namespace

BOOST_AUTO_TEST_SUITE(boundaries)

BOOST_AUTO_TEST_CASE(mamba2_groups_replicated_per_rank) {
  for (const auto& e : kCases) {
    BOOST_TEST_CONTEXT("tp " << e.tp << ", n_groups " << e.n_groups) {
      const ModelSpec m = nemotron_h(e.n_groups);
      // bf16 conv and SSM state (the model dtype), one sequence, per rank.
      const std::uint64_t layer_bf16 = (e.conv_elems + e.ssm_elems) * 2;
      // size
      Workload w;
      w.tokens = 4096;
      w.tp = e.tp;
      BOOST_TEST(cache_size(m, w).state_bytes == kMambaLayers * layer_bf16);
      // plan (concurrency 1, one pipeline stage)
      PlanInput in;
      in.gpu = find_accelerator("H200");
      in.tp = e.tp;
      in.context = 4096;
      in.concurrency = 1;
      BOOST_TEST(plan(m, in).per_gpu.state_bytes == kMambaLayers * layer_bf16);
      // vLLM: one Mamba page holds one sequence's state of one layer; conv in the model dtype
      // (bf16), the temporal state in float32: NemotronHForCausalLMConfig
      // (vllm/model_executor/models/config.py) turns mamba_ssm_cache_dtype "auto" into float32.
      VllmOptions v;
      v.max_model_len = 4096;
      v.available_kv_bytes = 40 * GiB;
      v.tensor_parallel_size = e.tp;
      BOOST_TEST(vllm_profile(m, v).mamba_page_bytes == e.conv_elems * 2 + e.ssm_elems * 4);
      // SGLang: conv in bf16, temporal state in --mamba-ssm-dtype (default float32), every Mamba layer
      SglangOptions s;
      s.rest_bytes = 100 * GiB;
      s.context_length = 4096;
      s.tp_size = e.tp;
      BOOST_TEST(sglang_profile(m, s).mamba_cache_per_req == kMambaLayers * (e.conv_elems * 2 + e.ssm_elems * 4));
    }
  }
  // The figures, spelled out once: tp 16 on the real config.
  BOOST_TEST(kMambaLayers * (4608 + 262144) * 2 == 28809216u);
}

namespace {
CheckResult run_check(const std::string& command, std::optional<std::uint64_t> conc, std::optional<std::uint64_t> ctx,
                      const std::string& gpu = "H100", std::optional<std::string> model = std::nullopt) {
  CheckOptions o;
  o.gpu = gpu;
  o.require_concurrency = conc;
  o.require_context = ctx;
  o.model = model;
  return check_deployment(parse_launch_command(split_command_line(command)), o);
}

struct EngineCase {
  const char* command;
  std::optional<std::string> model;
};
// TensorRT-LLM's concurrency is blocks / blocks per sequence; kv_cache_config.max_tokens 131,072
// makes it 4,096 / 1,024 = 4 exactly.
std::string trtllm_extra_options() {
  const auto path = std::filesystem::temp_directory_path() / "kvplan-boundaries-extra.yaml";
  std::ofstream(path) << "kv_cache_config:\n  max_tokens: 131072\n";
  return path.string();
}
const EngineCase kEngines[] = {
    {"vllm serve Qwen/Qwen3-8B --max-model-len 32768 --num-gpu-blocks-override 8192", std::nullopt},
    {"python -m sglang.launch_server --model-path Qwen/Qwen3-8B --context-length 32768 --max-total-tokens 131072", std::nullopt},
    {"llama-server -m qwen3-8b.gguf --ctx-size 131072 --parallel 4", std::string("Qwen/Qwen3-8B")},
    {"trtllm-serve Qwen/Qwen3-8B --max_seq_len 32768 --extra_llm_api_options ", std::nullopt},
};
}  // namespace

BOOST_AUTO_TEST_CASE(check_passes_at_equality_and_fails_one_above) {
  for (const auto& ec : kEngines) {
    EngineCase e = ec;
    std::string cmd = e.command;
    if (cmd.ends_with("--extra_llm_api_options ")) cmd += trtllm_extra_options();
    e.command = cmd.c_str();
    BOOST_TEST_CONTEXT(e.command) {
      const CheckResult base = run_check(e.command, std::nullopt, std::nullopt, "H100", e.model);
      BOOST_REQUIRE(base.passed);
      // Context: what one request can hold.
      const std::uint64_t ctx = std::min(base.context, base.max_fitting_context);
      BOOST_TEST(run_check(e.command, std::nullopt, ctx, "H100", e.model).passed);
      BOOST_TEST(!run_check(e.command, std::nullopt, ctx + 1, "H100", e.model).passed);
      // Concurrency: each setup makes the engine's figure a whole number, so equality is exact.
      const double conc = base.max_concurrency;
      BOOST_REQUIRE(conc >= 1);
      BOOST_REQUIRE(conc == std::floor(conc));
      const auto n = static_cast<std::uint64_t>(conc);
      BOOST_TEST(run_check(e.command, n, std::nullopt, "H100", e.model).passed);
      const CheckResult above = run_check(e.command, n + 1, std::nullopt, "H100", e.model);
      BOOST_TEST(!above.passed);
      BOOST_TEST(above.exit_code() == 1);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
