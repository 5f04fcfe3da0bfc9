// kvplan check: command / deployment parsing, the YAML subset, and verdicts whose figures follow
// from the engine rules (exact where the command fixes the KV memory, e.g. --kv-cache-memory).
#include "helpers.h"
#include "kvplan/check.h"

using namespace kvplan;
using kvplan::test::HasMessage;
BOOST_TEST_DONT_PRINT_LOG_VALUE(kvplan::EngineKind)

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
}  // namespace

BOOST_AUTO_TEST_SUITE(check)

BOOST_AUTO_TEST_CASE(split_command_line_quotes_and_continuations) {
  auto v = split_command_line("vllm serve \\\n  'my model' --x=\"a b\" c\\ d");
  BOOST_REQUIRE(v.size() == 5u);
  BOOST_TEST(v[2] == "my model");
  BOOST_TEST(v[3] == "--x=a b");
  BOOST_TEST(v[4] == "c d");
  BOOST_CHECK_EXCEPTION(split_command_line("vllm serve 'x"), InputError, HasMessage({"closing ' quote"}));
}

BOOST_AUTO_TEST_CASE(recognises_engines) {
  BOOST_TEST(parse_launch_command(split_command_line("vllm serve m --tp 2")).engine == EngineKind::vllm);
  BOOST_TEST(parse_launch_command(split_command_line("vllm serve m")).model == "m");
  BOOST_TEST(parse_launch_command(split_command_line("CUDA_VISIBLE_DEVICES=0 python3 -m sglang.launch_server --model-path m")).engine ==
             EngineKind::sglang);
  BOOST_TEST(parse_launch_command(split_command_line("/usr/bin/llama-server -m x.gguf")).engine == EngineKind::llamacpp);
  BOOST_TEST(parse_launch_command(split_command_line("trtllm-serve m --tp_size 8")).model == "m");
  BOOST_CHECK_EXCEPTION(parse_launch_command(split_command_line("vllm serv m")), InputError, HasMessage({"vllm serve MODEL"}));
  BOOST_CHECK_EXCEPTION(parse_launch_command(split_command_line("ollama run m")), InputError, HasMessage({"ollama"}));
  BOOST_CHECK_EXCEPTION(parse_launch_command(split_command_line("python -m http.server")), InputError, HasMessage({"http.server"}));
}

BOOST_AUTO_TEST_CASE(yaml_subset) {
  auto j = parse_yaml_subset(
      "# deployment\nname: prod  # trailing comment\ngpus: 4\nutil: 0.85\nflag: true\nargs:\n  - --max-model-len\n  - \"32768\"\n"
      "require:\n  concurrency: 8\n  context: 32k\n",
      "d.yaml");
  BOOST_TEST(j["name"] == "prod");
  BOOST_TEST(j["gpus"] == 4u);
  BOOST_TEST(j["util"] == 0.85);
  BOOST_TEST(j["flag"] == true);
  BOOST_TEST(j["args"].size() == 2u);
  BOOST_TEST(j["args"][1] == "32768");
  BOOST_TEST(j["require"]["context"] == "32k");
  BOOST_CHECK_EXCEPTION(parse_yaml_subset("args: [a, b]\n", "d.yaml"), ConfigError, HasMessage({"d.yaml (line 1)", "flow"}));
  BOOST_CHECK_EXCEPTION(parse_yaml_subset("a:\n  b:\n    c: 1\n", "d.yaml"), ConfigError, HasMessage({"line 2", "nesting"}));
  BOOST_CHECK_EXCEPTION(parse_yaml_subset("a:\n  b: 1\n    c: 1\n", "d.yaml"), ConfigError, HasMessage({"line 3"}));
  BOOST_CHECK_EXCEPTION(parse_yaml_subset("cmd: |\n  x\n", "d.yaml"), ConfigError, HasMessage({"block scalars"}));
  BOOST_CHECK_EXCEPTION(parse_yaml_subset("a: 1\na: 2\n", "d.yaml"), ConfigError, HasMessage({"duplicate key"}));
  BOOST_CHECK_EXCEPTION(parse_yaml_subset("- a\n", "d.yaml"), ConfigError, HasMessage({"top-level list"}));
}

BOOST_AUTO_TEST_CASE(deployment_file_forms) {
  auto d = parse_deployment("command: vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768\ngpu: H100\ngpus: 1\n"
                            "require:\n  concurrency: 2\n",
                            "d.yaml");
  BOOST_TEST(d.engine == EngineKind::vllm);
  BOOST_TEST(d.model == "meta-llama/Llama-3.1-8B");
  BOOST_TEST(d.args.size() == 2u);
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
  // --kv-cache-memory 10GiB: 10 GiB // 65,536 // 32 = 5,120 blocks -> 81,920 tokens; at 32,768 tokens
  // one request needs 2,048 blocks -> 2.50x.
  auto r = run("vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 --kv-cache-memory 10GiB", "H100", 0, 2);
  BOOST_TEST(r.passed);
  BOOST_TEST(r.kv_cache_tokens == 81920u);
  BOOST_TEST(r.max_concurrency == 5120.0 / 2048);
  auto f = run("vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 --kv-cache-memory 10GiB", "H100", 0, 3);
  BOOST_TEST(!f.passed);
  BOOST_TEST(f.exit_code() == 1);
  BOOST_TEST(f.reasons.at(0).find("required concurrency 3") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(vllm_startup_failure_reports_fitting_length) {
  // 2 GiB of KV for 131,072 tokens (16 GiB needed): fails; 2 GiB // 131,072 B = 16,384 tokens fit.
  auto r = run("vllm serve meta-llama/Llama-3.1-8B --kv-cache-memory 2GiB");
  BOOST_TEST(!r.starts);
  BOOST_TEST(!r.passed);
  BOOST_TEST(r.max_fitting_context == 16384u);
  BOOST_TEST(r.reasons.at(0).find("estimated maximum model length is 16384") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(vllm_auto_fit_max_model_len) {
  // --max-model-len -1 with 2 GiB: the largest length that fits is 2 GiB // 131,072 B = 16,384 tokens.
  auto r = run("vllm serve meta-llama/Llama-3.1-8B --max-model-len -1 --kv-cache-memory 2GiB");
  BOOST_TEST(r.starts);
  BOOST_TEST(r.context == 16384u);
  BOOST_TEST(r.log_lines.at(0) == "Auto-fit max_model_len: reduced from 131072 to 16384");
  BOOST_TEST(r.max_concurrency == 1.0);  // 2 GiB // 65,536 // 32 = 1,024 blocks; 16,384 / 16 = 1,024 per request
}

BOOST_AUTO_TEST_CASE(vllm_gpu_count_and_weights) {
  auto ok = run("vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 4 --max-model-len 32768", "H100", 4);
  BOOST_TEST(ok.passed);
  BOOST_TEST(ok.gpus_needed == 4u);
  auto few = run("vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 4 --max-model-len 32768", "H100", 2);
  BOOST_TEST(!few.passed);
  BOOST_TEST(few.reasons.at(0).find("needs 4 GPUs") != std::string::npos);
  // 70B in bf16 (~141 GB) on one 80 GB GPU: no KV memory at all.
  auto one = run("vllm serve meta-llama/Llama-3.1-70B --max-model-len 8192", "H100", 1);
  BOOST_TEST(!one.starts);
}

BOOST_AUTO_TEST_CASE(llama_server_needs_a_config_and_fits_or_not) {
  BOOST_CHECK_EXCEPTION(run("llama-server -m llama.gguf -c 8192", "RTX4090"), InputError, HasMessage({"--model"}));
  auto r = run("llama-server -m llama.gguf -c 8192 -np 4", "RTX4090", 1, std::nullopt, 4096, "meta-llama/Llama-3.1-8B");
  BOOST_TEST(r.starts);             // ~15 GiB weights + 1 GiB KV + compute on a 24 GiB card
  BOOST_TEST(r.context == 2048u);  // not unified: PAD(8,192 / 4, 256) = 2,048 per slot
  BOOST_TEST(r.max_concurrency == 4.0);
  BOOST_TEST(r.checks.back().name == "context");
  BOOST_TEST(!r.checks.back().ok);  // 2,048 < 4,096
  BOOST_TEST(!r.passed);
  // -c 131072 on the same card: 16 GiB of f16 KV on top of ~15 GiB of weights does not fit.
  auto big = run("llama-server -m llama.gguf -c 131072", "RTX4090", 1, std::nullopt, std::nullopt, "meta-llama/Llama-3.1-8B");
  BOOST_TEST(!big.starts);
}

BOOST_AUTO_TEST_CASE(bad_flags_are_input_errors) {
  BOOST_CHECK_EXCEPTION(run("vllm serve meta-llama/Llama-3.1-8B --tensor-paralel-size 2"), InputError,
                        HasMessage({"--tensor-paralel-size", "--tensor-parallel-size"}));
  BOOST_CHECK_EXCEPTION(run("vllm serve meta-llama/Llama-3.1-8B --max-model-len"), InputError, HasMessage({"--max-model-len"}));
  BOOST_CHECK_EXCEPTION(run("vllm serve meta-llama/Llama-3.1-8B --gpu-memory-utilization 1.5"), InputError,
                        HasMessage({"--gpu-memory-utilization", "1.5"}));
  BOOST_CHECK_EXCEPTION(run("vllm serve meta-llama/Llama-3.1-8B", "H900"), InputError, HasMessage({"H900"}));
  BOOST_CHECK_EXCEPTION(run("vllm serve no/such-model"), Error, HasMessage({"no/such-model"}));
}

BOOST_AUTO_TEST_CASE(formats) {
  auto r = run("vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 --kv-cache-memory 10GiB", "H100", 0, 3);
  const std::string gh = format_check_github(r);
  BOOST_TEST(gh.find("::error title=kvplan check%3A concurrency::required concurrency 3") != std::string::npos);
  const std::string ju = format_check_junit(r);
  BOOST_TEST(ju.find("<testsuites tests=\"3\" failures=\"1\">") != std::string::npos);
  BOOST_TEST(ju.find("<failure message=\"required concurrency 3") != std::string::npos);
  const auto j = to_json(r);
  BOOST_TEST(j["passed"] == false);
  BOOST_TEST(j["exit_code"] == 1);
  BOOST_TEST(j["kv_cache_tokens"] == 81920u);
  BOOST_CHECK_EXCEPTION(format_check(r, "xml"), InputError, HasMessage({"--format", "xml"}));
}

BOOST_AUTO_TEST_SUITE_END()
