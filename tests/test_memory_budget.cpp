// The budget's shared formulas, the engine terms, the runtime memory band and the log reader.
#include <boost/test/unit_test.hpp>

#include "helpers.h"
#include "kvplan/kvplan.h"

using namespace kvplan;
using kvplan::test::HasMessage;

BOOST_AUTO_TEST_SUITE(memory_budget)

BOOST_AUTO_TEST_CASE(pipeline_split_is_vllms) {
  // get_pp_indices: 80 layers over 3 stages -> 27, 27, 26 (the remainder to the stages before the last).
  BOOST_TEST(pipeline_split(80, 3) == (std::vector<std::uint64_t>{27, 27, 26}));
  BOOST_TEST(pipeline_split(61, 4) == (std::vector<std::uint64_t>{15, 15, 16, 15}));
  BOOST_TEST(default_pp_split(61, 4) == pipeline_split(61, 4));
  BOOST_CHECK_EXCEPTION(pipeline_split(10, 0), InputError, HasMessage({"pipeline"}));
}

BOOST_AUTO_TEST_CASE(activation_peak_shared_with_planner) {
  const ModelSpec m = load_model("meta-llama/Llama-3.1-8B");
  // 8192 x (4 x 4096 + 2 x 14336) x 2 B = 738,197,504; sampler 256 x 128,256 x 4 = 131,334,144.
  BOOST_TEST(activation_peak_bytes(m, 8192, 1) == 738'197'504ull);
  BOOST_TEST(activation_peak_bytes(m, 8192, 1, 256) == 738'197'504ull + 131'334'144ull);
  ReservedMemory r;
  BOOST_TEST(reserved_bytes(m, r, 1) == GiB + 738'197'504ull);
}

BOOST_AUTO_TEST_CASE(vllm_versions) {
  BOOST_CHECK(parse_vllm_version("0.6.3") == VllmBudgetVersion::v0);
  BOOST_CHECK(parse_vllm_version("0.10.1") == VllmBudgetVersion::v1);
  BOOST_CHECK(parse_vllm_version("v0.21.0") == VllmBudgetVersion::v1_graphs);
  BOOST_CHECK(parse_vllm_version("") == VllmBudgetVersion::v1_graphs);
  BOOST_CHECK_EXCEPTION(parse_vllm_version("new"), InputError, HasMessage({"--engine-version"}));
}

BOOST_AUTO_TEST_CASE(terms_have_bands_and_sources) {
  const ModelSpec m = load_model("meta-llama/Llama-3.1-8B");
  BudgetInput in;
  in.device = {70 * GiB, 80 * GiB};
  in.weights_bytes = 15 * GiB;
  for (EngineKind e : {EngineKind::vllm, EngineKind::sglang, EngineKind::trtllm, EngineKind::llamacpp}) {
    in.engine = e;
    EngineBudget b = engine_budget(m, in);
    BOOST_TEST(b.terms.front().name == "weights");
    BOOST_TEST(b.terms.front().low == 15 * GiB);
    for (const auto& t : b.terms) {
      BOOST_TEST(t.low <= t.high);
      BOOST_TEST(!t.source.empty());
    }
    BOOST_TEST(b.low() < b.high());
  }
  in.engine = EngineKind::vllm;
  in.enforce_eager = true;
  BOOST_TEST(engine_budget(m, in).find("CUDA graphs") == nullptr);
}

BOOST_AUTO_TEST_CASE(llama_compute_buffer_without_flash_attention) {
  // fedora-copr/logdetective#106: n_ctx 32,768, 32 heads, n_ubatch 512, flash_attn 0 -> "CUDA0 compute
  // buffer size = 2144.00 MiB"; the KQ matrix alone is 32,768 x 512 x 32 x 4 B = 2,048 MiB.
  const ModelSpec m = load_model("mistralai/Mistral-7B-v0.1");
  BudgetInput in;
  in.engine = EngineKind::llamacpp;
  in.device = {24 * GiB, 24 * GiB};
  in.ubatch = 512;
  in.llama_ctx = 32768;
  in.llama_flash_attn = "off";
  EngineBudget off = engine_budget(m, in);
  const BudgetTerm* t = off.find("compute buffer");
  BOOST_REQUIRE(t);
  BOOST_TEST(t->low <= 2144 * MiB);
  BOOST_TEST(t->high >= 2144 * MiB);
  in.llama_flash_attn = "on";
  BOOST_TEST(engine_budget(m, in).find("compute buffer")->high < t->low * 4);
  in.llama_flash_attn = "auto";  // may fall back to off: the unfavourable end includes the KQ matrix
  BOOST_TEST(engine_budget(m, in).find("compute buffer")->high >= 2144 * MiB);
}

BOOST_AUTO_TEST_CASE(runtime_memory_band_rules) {
  // nvidia-smi 81,559 MiB; vLLM logged 79.10 GiB on an H100 80GB: inside the band.
  const MemoryBand h = runtime_memory_band(find_accelerator("H100"));
  BOOST_TEST(h.low <= static_cast<std::uint64_t>(79.10 * GiB));
  BOOST_TEST(h.high >= static_cast<std::uint64_t>(79.10 * GiB));
  // The RTX 3090 (24,576 MiB): vLLM logged total_gpu_memory=23.58GiB (vllm#10517).
  const MemoryBand r = runtime_memory_band(find_accelerator("3090"));
  BOOST_TEST(r.low <= static_cast<std::uint64_t>(23.58 * GiB));
  BOOST_TEST(r.high >= static_cast<std::uint64_t>(23.58 * GiB));
  Accelerator given;
  given.memory_bytes = 20 * GiB;
  given.memory_basis = "given by --gpu-memory";
  BOOST_TEST(runtime_memory_band(given).low == 20 * GiB);
  BOOST_TEST(runtime_memory_band(given).high == 20 * GiB);
}

BOOST_AUTO_TEST_CASE(memory_sizes_need_a_unit) {
  BOOST_TEST(parse_memory_size("20GiB", "--gpu-memory") == 20 * GiB);
  BOOST_TEST(parse_memory_size("24GB", "--gpu-memory") == 24'000'000'000ull);
  BOOST_CHECK_EXCEPTION(parse_memory_size("24", "--gpu-memory"), InputError, HasMessage({"--gpu-memory", "unit"}));
}

BOOST_AUTO_TEST_CASE(reads_engine_logs) {
  const auto v1 = read_engine_log("INFO [gpu_worker.py:440] Available KV cache memory: 51.82 GiB\n", EngineKind::vllm, "log");
  BOOST_REQUIRE(v1.available_kv_bytes);
  BOOST_TEST(v1.available_kv_bytes->low == static_cast<std::uint64_t>(std::ceil(51.815 * GiB)));
  BOOST_TEST(v1.available_kv_bytes->high == static_cast<std::uint64_t>(std::floor(51.825 * GiB)));
  const auto sg = read_engine_log("KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB\n", EngineKind::sglang, "log");
  BOOST_TEST(*sg.kv_tokens == 367404u);
  const auto ll = read_engine_log(
      "llama_kv_cache:      CUDA0 KV buffer size =  1024.00 MiB\nllama_kv_cache:        CPU KV buffer size =   512.00 MiB\n"
      "load_tensors:        CUDA0 model buffer size =  4403.49 MiB\n",
      EngineKind::llamacpp, "log");
  BOOST_TEST(ll.llama_kv_bytes->low == 1024 * MiB - MiB / 200);
  BOOST_TEST(ll.llama_model_bytes.has_value());
  // llama.cpp build 1344 (ggml-org/ci, V100 run of 4d03833): "MB" is x / 2^20 there; the total
  // "kv self size" is not added to the GPU part "VRAM kv self".
  const auto old = read_engine_log(
      "llm_load_tensors: VRAM used: 12603.02 MB\nllama_kv_cache_init: VRAM kv self = 1024.00 MB\n"
      "llama_new_context_with_model: kv self size  = 1024.00 MB\n"
      "llama_new_context_with_model: total VRAM used: 13783.02 MB (model: 12603.02 MB, context: 1180.00 MB)\n",
      EngineKind::llamacpp, "log");
  BOOST_REQUIRE(old.llama_kv_bytes && old.llama_model_bytes);
  BOOST_TEST(old.llama_kv_bytes->low == 1024 * MiB - MiB / 200);
  BOOST_TEST(old.llama_kv_bytes->high == 1024 * MiB + MiB / 200);
  BOOST_TEST(old.llama_model_bytes->low == static_cast<std::uint64_t>(std::ceil(12603.015 * MiB)));
  // "KV self size" alone (no per-device line) is the cache; beside a host-only KV line it is not GPU
  // memory, and a log with no GPU figure is refused.
  BOOST_TEST(read_engine_log("llama_context: KV self size  =  512.00 MiB, K (f16):  256.00 MiB, V (f16):  256.00 MiB\n", EngineKind::llamacpp,
                             "log").llama_kv_bytes->high == 512 * MiB + MiB / 200);
  BOOST_CHECK_EXCEPTION(read_engine_log("llama_kv_cache_init:        CPU KV buffer size =   512.00 MiB\n"
                                        "llama_new_context_with_model: KV self size  =  512.00 MiB, K (f16):  256.00 MiB, V (f16):  256.00 MiB\n",
                                        EngineKind::llamacpp, "cpu.log"),
                        InputError, HasMessage({"cpu.log", "--engine-log", "no memory figures"}));
  // TensorRT-LLM: the PyTorch backend's line (triton-inference-server/tutorials#150) and the 0.x C++
  // runtime's (NVIDIA/TensorRT-LLM#224).
  BOOST_TEST(*read_engine_log("[TensorRT-LLM][INFO] [MemUsageChange] Allocated 78.30 GiB for max tokens in paged KV cache (3731744).\n",
                              EngineKind::trtllm, "log").kv_tokens == 3731744u);
  BOOST_TEST(*read_engine_log("[TensorRT-LLM][INFO] Using 10718 tokens in paged KV cache.\n", EngineKind::trtllm, "log").kv_tokens == 10718u);
  // vLLM V1's token count alone, thousands separated (kthxo/distserving, RTX 5090, Qwen3-8B).
  BOOST_TEST(*read_engine_log("GPU KV cache size: 89,040 tokens\n", EngineKind::vllm, "log").vllm_kv_tokens == 89040u);
  BOOST_TEST(*read_engine_log("INFO [kv_cache_utils.py:1319] GPU KV cache size: 140960 tokens\n", EngineKind::vllm, "log").vllm_kv_tokens ==
             140960u);
  BOOST_CHECK_EXCEPTION(read_engine_log("GPU KV cache size: 89,040 tokens\n", EngineKind::sglang, "s.log"), InputError,
                        HasMessage({"s.log", "--engine-log"}));
  const auto fail = read_engine_log("ValueError: No available memory for the cache blocks.\n", EngineKind::vllm, "log");
  BOOST_TEST(fail.failure.has_value());
  BOOST_CHECK_EXCEPTION(read_engine_log("hello\n", EngineKind::vllm, "x.log"), InputError, HasMessage({"x.log", "--engine-log"}));
}

BOOST_AUTO_TEST_SUITE_END()
