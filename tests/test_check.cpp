// kvplan check: launch commands as shells and engines read them, manifests (yaml-cpp), the
// engines' own start-up validation, every outcome in every format, and verdicts whose figures
// follow from the engine rules (exact where the command fixes the KV memory).
#include <filesystem>
#include <fstream>

#include "helpers.h"
#include "kvplan/check.h"

using namespace kvplan;
using kvplan::test::HasMessage;
BOOST_TEST_DONT_PRINT_LOG_VALUE(kvplan::EngineKind)
BOOST_TEST_DONT_PRINT_LOG_VALUE(kvplan::EngineFlagClass)

namespace {
CheckResult run(const std::string& cmd, const std::string& gpu = "H100", std::uint64_t gpus = 0,
                std::optional<std::uint64_t> conc = std::nullopt, std::optional<std::uint64_t> ctx = std::nullopt,
                std::optional<std::string> model = std::nullopt) {
  CheckOptions o;
  o.gpu = gpu;
  o.gpus = gpus;
  o.require_concurrency = conc;
  o.require_context = ctx;
  o.model = model;
  return check_deployment(parse_launch_command(split_command_line(cmd)), o);
}
CheckResult run_argv(const std::vector<std::string>& argv, const std::string& gpu = "H100") {
  CheckOptions o;
  o.gpu = gpu;
  return check_deployment(parse_launch_command(argv), o);
}
std::string temp_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "kvplan_test_check";
  std::filesystem::create_directories(dir);
  const auto p = dir / name;
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}
}  // namespace

BOOST_AUTO_TEST_SUITE(check)

BOOST_AUTO_TEST_CASE(shell_words_follow_posix) {
  auto v = split_command_line("vllm serve \\\n  'my model' --x=\"a b\" c\\ d");
  BOOST_REQUIRE(v.size() == 5u);
  BOOST_TEST(v[2] == "my model");
  BOOST_TEST(v[3] == "--x=a b");
  BOOST_TEST(v[4] == "c d");
  // A JSON argument in single quotes stays one word; "\"" and "\\" are escapes in double quotes,
  // other backslashes are kept.
  auto j = split_command_line(R"(vllm serve m --speculative-config '{"method": "eagle", "num_speculative_tokens": 3}' "a\"b\\c\d")");
  BOOST_REQUIRE(j.size() == 6u);
  BOOST_TEST(j[4] == R"({"method": "eagle", "num_speculative_tokens": 3})");
  BOOST_TEST(j[5] == R"(a"b\c\d)");
  BOOST_TEST(split_command_line("vllm serve m # a comment").size() == 3u);
  BOOST_TEST(split_command_line("vllm serve m > log.txt 2>&1").size() == 3u);  // redirections dropped
  BOOST_CHECK_EXCEPTION(split_command_line("vllm serve 'x"), InputError, HasMessage({"closing ' quote"}));
  BOOST_CHECK_EXCEPTION(split_command_line("vllm serve \"x"), InputError, HasMessage({"closing \" quote"}));
  BOOST_CHECK_EXCEPTION(split_command_line("vllm serve m && echo done"), InputError, HasMessage({"one command"}));
}

BOOST_AUTO_TEST_CASE(recognises_engines_and_wrappers) {
  auto p = [](const std::string& s) { return parse_launch_command(split_command_line(s)); };
  BOOST_TEST(p("vllm serve m --tp 2").engine == EngineKind::vllm);
  BOOST_TEST(p("CUDA_VISIBLE_DEVICES=0 python3 -m sglang.launch_server --model-path m").engine == EngineKind::sglang);
  BOOST_TEST(p("/usr/bin/llama-server -m x.gguf").engine == EngineKind::llamacpp);
  BOOST_TEST(p("trtllm-serve m --tp_size 8").args.size() == 3u);
  BOOST_TEST(p("python -u -m vllm.entrypoints.api_server --model m").engine == EngineKind::vllm);
  BOOST_TEST(p("python3 -m vllm.entrypoints.openai.api_server --model m").engine == EngineKind::vllm);
  // Env assignments are kept; CUDA_VISIBLE_DEVICES gives the GPU count the engine sees.
  auto e = p("CUDA_VISIBLE_DEVICES=0,1 VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve m");
  BOOST_TEST(e.gpus == 2u);
  BOOST_TEST(e.env.size() == 2u);
  BOOST_TEST(p("env -u X exec vllm serve m").engine == EngineKind::vllm);
  // docker run / podman run around the engines' images.
  auto d = p("docker run --runtime nvidia --gpus '\"device=0,1\"' -v ~/.cache:/root/.cache -p 8000:8000 --ipc=host "
             "vllm/vllm-openai:latest --model m --tensor-parallel-size 2");
  BOOST_TEST(d.engine == EngineKind::vllm);
  BOOST_TEST(d.gpus == 2u);
  BOOST_TEST(d.args.size() == 4u);
  BOOST_TEST(p("podman run -it --rm ghcr.io/ggml-org/llama.cpp:server-cuda -m m.gguf -c 4096").engine == EngineKind::llamacpp);
  BOOST_TEST(p("docker run --gpus all --shm-size 32g lmsysorg/sglang:latest python3 -m sglang.launch_server --model-path m").engine ==
             EngineKind::sglang);
  BOOST_TEST(p("docker run --gpus all nvcr.io/nvidia/tensorrt-llm/release:1.0.0 trtllm-serve m").engine == EngineKind::trtllm);
  BOOST_TEST(p("bash -c 'export X=1; vllm serve m --port 8000'").engine == EngineKind::vllm);
  BOOST_CHECK_EXCEPTION(p("docker run lmsysorg/sglang:latest"), InputError, HasMessage({"lmsysorg/sglang:latest", "engine command"}));
  BOOST_CHECK_EXCEPTION(p("vllm serv m"), InputError, HasMessage({"vllm serve MODEL"}));
  BOOST_CHECK_EXCEPTION(p("ollama pull m"), InputError, HasMessage({"ollama pull m"}));
  BOOST_CHECK_EXCEPTION(p("python -m http.server"), InputError, HasMessage({"http.server"}));
  BOOST_CHECK_EXCEPTION(p("python -m vllm.entrypoints.cli.main"), InputError, HasMessage({"vllm.entrypoints.cli.main"}));
}

// Issue 29: the engines' server images already run the server (vllm/vllm-openai: ENTRYPOINT
// ["vllm", "serve"], vllm-project/vllm@dead20ba docker/Dockerfile; ghcr.io/ggml-org/llama.cpp:server*:
// ENTRYPOINT [ "/app/llama-server" ], ggml-org/llama.cpp@bb0e507a .devops/cuda.Dockerfile), and args
// are appended to it: `vllm serve` or `llama-server` repeated in args makes the container exit at
// start. Refused for docker run, a Kubernetes manifest (args, no command) and compose (command, no
// entrypoint), naming the image and the repeated words; with `command:` set the same words are fine.
BOOST_AUTO_TEST_CASE(engine_images_refuse_the_engine_repeated_in_args) {
  auto p = [](const std::string& s) { return parse_launch_command(split_command_line(s)); };
  BOOST_CHECK_EXCEPTION(p("docker run --gpus all vllm/vllm-openai:v0.11.0 vllm serve m"), InputError,
                        HasMessage({"vllm/vllm-openai:v0.11.0", "\"vllm serve\"", "entrypoint (vllm serve)"}));
  BOOST_CHECK_EXCEPTION(p("docker run ghcr.io/ggml-org/llama.cpp:server-cuda llama-server -m m.gguf"), InputError,
                        HasMessage({"ghcr.io/ggml-org/llama.cpp:server-cuda", "\"llama-server -m\"", "/app/llama-server"}));
  const auto k8s = [](const std::string& image, const std::string& fields) {
    return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  template:\n    spec:\n"
           "      containers:\n        - name: srv\n          image: " + image + "\n" + fields;
  };
  const std::string vllm_args = "          args: [vllm, serve, meta-llama/Llama-3.1-8B, --max-model-len, '8192']\n";
  BOOST_CHECK_EXCEPTION(parse_deployments(k8s("vllm/vllm-openai:v0.11.0", vllm_args), "vllm.yaml"), InputError,
                        HasMessage({"vllm.yaml", "vllm/vllm-openai:v0.11.0", "\"vllm serve\"", "runs it twice"}));
  BOOST_CHECK_EXCEPTION(parse_deployments(k8s("ghcr.io/ggml-org/llama.cpp:server", "          args: [llama-server, -m, /m/x.gguf]\n"),
                                          "llama.yaml"),
                        InputError, HasMessage({"llama.yaml", "ghcr.io/ggml-org/llama.cpp:server", "\"llama-server -m\""}));
  BOOST_CHECK_EXCEPTION(parse_deployments("services:\n  vllm:\n    image: vllm/vllm-openai\n    command: [vllm, serve, m]\n", "compose.yaml"),
                        InputError, HasMessage({"compose.yaml", "vllm/vllm-openai", "\"vllm serve\""}));
  // The same words as the command (replacing the entrypoint), or only the model and flags as args: read.
  const auto ok = parse_deployments(k8s("vllm/vllm-openai:v0.11.0", "          command: [vllm, serve]\n"
                                                                    "          args: [meta-llama/Llama-3.1-8B]\n"), "ok.yaml");
  BOOST_TEST(ok.at(0).engine == EngineKind::vllm);
  BOOST_TEST(ok.at(0).args.at(0) == "meta-llama/Llama-3.1-8B");
  BOOST_TEST(parse_deployments(k8s("vllm/vllm-openai:v0.11.0", "          args: [meta-llama/Llama-3.1-8B]\n"), "ok.yaml").at(0).engine ==
             EngineKind::vllm);
  BOOST_TEST(parse_deployments(k8s("ghcr.io/ggml-org/llama.cpp:server", "          args: [-m, /m/x.gguf]\n"), "ok.yaml").at(0).engine ==
             EngineKind::llamacpp);
}

BOOST_AUTO_TEST_CASE(vllm_number_suffixes_follow_vllm) {
  // vLLM's human_readable_int: lower case decimal (32k = 32,000), upper case binary (32K = 32,768).
  BOOST_TEST(run("vllm serve meta-llama/Llama-3.1-8B --max-model-len 32k --kv-cache-memory-bytes 10G").context == 32000u);
  BOOST_TEST(run("vllm serve meta-llama/Llama-3.1-8B --max-model-len 32K --kv-cache-memory-bytes 10G").context == 32768u);
  BOOST_TEST(run("vllm serve meta-llama/Llama-3.1-8B --max-model-len 25.6k --kv-cache-memory-bytes 10G").context == 25600u);
  BOOST_CHECK_EXCEPTION(run("vllm serve meta-llama/Llama-3.1-8B --max-model-len 1.5K"), InputError, HasMessage({"1.5K", "decimals"}));
  BOOST_CHECK_EXCEPTION(run("vllm serve meta-llama/Llama-3.1-8B --max-model-len 32kb"), InputError, HasMessage({"32kb"}));
}

BOOST_AUTO_TEST_CASE(engine_spellings) {
  BOOST_TEST(run("vllm serve meta-llama/Llama-3.1-70B -tp=4 --max-model-len 8192", "H100", 4).tp == 4u);
  BOOST_TEST(run("vllm serve meta-llama/Llama-3.1-70B --tensor_parallel_size 4 --max_model_len 8192", "H100", 4).tp == 4u);
  BOOST_TEST(run("vllm serve meta-llama/Llama-3.1-8B --kv_cache_memory_bytes=10G --max-model-len=32768").kv_cache_tokens == 81920u);
  BOOST_TEST(run("vllm serve --model=meta-llama/Llama-3.1-8B --max-model-len 8192 -O3 --compilation-config.mode 3").starts);
  BOOST_TEST(run("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tensor-parallel-size 2", "H100", 2).tp == 2u);
  BOOST_TEST(run("python -m sglang.launch_server --model Qwen/Qwen3-8B --tp 2 --dp 2", "H100", 4).gpus_needed == 4u);
  BOOST_TEST(run("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size 2", "H100", 2).tp == 2u);
  // llama.cpp: LLAMA_ARG_* env, -np -1 (auto), no --flag=value.
  auto l = run("LLAMA_ARG_CTX_SIZE=8192 LLAMA_ARG_N_PARALLEL=4 llama-server -m x.gguf", "RTX4090", 1, std::nullopt, std::nullopt,
               "meta-llama/Llama-3.1-8B");
  BOOST_TEST(l.context == 2048u);  // 8,192 cells over 4 slots
  auto np = run("llama-server -m x.gguf -c 8192 -np -1", "RTX4090", 1, std::nullopt, std::nullopt, "meta-llama/Llama-3.1-8B");
  BOOST_TEST(np.starts);
  BOOST_CHECK_EXCEPTION(run("llama-server -m x.gguf --ctx-size=8192", "RTX4090", 1, std::nullopt, std::nullopt, "meta-llama/Llama-3.1-8B"),
                        InputError, HasMessage({"--ctx-size=8192", "no --flag=value"}));
  // trtllm-serve: click's --opt=value.
  BOOST_TEST(run("trtllm-serve meta-llama/Llama-3.1-8B --max_seq_len=8192").context == 8192u);
}

BOOST_AUTO_TEST_CASE(kvplan_options_inside_the_engine_command_are_errors) {
  // The example docs/engines.md used to show: --require-concurrency after `--` became a vLLM flag.
  BOOST_CHECK_EXCEPTION(run("vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 --require-concurrency 100"), InputError,
                        HasMessage({"--require-concurrency", "belongs before `--`"}));
  BOOST_CHECK_EXCEPTION(run("python -m sglang.launch_server --model-path m --gpus 2"), InputError, HasMessage({"--gpus", "kvplan check"}));
}

BOOST_AUTO_TEST_CASE(vllm_refuses_explicit_bfloat16_below_compute_capability_8) {
  // vllm/platforms/cuda.py check_if_supports_dtype: "Bfloat16 is only supported on GPUs with
  // compute capability of at least 8.0" (T4 is 7.5, V100 7.0). "auto" falls back to float16.
  const CheckResult bad = run("vllm serve Qwen/Qwen3-0.6B --max-model-len 4096 --dtype bfloat16", "T4");
  BOOST_TEST(!bad.passed);
  BOOST_TEST(bad.exit_code() == 1);
  BOOST_TEST(bad.reasons.front().find("bfloat16") != std::string::npos);
  // (0.8: at vLLM's 0.9 the 1.39 GiB left on a T4's datasheet band may not hold the sampler warm-up.)
  BOOST_TEST(run("vllm serve Qwen/Qwen3-0.6B --max-model-len 4096 --dtype float16 --gpu-memory-utilization 0.8", "T4").passed);
  BOOST_TEST(run("vllm serve Qwen/Qwen3-0.6B --max-model-len 4096", "V100-32GB").passed);
  BOOST_TEST(!run("vllm serve Qwen/Qwen3-0.6B --max-model-len 4096 --dtype bfloat16", "V100-32GB").passed);
  BOOST_TEST(run("vllm serve Qwen/Qwen3-0.6B --max-model-len 4096 --dtype bfloat16", "A10").passed);
}

BOOST_AUTO_TEST_CASE(unknown_flags_are_errors) {
  BOOST_CHECK_EXCEPTION(run("vllm serve meta-llama/Llama-3.1-8B --tensor-paralel-size 2"), InputError,
                        HasMessage({"--tensor-paralel-size", "did you mean --tensor-parallel-size?"}));
  // More than two edits from any flag: still an error (never silently ignored).
  BOOST_CHECK_EXCEPTION(run("vllm serve meta-llama/Llama-3.1-8B --tensorparallelism 2"), InputError, HasMessage({"unknown", "--tensorparallelism"}));
  // vLLM's FlexibleArgumentParser keeps argparse's allow_abbrev (issue 26): --kv-cache-memory is a
  // unique prefix of --kv-cache-memory-bytes and reads as it; --kv-cache prefixes two flags.
  BOOST_TEST(run("vllm serve meta-llama/Llama-3.1-8B --kv-cache-memory 10G").kv_cache_tokens ==
             run("vllm serve meta-llama/Llama-3.1-8B --kv-cache-memory-bytes 10G").kv_cache_tokens);
  BOOST_CHECK_EXCEPTION(run("vllm serve meta-llama/Llama-3.1-8B --kv-cache 10G"), InputError, HasMessage({"--kv-cache", "ambiguous"}));
  BOOST_CHECK_EXCEPTION(run("vllm serve meta-llama/Llama-3.1-8B --max-model-len"), InputError, HasMessage({"--max-model-len"}));
  BOOST_CHECK_EXCEPTION(run("vllm serve meta-llama/Llama-3.1-8B --gpu-memory-utilization 1.5"), InputError,
                        HasMessage({"--gpu-memory-utilization", "1.5"}));
  BOOST_CHECK_EXCEPTION(run("vllm serve meta-llama/Llama-3.1-8B", "H900"), InputError, HasMessage({"H900"}));
  BOOST_CHECK_EXCEPTION(run("vllm serve no/such-model"), Error, HasMessage({"no/such-model"}));
}

BOOST_AUTO_TEST_CASE(every_flag_of_the_engines_is_classified) {
  const std::pair<EngineKind, const char*> engines[] = {
      {EngineKind::vllm, "vllm"}, {EngineKind::sglang, "sglang"}, {EngineKind::llamacpp, "llamacpp"}, {EngineKind::trtllm, "trtllm"}};
  for (const auto& [e, name] : engines) {
    std::ifstream in(test::source_path(std::string("tests/data/engine_flags/") + name + ".txt"));
    BOOST_REQUIRE(in);
    std::string line;
    std::size_t n = 0;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      ++n;
      BOOST_TEST_INFO(name << " " << line);
      BOOST_TEST(classify_engine_flag(e, line) != EngineFlagClass::unknown);
    }
    BOOST_TEST(n > 20u);
    BOOST_TEST(!engine_flag_source(e).empty());
  }
  BOOST_TEST(classify_engine_flag(EngineKind::vllm, "--max-model-len") == EngineFlagClass::memory);
  BOOST_TEST(classify_engine_flag(EngineKind::vllm, "--port") == EngineFlagClass::ignored);
  BOOST_TEST(classify_engine_flag(EngineKind::vllm, "--speculative-config") == EngineFlagClass::memory);  // a budget term
  BOOST_TEST(classify_engine_flag(EngineKind::vllm, "--enable-lora") == EngineFlagClass::memory);
  BOOST_TEST(classify_engine_flag(EngineKind::vllm, "--lora-dtype") == EngineFlagClass::unmodelled);
  BOOST_TEST(classify_engine_flag(EngineKind::vllm, "--no-enable-prefix-caching") == EngineFlagClass::memory);
  BOOST_TEST(classify_engine_flag(EngineKind::llamacpp, "LLAMA_ARG_CTX_SIZE") == EngineFlagClass::memory);
  BOOST_TEST(classify_engine_flag(EngineKind::vllm, "--require-concurrency") == EngineFlagClass::unknown);
}

BOOST_AUTO_TEST_CASE(engine_startup_validation) {
  // 32 attention heads: tp 3 is refused by vLLM, SGLang and TensorRT-LLM.
  for (const char* cmd : {"vllm serve meta-llama/Llama-3.1-8B -tp 3", "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --tp 3",
                          "trtllm-serve meta-llama/Llama-3.1-8B --tp_size 3"}) {
    auto r = run(cmd, "H100", 3);
    BOOST_TEST_INFO(cmd);
    BOOST_TEST(!r.passed);
    BOOST_TEST(!r.starts);
    BOOST_TEST(r.reasons.at(0).find("does not divide the model's 32 attention heads") != std::string::npos);
  }
  // Qwen2.5-7B-Instruct (config.json: 28 attention heads, 4 KV heads): tp 7 divides the heads but
  // neither 4 / 7 nor 7 / 4 is whole, which vLLM's and SGLang's QKVParallelLinear refuse (divide())
  // and TensorRT-LLM's weight loader asserts (duplicate_kv_weight): a PASS here was a wrong PASS.
  for (const char* cmd : {"vllm serve Qwen/Qwen2.5-7B-Instruct -tp 7", "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --tp 7",
                          "trtllm-serve Qwen/Qwen2.5-7B-Instruct --tp_size 7"}) {
    auto r = run(cmd, "H100", 7);
    BOOST_TEST_INFO(cmd);
    BOOST_TEST(!r.passed);
    BOOST_TEST(!r.starts);
    BOOST_TEST(r.reasons.at(0).find("tensor-parallel size 7 and the model's 4 KV heads (layer 0) do not divide one another") != std::string::npos);
  }
  // tp 4 splits the 4 KV heads; tp 16 on Llama-3.1-70B (64 heads, 8 KV heads) replicates each twice.
  BOOST_TEST(run("vllm serve Qwen/Qwen2.5-7B-Instruct -tp 4 --max-model-len 32768", "H100", 4).starts);
  BOOST_TEST(run("vllm serve meta-llama/Llama-3.1-70B -tp 16 --max-model-len 32768", "H100", 16).starts);
  // TensorRT-LLM at tp 16 stores one whole KV head per rank where its estimator counts half: a
  // release that allocates the estimator's max_tokens at the replicated bytes runs out of memory
  // (NVIDIA/TensorRT-LLM#5872), one that caps the pool starts: UNCERTAIN, never PASS.
  const auto trt16 = run("trtllm-serve meta-llama/Llama-3.1-70B --tp_size 16 --max_seq_len 32768", "H100", 16);
  BOOST_TEST(!trt16.starts);
  BOOST_TEST((trt16.verdict == Verdict::uncertain));
  BOOST_TEST(trt16.reasons.at(0).find("exceeds the KV heads") != std::string::npos);
  // max_position_embeddings of Llama-3.1-8B is 131,072.
  auto longer = run("vllm serve meta-llama/Llama-3.1-8B --max-model-len 200000");
  BOOST_TEST(!longer.passed);
  BOOST_TEST(longer.reasons.at(0).find("VLLM_ALLOW_LONG_MAX_MODEL_LEN") != std::string::npos);
  auto allowed = run("VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve meta-llama/Llama-3.1-8B --max-model-len 200000 --kv-cache-memory-bytes 40G");
  BOOST_TEST(allowed.context == 200000u);
  auto sg = run("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --context-length 200000");
  BOOST_TEST(!sg.passed);
  BOOST_TEST(sg.reasons.at(0).find("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN") != std::string::npos);
  // --max-num-seqs caps concurrency: 10 GiB holds 2.50 x 32k, but only 2 sequences are scheduled.
  auto capped = run("vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 --kv-cache-memory-bytes 10G --max-num-seqs 2", "H100", 0, 2);
  BOOST_TEST(capped.passed);
  BOOST_TEST(capped.max_concurrency == 2.0);
  BOOST_TEST(!run("vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 --kv-cache-memory-bytes 10G --max-num-seqs 2", "H100", 0, 3).passed);
  // Flags that may change GPU memory in a way kvplan does not model make the verdict UNCERTAIN
  // (issue 26: never FAIL while the memory holds, never PASS) and say which.
  // (--speculative-config is a budget term now: tests/cli/test_budget_cli.py.)
  auto spec = run_argv({"vllm", "serve", "meta-llama/Llama-3.1-8B", "--kv-transfer-config",
                        R"({"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"})"});
  BOOST_TEST(!spec.passed);
  BOOST_TEST((spec.verdict == Verdict::uncertain));
  BOOST_TEST(spec.reasons.at(0).find("--kv-transfer-config") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(trtllm_extra_options_are_typed) {
  const std::string good = temp_file("extra_good.yaml", "kv_cache_config:\n  free_gpu_memory_fraction: 0.5\n  max_tokens: 65536\n");
  auto r = run("trtllm-serve meta-llama/Llama-3.1-8B --max_seq_len 8192 --extra_llm_api_options " + good);
  BOOST_TEST(r.kv_cache_tokens == 65536u);
  const std::string bad = temp_file("extra_bad.yaml", "kv_cache_config:\n  free_gpu_memory_fraction: \"high\"\n");
  BOOST_CHECK_EXCEPTION(run("trtllm-serve meta-llama/Llama-3.1-8B --extra_llm_api_options " + bad), ConfigError,
                        HasMessage({"/kv_cache_config/free_gpu_memory_fraction", "\"high\""}));
  const std::string bad2 = temp_file("extra_bad2.yaml", "enable_attention_dp: 1\n");
  BOOST_CHECK_EXCEPTION(run("trtllm-serve meta-llama/Llama-3.1-8B --extra_llm_api_options " + bad2), ConfigError,
                        HasMessage({"/enable_attention_dp", "true or false"}));
  BOOST_CHECK_EXCEPTION(run("trtllm-serve meta-llama/Llama-3.1-8B --extra_llm_api_options /dev/zero"), InputError,
                        HasMessage({"/dev/zero", "regular file"}));
}

// Issue 29: a --config / --extra_llm_api_options path inside a deployment file is held to the
// containment rule of every store (kvplan/files.h): with symlinks resolved it lies inside the
// deployment file's folder. `..`, an absolute path and a symlink out are refused naming the flag and
// the path; the same YAML beside the file is read (65536 tokens from its kv_cache_config).
BOOST_AUTO_TEST_CASE(deployment_files_name_no_yaml_outside_their_folder) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / "kvplan_test_check_contain";
  fs::remove_all(root);
  fs::create_directories(root / "dep");
  const std::string yaml = "kv_cache_config:\n  max_tokens: 65536\n";
  std::ofstream(root / "outside.yaml") << yaml;
  std::ofstream(root / "dep" / "inside.yaml") << yaml;
  fs::create_symlink(root / "outside.yaml", root / "dep" / "link.yaml");
  const auto deployment = [&](const std::string& flags) {
    const fs::path f = root / "dep" / "deploy.yaml";
    std::ofstream(f) << "command: trtllm-serve meta-llama/Llama-3.1-8B --max_seq_len 8192 " << flags << "\ngpu: H100\n";
    return load_deployment_file(f.string());
  };
  const CheckOptions o;
  BOOST_TEST(check_deployment(deployment("--extra_llm_api_options inside.yaml"), o).kv_cache_tokens == 65536u);
  BOOST_TEST(check_deployment(deployment("--config ./inside.yaml"), o).kv_cache_tokens == 65536u);
  const std::string outside = (root / "outside.yaml").string();
  for (const std::string& flags : std::vector<std::string>{"--extra_llm_api_options ../outside.yaml", "--config ../outside.yaml",
                                   "--extra_llm_api_options " + outside, "--config=" + outside,
                                   "--extra_llm_api_options link.yaml", "--config ../dep/../../kvplan_test_check_contain/outside.yaml"}) {
    const std::string path = flags.substr(flags.find_first_of(" =") + 1);
    BOOST_TEST_CONTEXT(flags) {
      BOOST_CHECK_EXCEPTION(check_deployment(deployment(flags), o), InputError,
                            HasMessage({"--extra_llm_api_options", "\"" + path + "\"", "inside the deployment file's folder"}));
    }
  }
  // vLLM's own --config FILE (a YAML of flags) through a Kubernetes manifest: the same rule.
  std::ofstream(root / "flags.yaml") << "max-model-len: 4096\n";
  const fs::path m = root / "dep" / "vllm.yaml";
  std::ofstream(m) << "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: v}\nspec:\n  template:\n    spec:\n"
                      "      containers:\n      - name: vllm\n        image: vllm/vllm-openai:v0.11.0\n"
                      "        args: [\"meta-llama/Llama-3.1-8B\", \"--config\", \"../flags.yaml\"]\n";
  CheckOptions on_h100;
  on_h100.gpu = "H100";
  BOOST_CHECK_EXCEPTION(check_deployment(load_deployment_file(m.string()), on_h100), InputError,
                        HasMessage({"vllm --config", "\"../flags.yaml\"", "inside the deployment file's folder"}));
  // The user's own command line is read as the shell reads it (no folder to hold it to).
  BOOST_TEST(run("trtllm-serve meta-llama/Llama-3.1-8B --max_seq_len 8192 --extra_llm_api_options " + outside).kv_cache_tokens == 65536u);
  fs::remove_all(root);
}

BOOST_AUTO_TEST_CASE(files_must_be_regular_and_bounded) {
  BOOST_CHECK_EXCEPTION(load_deployment_files("/dev/zero"), InputError, HasMessage({"/dev/zero", "device"}));
  BOOST_CHECK_EXCEPTION(load_deployment_files(std::filesystem::temp_directory_path().string()), InputError, HasMessage({"a directory"}));
  BOOST_CHECK_EXCEPTION(load_deployment_files("/no/such/file.yaml"), InputError, HasMessage({"/no/such/file.yaml"}));
  const std::string big = temp_file("big.yaml", std::string(kMaxDeploymentFileBytes + 1, '#'));
  BOOST_CHECK_EXCEPTION(load_deployment_files(big), InputError, HasMessage({"at most 4194304 bytes"}));
}

BOOST_AUTO_TEST_CASE(hostile_yaml_is_refused) {
  // Billion laughs: nine levels of nine aliases expand to 10^9 nodes.
  std::string lol = "a: &a [x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'i'; ++c) {
    const std::string prev(1, static_cast<char>(c - 1));
    lol += std::string(1, c) + ": &" + std::string(1, c) + " [";
    for (int k = 0; k < 9; ++k) lol += (k ? ", *" : "*") + prev;
    lol += "]\n";
  }
  BOOST_CHECK_EXCEPTION(parse_deployments(lol, "lol.yaml"), DeploymentError, HasMessage({"lol.yaml", "alias expansion"}));
  BOOST_CHECK_EXCEPTION(parse_deployments(std::string(100000, '[') + std::string(100000, ']'), "deep.yaml"), Error, HasMessage({"deep.yaml"}));
  std::string nested = "a:\n";
  for (int i = 1; i < 100; ++i) nested += std::string(static_cast<std::size_t>(2 * i), ' ') + "b:\n";
  BOOST_CHECK_EXCEPTION(parse_deployments(nested, "n.yaml"), DeploymentError, HasMessage({"deeper than 64"}));
  BOOST_CHECK_EXCEPTION(parse_deployments(std::string(10'000'000, ' '), "ten.yaml"), DeploymentError, HasMessage({"at most 4194304 bytes"}));
  BOOST_CHECK_EXCEPTION(parse_deployments("a: [1, 2\n", "bad.yaml"), DeploymentError, HasMessage({"bad.yaml (line", "not valid YAML"}));
}

BOOST_AUTO_TEST_CASE(kubernetes_manifest_fields) {
  const std::string m = R"Y(apiVersion: v1
kind: Service
metadata: {name: svc}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  template:
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB
      containers:
        - name: proxy
          image: envoyproxy/envoy:v1.31
        - name: engine
          image: vllm/vllm-openai:latest
          env:
            - {name: MODEL, value: meta-llama/Llama-3.1-8B}
          args: ["--model", "$(MODEL)", "--max-model-len", "16384"]
          resources:
            limits: {nvidia.com/gpu: "2"}
)Y";
  auto ds = parse_deployments(m, "m.yaml");
  BOOST_REQUIRE(ds.size() == 1u);
  BOOST_TEST(ds[0].engine == EngineKind::vllm);
  BOOST_TEST(ds[0].gpus == 2u);
  BOOST_TEST(ds[0].gpu == "A100-80GB");
  BOOST_TEST(ds[0].container == "engine");
  BOOST_TEST(ds[0].resource == "Deployment/vllm");
  BOOST_TEST(ds[0].document == "document 2");
  BOOST_TEST(ds[0].line == 17u);
  BOOST_TEST(ds[0].args.at(1) == "meta-llama/Llama-3.1-8B");  // $(MODEL) from the container env
  BOOST_TEST(ds[0].where() == "m.yaml (line 17, document 2, Deployment/vllm, container engine)");
  BOOST_CHECK_EXCEPTION(parse_deployments("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", "c.yaml"), DeploymentError,
                        HasMessage({"no container runs an engine"}));
  BOOST_CHECK_EXCEPTION(parse_deployment(m + "---\n" + m.substr(m.find("apiVersion: apps/v1")), "two.yaml"), DeploymentError,
                        HasMessage({"this file holds 2"}));
}

BOOST_AUTO_TEST_CASE(kvplan_deployment_format_still_works) {
  auto d = parse_deployment("command: vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768\ngpu: H100\ngpus: 1\n"
                            "require:\n  concurrency: 2\n",
                            "d.yaml");
  BOOST_TEST(d.engine == EngineKind::vllm);
  BOOST_TEST(d.args.size() == 3u);
  BOOST_TEST(*d.require_concurrency == 2u);
  auto e = parse_deployment("engine: sglang\nmodel: m\nargs:\n  --context-length: 8192\n  --enable-dp-attention: true\n", "e.yaml");
  BOOST_TEST(e.engine == EngineKind::sglang);
  BOOST_TEST(e.args == std::vector<std::string>({"--context-length", "8192", "--enable-dp-attention"}));
  auto j = parse_deployment(R"({"command": ["llama-server", "-c", "8192"], "model": "meta-llama/Llama-3.1-8B", "gpu": "RTX4090"})", "d.json");
  BOOST_TEST(j.engine == EngineKind::llamacpp);
  BOOST_TEST(j.model == "meta-llama/Llama-3.1-8B");
  BOOST_CHECK_EXCEPTION(parse_deployment("engine: vllm\nmodle: x\n", "d.yaml"), ConfigError, HasMessage({"/modle"}));
  BOOST_CHECK_EXCEPTION(parse_deployment("command: vllm serve m\nengine: sglang\n", "d.yaml"), ConfigError, HasMessage({"/engine"}));
  BOOST_CHECK_EXCEPTION(parse_deployment("{\"command\": ", "d.json"), ConfigError, HasMessage({"d.json"}));
  BOOST_CHECK_EXCEPTION(parse_deployment("model: m\n", "d.yaml"), ConfigError, HasMessage({"/engine"}));
}

BOOST_AUTO_TEST_CASE(vllm_fixed_kv_memory_exact) {
  // --kv-cache-memory-bytes 10G (binary: 10 GiB): 10 GiB // 65,536 // 32 = 5,120 blocks -> 81,920
  // tokens; at 32,768 tokens one request needs 2,048 blocks -> 2.50x.
  auto r = run("vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 --kv-cache-memory-bytes 10G", "H100", 0, 2);
  BOOST_TEST(r.passed);
  BOOST_TEST(r.kv_cache_tokens == 81920u);
  BOOST_TEST(r.max_concurrency == 5120.0 / 2048);
  BOOST_TEST(std::holds_alternative<VllmResult>(r.engine_result));
  auto f = run("vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 --kv-cache-memory-bytes 10G", "H100", 0, 3);
  BOOST_TEST(!f.passed);
  BOOST_TEST(f.exit_code() == 1);
  BOOST_TEST(f.reasons.at(0).find("required concurrency 3") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(vllm_startup_failure_and_auto_fit) {
  // 2 GiB of KV for 131,072 tokens (16 GiB needed): fails; 2 GiB // 131,072 B = 16,384 tokens fit.
  auto r = run("vllm serve meta-llama/Llama-3.1-8B --kv-cache-memory-bytes 2G");
  BOOST_TEST(!r.starts);
  BOOST_TEST(r.max_fitting_context == 16384u);
  BOOST_TEST(r.reasons.at(0).find("estimated maximum model length is 16384") != std::string::npos);
  auto a = run("vllm serve meta-llama/Llama-3.1-8B --max-model-len -1 --kv-cache-memory-bytes 2G");
  BOOST_TEST(a.starts);
  BOOST_TEST(a.context == 16384u);
  BOOST_TEST(a.log_lines.at(0) == "Auto-fit max_model_len: reduced from 131072 to 16384");
  BOOST_TEST(a.max_concurrency == 1.0);
}

BOOST_AUTO_TEST_CASE(vllm_gpu_count_and_weights) {
  BOOST_TEST(run("vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 4 --max-model-len 32768", "H100", 4).passed);
  auto few = run("vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 4 --max-model-len 32768", "H100", 2);
  BOOST_TEST(!few.passed);
  BOOST_TEST(few.reasons.at(0).find("needs 4 GPUs") != std::string::npos);
  BOOST_TEST(!run("vllm serve meta-llama/Llama-3.1-70B --max-model-len 8192", "H100", 1).starts);
}

BOOST_AUTO_TEST_CASE(llama_server_needs_a_config_and_fits_or_not) {
  BOOST_CHECK_EXCEPTION(run("llama-server -m llama.gguf -c 8192", "RTX4090"), InputError, HasMessage({"--model"}));
  auto r = run("llama-server -m llama.gguf -c 8192 -np 4", "RTX4090", 1, std::nullopt, 4096, "meta-llama/Llama-3.1-8B");
  BOOST_TEST(r.starts);
  BOOST_TEST(r.context == 2048u);  // not unified: PAD(8,192 / 4, 256) = 2,048 per slot
  BOOST_TEST(r.max_concurrency == 4.0);
  BOOST_TEST(!r.checks.back().ok);  // 2,048 < 4,096
  BOOST_TEST(!run("llama-server -m llama.gguf -c 131072", "RTX4090", 1, std::nullopt, std::nullopt, "meta-llama/Llama-3.1-8B").starts);
}

BOOST_AUTO_TEST_CASE(formats_for_results_and_errors) {
  auto r = run("vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 --kv-cache-memory-bytes 10G", "H100", 0, 3);
  BOOST_TEST(format_check_github(r).find("::error title=kvplan check%3A concurrency::required concurrency 3") != std::string::npos);
  const std::string ju = format_check_junit(r);
  BOOST_TEST(ju.find("<testsuites tests=\"3\" failures=\"1\">") != std::string::npos);
  BOOST_TEST(ju.find("<failure message=\"required concurrency 3") != std::string::npos);
  const auto j = to_json(r);
  BOOST_TEST(j["exit_code"] == 1);
  BOOST_TEST(j["kv_cache_tokens"] == 81920u);
  BOOST_TEST(j["engine_result"]["num_blocks"] == 5120u);
  BOOST_CHECK_EXCEPTION(format_check(r, "xml"), InputError, HasMessage({"--format", "xml"}));
  // A bad command or file in every format: JUnit a failing testcase (escaped, valid UTF-8, no
  // control characters), GitHub an ::error annotation at the file and line, JSON an "error".
  const std::string msg = "bad <flag> & \"x\"\n\x01 \xff end";
  const std::string x = format_check_error(msg, "k8s/deploy.yaml", 12, "junit");
  BOOST_TEST(x.find("<failure message=\"bad &lt;flag&gt; &amp; &quot;x&quot;") != std::string::npos);
  BOOST_TEST(x.find('\x01') == std::string::npos);
  BOOST_TEST(x.find('\xff') == std::string::npos);
  BOOST_TEST(x.find("line=\"12\"") != std::string::npos);
  const std::string g = format_check_error(msg, "k8s/deploy.yaml", 12, "github");
  BOOST_TEST(g.rfind("::error file=k8s/deploy.yaml,line=12,title=kvplan check%3A error::bad <flag>", 0) == 0);
  BOOST_TEST(g.find("%0A") != std::string::npos);
  BOOST_TEST(g.find('\n') == g.size() - 1);
  const auto e = nlohmann::json::parse(format_check_error(msg, "", 0, "json"));
  BOOST_TEST(e["exit_code"] == 2);
  BOOST_TEST(e["error"].get<std::string>().find("bad <flag>") == 0u);
  BOOST_TEST(format_check_error(msg, "", 0, "text").empty());
}

BOOST_AUTO_TEST_CASE(check_file_reports_where) {
  const std::string f = temp_file("where.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  template:\n    spec:\n"
                                                "      containers:\n        - name: vllm\n          image: vllm/vllm-openai\n"
                                                "          args: [--model, meta-llama/Llama-3.1-8B, --tensor-paralel-size, '2']\n");
  CheckOptions o;
  o.gpu = "H100";
  const auto out = check_file(f, o);
  BOOST_REQUIRE(out.size() == 1u);
  BOOST_TEST(!out[0].result);
  BOOST_TEST(out[0].line == 8u);
  BOOST_TEST(out[0].file == f);
  BOOST_TEST(out[0].error.find("Deployment/x, container vllm") != std::string::npos);
  BOOST_TEST(check_exit_code(out) == 2);
  const auto bad = check_command({"vllm", "serv"}, o);
  BOOST_TEST(check_exit_code(bad) == 2);
}

BOOST_AUTO_TEST_CASE(exit_code_over_several_outcomes) {
  // Real verdicts: 8B at 8k on an RTX 3090 starts only at the favourable end of the band
  // (UNCERTAIN); 70B on one H100 cannot hold its weights (FAIL); 8B at 32k on an H100 PASSes.
  CheckOptions o;
  o.gpu = "RTX3090";
  const auto unsure = check_command(split_command_line("vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192"), o);
  o.gpu = "H100";
  const auto fail = check_command(split_command_line("vllm serve meta-llama/Llama-3.1-70B"), o);
  const auto pass = check_command(split_command_line("vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768"), o);
  const auto bad = check_command({"vllm", "serv"}, o);
  BOOST_REQUIRE(unsure.at(0).result && fail.at(0).result && pass.at(0).result);
  BOOST_TEST((unsure[0].result->verdict == Verdict::uncertain));
  BOOST_TEST((fail[0].result->verdict == Verdict::fail));
  BOOST_TEST((pass[0].result->verdict == Verdict::pass));
  auto all = [](std::initializer_list<const std::vector<CheckOutcome>*> parts) {
    std::vector<CheckOutcome> v;
    for (const auto* p : parts) v.insert(v.end(), p->begin(), p->end());
    return check_exit_code(v);
  };
  BOOST_TEST(all({&pass}) == 0);
  BOOST_TEST(all({&pass, &unsure}) == kExitUncertain);
  BOOST_TEST(all({&unsure, &fail}) == 1);  // FAIL outranks UNCERTAIN although 3 > 1
  BOOST_TEST(all({&fail, &unsure}) == 1);
  BOOST_TEST(all({&unsure, &bad, &fail}) == 2);
  o.gpu = "RTX3090";
  o.strict = true;
  const auto strict = check_command(split_command_line("vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192"), o);
  BOOST_TEST(all({&pass, &strict}) == 1);
}

BOOST_AUTO_TEST_CASE(trtllm_estimate_uses_each_terms_typical_value) {
  // kvplan's point estimate puts every term at its typical value (budget.h), never at the
  // favourable end. A device of exactly 80 GiB (given) and --weights 16 GB make it hand-computable:
  //   weights typical   16e9 + 16e9 / 256                       = 16,062,500,000
  //   activation        8192 x (4 x 4096 + 2 x 14336) x 2 + 256 x 128,256 x 4 = 869,531,648
  //                     (tests/test_memory_budget.cpp activation_peak_shared_with_planner)
  //   non-torch         midpoint of 256 MiB .. 1.5 GiB          = 939,524,096
  //   total - peak = 85,899,345,920 - 17,871,555,744 = 68,027,790,176 B
  //   KV = 68,027,790,176 x 0.9 (free_gpu_memory_fraction) = 61,225,011,158 B
  //   tokens = 61,225,011,158 // 131,072 (Llama-3.1-8B, bf16)    = 467,109
  // The favourable end gives 475,132 and the unfavourable 454,018 the same way.
  CheckOptions o;
  Accelerator a;
  a.name = "custom";
  a.memory_bytes = a.memory_marketing_bytes = 80 * GiB;
  a.memory_basis = "given by --gpu-memory";
  o.device = a;
  o.weight_bytes = 16'000'000'000ull;
  const auto r = check_deployment(parse_launch_command(split_command_line("trtllm-serve meta-llama/Llama-3.1-8B --max_seq_len 8192")), o);
  BOOST_TEST(r.kv_cache_tokens_estimate == 467109u);
  BOOST_TEST(r.kv_cache_tokens_favourable == 475132u);
  BOOST_TEST(r.kv_cache_tokens == 454018u);
  BOOST_TEST(r.kv_memory_estimate_bytes == 68027790176);  // total - peak, before the fraction
}

BOOST_AUTO_TEST_SUITE_END()
