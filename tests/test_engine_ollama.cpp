// Ollama (kvplan/engine_ollama.h, check/evaluate_ollama.cpp) against real server logs from public
// threads (tests/data/engine_logs/ollama/README.md): every figure is read from the log file and
// compared at the log's own rounding (HumanBytes2's one decimal), never restated here.
#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "deploy/ollama.h"
#include "helpers.h"
#include "kvplan/check.h"
#include "kvplan/engines.h"

using namespace kvplan;

namespace {

std::string log_text(const std::string& file) {
  std::ifstream in(test::source_path("tests/data/engine_logs/ollama/" + file));
  BOOST_REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// key="value" (or key=value) in the offload line.
std::string field(const std::string& log, const std::string& key) {
  std::smatch m;
  const std::regex q(std::regex_replace(key, std::regex(R"(\.)"), R"(\.)") + R"re(="([^"]*)")re");
  if (std::regex_search(log, m, q)) return m[1];
  const std::regex plain(std::regex_replace(key, std::regex(R"(\.)"), R"(\.)") + R"(=(\S+))");
  BOOST_REQUIRE_MESSAGE(std::regex_search(log, m, plain), key + " is in the log");
  return m[1];
}

// A runner argument of the "starting llama server" line.
std::string runner_arg(const std::string& log, const std::string& flag) {
  std::smatch m;
  BOOST_REQUIRE_MESSAGE(std::regex_search(log, m, std::regex(flag + R"( (\S+))")), flag + " is in the runner command");
  return m[1];
}
bool runner_has(const std::string& log, const std::string& flag) { return log.find(" " + flag + " ") != std::string::npos; }

// A HumanBytes2 figure as bytes (its midpoint; only for inputs such as free memory).
std::uint64_t bytes_of(const std::string& s) {
  const double v = std::stod(s);
  const double unit = s.find("GiB") != std::string::npos ? 1073741824.0 : s.find("MiB") != std::string::npos ? 1048576.0 : 1.0;
  return static_cast<std::uint64_t>(v * unit);
}

OllamaOptions from_log(const std::string& log, std::uint64_t layers) {
  OllamaOptions o;
  o.num_parallel = std::stoull(runner_arg(log, "--parallel"));
  o.num_ctx = std::stoull(runner_arg(log, "--ctx-size")) / o.num_parallel;
  o.flash_attention = runner_has(log, "--flash-attn");
  o.layer_bytes = {bytes_of(field(log, "memory.weights.repeating")) / layers};
  o.output_bytes = bytes_of(field(log, "memory.weights.nonrepeating"));
  return o;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(engine_ollama)

BOOST_AUTO_TEST_CASE(issue_8098_llama32_3b_four_slots_on_h100) {
  const std::string log = log_text("ollama_8098_llama3.2-3b_ctx2048x4_h100.log");
  const ModelSpec m = load_model("meta-llama/Llama-3.2-3B-Instruct");
  OllamaOptions o = from_log(log, m.num_layers());
  o.gpu_free_bytes = {bytes_of("78.6 GiB")};
  const OllamaResult r = ollama_profile(m, o);
  BOOST_TEST(ollama_format_bytes(r.kv_bytes) == field(log, "memory.required.kv"));
  BOOST_TEST(r.kv_bytes == 28u * 2 * 8 * 128 * 2 * 8192);  // by hand: layers x K,V x heads x dim x f16 x cells
  BOOST_TEST(ollama_format_bytes(r.graph_full_bytes) == field(log, "memory.graph.full"));
  BOOST_TEST(ollama_format_bytes(r.graph_partial_bytes) == field(log, "memory.graph.partial"));
  BOOST_TEST(std::to_string(r.layers_model) == field(log, "layers.model"));
  BOOST_TEST(std::to_string(r.layers_offload) == field(log, "layers.offload"));
  BOOST_TEST(std::to_string(r.kv_size) == runner_arg(log, "--ctx-size"));
  BOOST_TEST(r.runner == "llama");
  // The runner's own cache is llama.cpp's arithmetic: the same bytes as the estimate in f16.
  BOOST_TEST(r.runner_kv_bytes == r.kv_bytes);
}

BOOST_AUTO_TEST_CASE(langflow_6669_qwen25_7b_cpu_only) {
  const std::string log = log_text("langflow_6669_qwen2.5-7b_ctx2048x4_cpu.log");
  const ModelSpec m = load_model("Qwen/Qwen2.5-7B-Instruct");
  OllamaOptions o = from_log(log, m.num_layers());
  const OllamaResult r = ollama_profile(m, o);  // no GPU
  BOOST_TEST(ollama_format_bytes(r.kv_bytes) == field(log, "memory.required.kv"));
  BOOST_TEST(ollama_format_bytes(r.graph_full_bytes) == field(log, "memory.graph.full"));
  BOOST_TEST(ollama_format_bytes(r.graph_partial_bytes) == field(log, "memory.graph.partial"));
  BOOST_TEST(std::to_string(r.layers_offload) == field(log, "layers.offload"));
  BOOST_TEST(!r.fully_offloaded);
}

BOOST_AUTO_TEST_CASE(issue_9181_llama70b_64k_flash_attention_four_gpus) {
  const std::string log = log_text("ollama_9181_llama-70b_ctx64000_fa_4gpu.log");
  const ModelSpec m = load_model("meta-llama/Llama-3.1-70B");
  OllamaOptions o = from_log(log, m.num_layers());
  BOOST_TEST(o.flash_attention);
  o.gpu_free_bytes.assign(4, bytes_of("22.0 GiB"));
  const OllamaResult r = ollama_profile(m, o);
  BOOST_TEST(ollama_format_bytes(r.kv_bytes) == field(log, "memory.required.kv"));
  BOOST_TEST(ollama_format_bytes(r.graph_full_bytes) == field(log, "memory.graph.full"));
  BOOST_TEST(ollama_format_bytes(r.graph_partial_bytes) == field(log, "memory.graph.partial"));
  BOOST_TEST(r.graph_full_bytes == r.graph_partial_bytes);  // several GPUs: the partial graph
  BOOST_TEST(r.flash_attention);
  BOOST_TEST(r.kv_cache_type == "f16");  // OLLAMA_KV_CACHE_TYPE unset: "kv cache type not supported by model" type=""
  BOOST_TEST(std::count(r.runner_args.begin(), r.runner_args.end(), "--kv-cache-type") == 0);
  BOOST_TEST(r.layers_split.size() == 4u);
  // kvplan's v0.11.4 placement (one-layer buffer, 457 MiB minimum) puts at most as many layers as the 0.5.x log.
  BOOST_TEST(r.layers_offload <= std::stoull(field(log, "layers.offload")));
}

BOOST_AUTO_TEST_CASE(issue_5913_70b_attention_shape_2k) {
  const std::string log = log_text("ollama_5913_qwen2-72b_ctx2048_rocm.log");
  // Qwen2-72B's KV shape is Llama-3.1-70B's (80 layers, 8 KV heads of 128): the KV estimate only.
  const ModelSpec m = load_model("meta-llama/Llama-3.1-70B");
  OllamaOptions o = from_log(log, m.num_layers());
  const OllamaResult r = ollama_profile(m, o);
  BOOST_TEST(ollama_format_bytes(r.kv_bytes) == field(log, "memory.required.kv"));
  BOOST_TEST(std::to_string(r.kv_size) == runner_arg(log, "--ctx-size"));
}

BOOST_AUTO_TEST_CASE(issue_8447_deepseek_v3_mla_as_deepseek2) {
  const std::string log = log_text("ollama_8447_deepseek-v3_ctx2048_24gb.log");
  const ModelSpec m = load_model("deepseek-ai/DeepSeek-V3");
  OllamaOptions o;
  std::smatch kv;
  BOOST_REQUIRE(std::regex_search(log, kv, std::regex(R"(kv_size = (\d+))")));
  o.num_ctx = std::stoull(kv[1]);  // one slot (n_seq_max = 1)
  o.flash_attention = true;        // OLLAMA_FLASH_ATTENTION set: "enabled but not supported by model"
  o.layer_bytes = {bytes_of(field(log, "memory.weights.repeating")) / m.num_layers()};
  o.output_bytes = bytes_of(field(log, "memory.weights.nonrepeating"));
  o.gpu_free_bytes = {bytes_of(field(log, "memory.available").substr(1))};
  const OllamaResult r = ollama_profile(m, o);
  BOOST_TEST(r.gguf_architecture == "deepseek2");
  BOOST_TEST(ollama_format_bytes(r.kv_bytes) == field(log, "memory.required.kv"));
  // by hand: 61 layers x 2048 cells x (key 192 + value 128) x 128 KV heads x f16
  BOOST_TEST(r.kv_bytes == 61ull * 2048 * (192 + 128) * 128 * 2);
  BOOST_TEST(ollama_format_bytes(r.graph_full_bytes) == field(log, "memory.graph.full"));
  BOOST_TEST(ollama_format_bytes(r.graph_partial_bytes) == field(log, "memory.graph.partial"));
  BOOST_TEST(std::to_string(r.layers_model) == field(log, "layers.model"));
  BOOST_TEST(!r.flash_attention);
  BOOST_TEST(r.kv_size == 2048u);
  // The runner (llama.cpp on a GGUF without key_length_mla) caches the same full K and V.
  BOOST_TEST(r.runner_kv_bytes == r.kv_bytes);
  // Non-uniform GGUF layers (3 dense + 58 MoE): the placement from the mean layer is conservative.
  BOOST_TEST(r.layers_offload <= std::stoull(field(log, "layers.offload")));
}

BOOST_AUTO_TEST_CASE(sparse_mla_is_refused) {
  // DeepSeek-V3.2's indexer keys have no rule in Ollama v0.11.4's GraphSize: an error naming the layer.
  const ModelSpec m = load_model("deepseek-ai/DeepSeek-V3.2");
  OllamaOptions o;
  o.num_ctx = 2048;
  o.layer_bytes = {1};
  BOOST_CHECK_EXCEPTION(ollama_profile(m, o), InputError,
                        [](const InputError& e) { return std::string(e.what()).find("layer 0") != std::string::npos; });
}

BOOST_AUTO_TEST_CASE(kv_type_needs_flash_attention) {
  const ModelSpec m = load_model("meta-llama/Llama-3.1-8B");
  OllamaOptions o;
  o.layer_bytes = {1};
  o.kv_cache_type = "q8_0";
  const OllamaResult off = ollama_profile(m, o);
  BOOST_TEST(off.kv_cache_type == "f16");  // server.go: "quantized kv cache requested but flash attention disabled"
  o.flash_attention = true;
  const OllamaResult on = ollama_profile(m, o);
  BOOST_TEST(on.kv_cache_type == "q8_0");
  BOOST_TEST(on.kv_bytes * 2 == off.kv_bytes);  // kvCacheBytesPerElement: q8_0 is 1 byte, f16 2
  // The runner allocates llama.cpp's real q8_0 blocks (34 bytes per 32 values), more than Ollama estimates.
  BOOST_TEST(on.runner_kv_bytes == on.kv_bytes / 32 * 34);
  o.kv_cache_type = "q4_0";
  BOOST_TEST(ollama_profile(m, o).kv_bytes * 4 == off.kv_bytes);
  o.gpu_flash_attention = false;  // a GPU without flash attention turns it off
  BOOST_TEST(ollama_profile(m, o).kv_cache_type == "f16");
}

BOOST_AUTO_TEST_CASE(context_default_cap_and_estimate_floor) {
  const ModelSpec m = load_model("meta-llama/Llama-3.2-1B-Instruct");
  OllamaOptions o;
  o.layer_bytes = {1};
  const OllamaResult d = ollama_profile(m, o);
  BOOST_TEST(d.num_ctx == 4096u);  // OLLAMA_CONTEXT_LENGTH's default in v0.11.4
  BOOST_TEST(d.num_parallel == 1u);
  o.num_ctx = 1024;
  const OllamaResult small = ollama_profile(m, o);
  BOOST_TEST(small.kv_size == 1024u);
  BOOST_TEST(small.estimate_ctx == 2048u);  // EstimateGPULayers raises the estimate's context to 2048
  o.num_ctx = 10'000'000;
  BOOST_TEST(ollama_profile(m, o).num_ctx == m.dims.max_position_embeddings);
}

BOOST_AUTO_TEST_CASE(check_reads_ollama_serve_env_and_ollama_run) {
  CheckOptions co;
  co.gpu = "H100";
  co.model = "meta-llama/Llama-3.2-3B-Instruct";
  const Deployment d = parse_launch_command(
      split_command_line("OLLAMA_NUM_PARALLEL=4 OLLAMA_CONTEXT_LENGTH=2048 OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE=q8_0 ollama serve"));
  BOOST_TEST(d.engine == EngineKind::ollama);
  const CheckResult r = check_deployment(d, co);
  const auto& e = std::get<OllamaResult>(r.engine_result);
  BOOST_TEST(r.context == 2048u);
  BOOST_TEST(r.max_concurrency == 4.0);
  BOOST_TEST(e.kv_cache_type == "q8_0");
  BOOST_TEST(e.kv_size == 8192u);
  BOOST_TEST(e.fully_offloaded);
  BOOST_TEST(verdict_name(r.verdict) == verdict_name(Verdict::pass));
  // `ollama run MODEL PROMPT --verbose`: the store reference, the prompt dropped.
  const Deployment run = parse_launch_command(split_command_line("ollama run llama3.2:3b 'why is the sky blue' --verbose"));
  BOOST_TEST(run.model == "ollama:llama3.2:3b");
  BOOST_TEST(run.args.size() == 1u);
  BOOST_TEST(run.args.at(0) == "--verbose");
  BOOST_TEST(parse_launch_command(split_command_line("docker run -d --gpus=all -v ollama:/root/.ollama ollama/ollama")).engine ==
             EngineKind::ollama);
  BOOST_CHECK_EXCEPTION(parse_launch_command(split_command_line("ollama pull llama3.2")), InputError,
                        test::HasMessage({"ollama pull", "ollama serve"}));
  // An unmodelled setting never passes and never fails on its own.
  const CheckResult spread = check_deployment(parse_launch_command(split_command_line("OLLAMA_SCHED_SPREAD=1 ollama serve")), co);
  BOOST_TEST(verdict_name(spread.verdict) == verdict_name(Verdict::uncertain));
  // Too big for the GPU: layers go to the CPU, the verdict fails and says how many.
  co.model = "meta-llama/Llama-3.1-70B";
  co.gpu = "RTX4090";
  const CheckResult big = check_deployment(parse_launch_command(split_command_line("ollama serve")), co);
  BOOST_TEST(verdict_name(big.verdict) == verdict_name(Verdict::fail));
  BOOST_TEST(!std::get<OllamaResult>(big.engine_result).fully_offloaded);
}

BOOST_AUTO_TEST_CASE(env_values_as_envconfig_reads_them) {
  CheckOptions co;
  co.gpu = "H100";
  co.model = "meta-llama/Llama-3.2-1B-Instruct";
  // strconv.ParseUint fails: the default (4096); ParseBool fails on a set value: true.
  const CheckResult r = check_deployment(
      parse_launch_command(split_command_line("OLLAMA_CONTEXT_LENGTH=8k OLLAMA_FLASH_ATTENTION=yes ollama serve")), co);
  BOOST_TEST(r.context == 4096u);
  BOOST_TEST(std::get<OllamaResult>(r.engine_result).flash_attention);
}

BOOST_AUTO_TEST_CASE(modelfile_parameters) {
  const auto mf = detail::parse_modelfile("# a comment\nFROM llama3.2:3b\nPARAMETER num_ctx 8192\nPARAMETER temperature 0.7\n"
                                          "SYSTEM \"\"\"\nYou are brief.\n\"\"\"\n", "Modelfile");
  BOOST_TEST(mf.from == "llama3.2:3b");
  BOOST_TEST(mf.parameters.at("num_ctx") == "8192");
  BOOST_TEST(detail::find_ollama_parameter("num_ctx")->memory);
  BOOST_TEST(!detail::find_ollama_parameter("temperature")->memory);
  BOOST_CHECK_EXCEPTION(detail::parse_modelfile("FROM x\nPARAMETER num_ctxx 1\n", "Modelfile"), InputError,
                        test::HasMessage({"line 2", "num_ctxx"}));
  BOOST_CHECK_EXCEPTION(detail::parse_modelfile("PARAMETER num_ctx 1\n", "Modelfile"), InputError, test::HasMessage({"FROM"}));
}

BOOST_AUTO_TEST_SUITE_END()
