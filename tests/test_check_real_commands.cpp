// kvplan check on launch commands written by others, each verbatim with where it was published:
// flags kvplan does not model make the verdict UNCERTAIN (naming the flag and why) while the
// memory kvplan counts holds, and FAIL only where it does not; the real flags that were unknown
// are read as the engines read them.
#include <filesystem>
#include <fstream>

#include "helpers.h"
#include "kvplan/check.h"
#include "kvplan/simulate.h"

using namespace kvplan;
using kvplan::test::HasMessage;

namespace {
CheckResult real_check(const std::string& cmd, const std::string& gpu, std::uint64_t gpus = 0,
                       std::optional<std::string> model = std::nullopt) {
  CheckOptions o;
  o.gpu = gpu;
  o.gpus = gpus;
  o.model = model;
  return check_deployment(parse_launch_command(split_command_line(cmd)), o);
}
const CheckRequirement* real_check_named(const CheckResult& r, const std::string& name) {
  for (const auto& c : r.checks)
    if (c.name == name) return &c;
  return nullptr;
}
// The verdict with the modelled check left out: what the memory kvplan counts says.
bool real_memory_holds(const CheckResult& r) {
  for (const auto& c : r.checks)
    if (c.name != "modelled" && c.status != Verdict::pass) return false;
  return true;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(check_real_commands)

BOOST_AUTO_TEST_CASE(unmodelled_flags_are_uncertain_never_fail_while_the_memory_holds) {
  // vllm-project/recipes@1108854468aa1fee754efc885fb452293c96dedb Qwen/Qwen2.5-VL.md
  // https://github.com/vllm-project/recipes/blob/main/Qwen/Qwen2.5-VL.md ("Qwen2.5-VL-7B-Instruct on
  // 4xA100 with DP=4"): 15.2 GiB of weights on an 80 GB A100, 0.9 of it budgeted.
  const std::string vl =
      R"(vllm serve Qwen/Qwen2.5-VL-7B-Instruct  --host 0.0.0.0 --port 8000 --data-parallel-size 4 --limit-mm-per-prompt '{"image":2,"video":0}')";
  auto r = real_check(vl, "A100-80GB", 4);
  BOOST_TEST((r.verdict == Verdict::uncertain));
  BOOST_TEST(r.starts);
  BOOST_TEST(real_memory_holds(r));
  const auto* m = real_check_named(r, "modelled");
  BOOST_REQUIRE(m);
  BOOST_TEST((m->status == Verdict::uncertain));
  BOOST_TEST(m->message.find("--limit-mm-per-prompt") != std::string::npos);
  BOOST_TEST(m->message.find("encoder") != std::string::npos);  // why: the encoder profile / cache
  BOOST_TEST(r.margin.find("without the flags kvplan does not model") != std::string::npos);
  // The same command without the flag: vLLM still profiles the encoder (at its default limits),
  // which kvplan does not model either (vllm-project/vllm#18124: a VL model that found no KV
  // memory); the memory kvplan counts is the same and holds, so UNCERTAIN, not PASS.
  auto without = real_check("vllm serve Qwen/Qwen2.5-VL-7B-Instruct  --host 0.0.0.0 --port 8000 --data-parallel-size 4",
                            "A100-80GB", 4);
  BOOST_TEST((without.verdict == Verdict::uncertain));
  BOOST_TEST(real_memory_holds(without));
  const auto* enc = real_check_named(without, "modelled");
  BOOST_REQUIRE(enc);
  BOOST_TEST(enc->message.find("multimodal encoder's profiling run") != std::string::npos);
  BOOST_TEST(without.kv_cache_tokens == r.kv_cache_tokens);

  // sgl-project/sglang@067ad4d335bbd6da15d4a83a6f257cfa9e0f6be0 docs/advanced_features/speculative_decoding.md
  // https://docs.sglang.io/advanced_features/speculative_decoding.html ("Standalone Speculative
  // Decoding (Small Draft Model)"): the draft model's weights and KV pool are not counted.
  const std::string standalone =
      "python3 -m sglang.launch_server --model Qwen/Qwen2.5-7B-Instruct --speculative-algorithm STANDALONE "
      "--speculative-draft-model-path Qwen/Qwen2.5-1.5B-Instruct --speculative-num-steps 4 --speculative-eagle-topk 2 "
      "--speculative-num-draft-tokens 7 --mem-fraction-static 0.7 --cuda-graph-max-bs 8 --log-level warning";
  auto s = real_check(standalone, "H100");
  BOOST_TEST((s.verdict == Verdict::uncertain));
  BOOST_TEST(real_memory_holds(s));
  const auto* sm = real_check_named(s, "modelled");
  BOOST_REQUIRE(sm);
  for (const char* flag : {"--speculative-algorithm", "--speculative-draft-model-path", "--speculative-num-draft-tokens"})
    BOOST_TEST(sm->message.find(flag) != std::string::npos);
  BOOST_TEST(sm->message.find("draft model") != std::string::npos);

  // The same page, "EAGLE-3 Decoding": meta-llama/Meta-Llama-3.1-8B-Instruct is the pre-rename id
  // of meta-llama/Llama-3.1-8B-Instruct (the same config.json), given as --model.
  const std::string eagle3 =
      "python3 -m sglang.launch_server --model meta-llama/Meta-Llama-3.1-8B-Instruct --speculative-algorithm EAGLE3 "
      "--speculative-draft-model-path jamesliu1/sglang-EAGLE3-Llama-3.1-Instruct-8B --speculative-num-steps 3 "
      "--speculative-eagle-topk 4 --speculative-num-draft-tokens 16 --mem-fraction-static 0.7 --cuda-graph-max-bs 8 "
      "--dtype float16 --log-level warning";
  auto e = real_check(eagle3, "H100", 0, std::string("meta-llama/Llama-3.1-8B-Instruct"));
  BOOST_TEST((e.verdict == Verdict::uncertain));
  BOOST_TEST(real_memory_holds(e));

  // Where the memory kvplan counts does not hold, the verdict still FAILs: 15.2 GiB of weights on
  // a 16 GB T4 (the recipe's command, one GPU).
  auto small = real_check(
      R"(vllm serve Qwen/Qwen2.5-VL-7B-Instruct --limit-mm-per-prompt '{"image":2,"video":0}' --dtype float16)", "T4");
  BOOST_TEST((small.verdict == Verdict::fail));
  BOOST_TEST(!real_memory_holds(small));
  BOOST_TEST((real_check_named(small, "modelled")->status == Verdict::uncertain));
}

BOOST_AUTO_TEST_CASE(real_flags_that_were_unknown_are_read) {
  // TensorRT-LLM's config table: docs/source/deployment-guide/config_table.rst
  // (NVIDIA/TensorRT-LLM@010405f19198a7318d08009ab311fa38b445df89), openai/gpt-oss-120b on H200,
  // "trtllm-serve openai/gpt-oss-120b --config ${TRTLLM_DIR}/examples/configs/database/openai/gpt-oss-120b/H200/1k1k_tp1_conc4.yaml";
  // the YAML verbatim from examples/configs/database/openai/gpt-oss-120b/H200/1k1k_tp1_conc4.yaml
  // (@f7e4f5d94ce8526e21a1c8023770e0a8bdeb9c14). --config is a second name of
  // --extra_llm_api_options in tensorrt_llm/commands/serve.py (@00209af149e7774406881a37283dce303571eb11).
  const auto dir = std::filesystem::temp_directory_path() / "kvplan_test_real_commands";
  std::filesystem::create_directories(dir);
  const auto yaml = dir / "1k1k_tp1_conc4.yaml";
  std::ofstream(yaml) << "env_overrides:\n  TRTLLM_ENABLE_PDL: 1\ncuda_graph_config:\n  enable_padding: true\n  max_batch_size: 4\n"
                         "enable_attention_dp: false\nkv_cache_config:\n  dtype: auto\n  free_gpu_memory_fraction: 0.85\n"
                         "moe_config:\n  backend: TRITON\nnum_postprocess_workers: 4\nprint_iter_log: true\nstream_interval: 20\n"
                         "tensor_parallel_size: 1\nmoe_expert_parallel_size: 1\ntrust_remote_code: true\nbackend: pytorch\n"
                         "max_num_tokens: 20000\nmax_seq_len: 2068\n";
  auto t = real_check("trtllm-serve openai/gpt-oss-120b --config " + yaml.string(), "H200");
  auto t_old = real_check("trtllm-serve openai/gpt-oss-120b --extra_llm_api_options " + yaml.string(), "H200");
  BOOST_TEST(t.context == 2068u);  // max_seq_len from the file
  BOOST_TEST(t.kv_cache_tokens == t_old.kv_cache_tokens);
  BOOST_TEST(t.kv_cache_tokens > 0u);
  // The default fraction (0.9) gives more: the file's 0.85 was read.
  BOOST_TEST(real_check("trtllm-serve openai/gpt-oss-120b --max_seq_len 2068", "H200").kv_cache_tokens > t.kv_cache_tokens);
  // The serve.py aliases of the same options.
  BOOST_TEST(real_check("trtllm-serve meta-llama/Llama-3.1-8B --tensor_parallel_size 2 --free_gpu_memory_fraction 0.5", "H100", 2).kv_cache_tokens ==
             real_check("trtllm-serve meta-llama/Llama-3.1-8B --tp_size 2 --kv_cache_free_gpu_memory_fraction 0.5", "H100", 2).kv_cache_tokens);

  // vLLM's dotted JSON keys: vllm-project/recipes@134386f2a196fe7ce7eb0405e50755c233128a87 GLM/GLM5.md
  // ("Serving FP8 Model on 8xH200"), read as vLLM's FlexibleArgumentParser merges them
  // (vllm/utils/argparse_utils.py @00da11e37d1ffac917c3427fff227500302eb452): the same as the JSON.
  const std::string glm_dotted =
      "vllm serve zai-org/GLM-5-FP8 --tensor-parallel-size 8 --speculative-config.method mtp "
      "--speculative-config.num_speculative_tokens 3 --tool-call-parser glm47 --reasoning-parser glm45 "
      "--enable-auto-tool-choice --served-model-name glm-5-fp8";
  const std::string glm_json =
      R"(vllm serve zai-org/GLM-5-FP8 --tensor-parallel-size 8 --speculative-config '{"method": "mtp", "num_speculative_tokens": 3}' )"
      "--tool-call-parser glm47 --reasoning-parser glm45 --enable-auto-tool-choice --served-model-name glm-5-fp8";
  auto gd = real_check(glm_dotted, "H200", 8), gj = real_check(glm_json, "H200", 8);
  BOOST_TEST(gd.kv_cache_tokens == gj.kv_cache_tokens);
  BOOST_TEST(gd.kv_budget_bytes == gj.kv_budget_bytes);
  BOOST_TEST((gd.verdict == gj.verdict));
  // The draft is a budget term: without it the KV memory is larger.
  BOOST_TEST(real_check("vllm serve zai-org/GLM-5-FP8 --tensor-parallel-size 8", "H200", 8).kv_budget_bytes > gd.kv_budget_bytes);
  // `key+ a,b` appends to a list; a key needs a name after each dot.
  BOOST_CHECK_EXCEPTION(real_check("vllm serve meta-llama/Llama-3.1-8B --speculative-config. 3", "H100"), InputError,
                        HasMessage({"--speculative-config."}));

  // Newer vLLM flags: --reasoning-parser-plugin does not change memory; --language-model-only
  // leaves the vision encoder out, which kvplan's weight count keeps in (UNCERTAIN, named).
  BOOST_TEST((classify_engine_flag(EngineKind::vllm, "--reasoning-parser-plugin") == EngineFlagClass::ignored));
  auto lmo = real_check("vllm serve Qwen/Qwen2.5-VL-7B-Instruct --language-model-only --max-model-len 32768", "H100");
  BOOST_TEST((lmo.verdict == Verdict::uncertain));
  BOOST_TEST(real_check_named(lmo, "modelled")->message.find("--language-model-only") != std::string::npos);

  // argparse abbreviations (vLLM's FlexibleArgumentParser passes no allow_abbrev): a unique prefix
  // reads as its flag, --no-x ones included; a prefix of several is an error.
  auto ab = real_check("vllm serve meta-llama/Llama-3.1-8B --max-model 8192 --gpu-memory-util 0.8", "H100");
  auto full = real_check("vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192 --gpu-memory-utilization 0.8", "H100");
  BOOST_TEST(ab.context == 8192u);
  BOOST_TEST(ab.kv_cache_tokens == full.kv_cache_tokens);
  BOOST_CHECK_EXCEPTION(real_check("vllm serve meta-llama/Llama-3.1-8B --max-num 8", "H100"), InputError, HasMessage({"ambiguous"}));
  // kvplan's own --gpu after `--` is named as such, not read as --gpu-memory-utilization.
  BOOST_CHECK_EXCEPTION(real_check("vllm serve meta-llama/Llama-3.1-8B --gpu H100", "H100"), InputError, HasMessage({"kvplan check"}));

  // SGLang: sgl-project/sglang@01253e4ea51103f00cff2b055ee92ffc9fdf0bc7 docs/basic_usage/deepseek_v32.md
  // (the DeepSeek-V3.2 launch command, with the --nsa-prefill-backend / --nsa-decode-backend
  // kernels that page lists); the older --disable-disk-cache (outlines' disk cache) is read too.
  const std::string v32 =
      "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --trust-remote-code --tp-size 8 --dp-size 8 "
      "--enable-dp-attention --tool-call-parser deepseekv32 --reasoning-parser deepseek-v3";
  auto plain = real_check(v32, "H200", 8);
  auto nsa = real_check(v32 + " --nsa-prefill-backend flashmla_sparse --nsa-decode-backend fa3", "H200", 8);
  BOOST_TEST(nsa.kv_cache_tokens == plain.kv_cache_tokens);
  BOOST_TEST((classify_engine_flag(EngineKind::sglang, "--disable-disk-cache") == EngineFlagClass::ignored));
}

BOOST_AUTO_TEST_CASE(sglang_chunked_prefill_size_is_read_once) {
  // SGLang's scheduler (python/sglang/srt/managers/scheduler.py, init_chunked_prefill) turns
  // chunked prefill off for --chunked-prefill-size <= 0: check and simulate share that reading, so
  // 0 is -1 in both (simulate refused 0 before).
  const std::string base = "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --context-length 8192 --chunked-prefill-size ";
  BOOST_TEST(real_check(base + "0", "H100").kv_cache_tokens == real_check(base + "-1", "H100").kv_cache_tokens);
  BOOST_TEST(real_check(base + "4096", "H100").kv_cache_tokens != real_check(base + "-1", "H100").kv_cache_tokens);
  for (const char* off : {"0", "-1"}) {
    const auto s = sglang_sim_options(parse_launch_command(split_command_line(base + off)));
    BOOST_TEST(!s.scheduler.chunked_prefill);
    BOOST_TEST(!s.options.chunked_prefill_size.has_value());
  }
  const auto on = sglang_sim_options(parse_launch_command(split_command_line(base + "4096")));
  BOOST_TEST(on.scheduler.chunked_prefill);
  BOOST_TEST(on.options.chunked_prefill_size.value_or(0) == 4096u);
  BOOST_CHECK_EXCEPTION(real_check(base + "-2", "H100"), InputError, HasMessage({"--chunked-prefill-size", "-2"}));
}

BOOST_AUTO_TEST_SUITE_END()
