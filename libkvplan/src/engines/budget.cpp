// The memory each engine takes before its KV cache, term by term, with a band [low, high] for the
// terms the engine measures at start-up, and the reader of the engines' start-up logs that turns
// those measurements into exact figures. Sources: docs/engines.md, "The memory budget".
#include "kvplan/budget.h"

#include <algorithm>
#include <cmath>
#include <regex>
#include <sstream>
#include <utility>

#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "kvplan/units.h"

namespace kvplan {

namespace {


// The band an estimate spans: [estimate / 2, estimate x 2] (activation peaks measured in public
// logs fall within it: docs/engines.md).
BudgetTerm estimate_term(std::string name, std::uint64_t estimate, std::string source) {
  return {std::move(name), estimate / 2, checked_mul(estimate, 2, "budget term"), "estimate", std::move(source), estimate};
}

}  // namespace

std::uint64_t typical_of(std::uint64_t low, std::uint64_t high, std::uint64_t typical) {
  if (typical == 0) return low + (high - low) / 2;
  return std::clamp(typical, low, high);
}

std::uint64_t EngineBudget::low() const {
  std::uint64_t s = 0;
  for (const auto& t : terms) s = checked_add(s, t.low, "budget");
  return s;
}
std::uint64_t EngineBudget::high() const {
  std::uint64_t s = 0;
  for (const auto& t : terms) s = checked_add(s, t.high, "budget");
  return s;
}
BudgetTerm* EngineBudget::find(std::string_view name) {
  for (auto& t : terms)
    if (t.name == name) return &t;
  return nullptr;
}

namespace {
// "0.10.1" / "v0.21" -> {major, minor}; InputError for anything else.
std::pair<unsigned, unsigned> vllm_major_minor(std::string_view text) {
  std::string s(text);
  if (!s.empty() && (s[0] == 'v' || s[0] == 'V')) s.erase(0, 1);
  unsigned major = 0, minor = 0;
  char dot = 0;
  std::istringstream in(s);
  if (!(in >> major >> dot >> minor) || dot != '.')
    throw InputError::value("--engine-version", text, "a vLLM version such as 0.10.1, 0.21 or latest");
  return {major, minor};
}
}  // namespace

VllmBudgetVersion parse_vllm_version(std::string_view text) {
  if (text.empty() || text == "latest") return VllmBudgetVersion::v1_graphs;
  if (text == "v0" || text == "V0") return VllmBudgetVersion::v0;
  const auto [major, minor] = vllm_major_minor(text);
  if (major > 0 || minor >= 21) return VllmBudgetVersion::v1_graphs;
  if (minor >= 8) return VllmBudgetVersion::v1;
  return VllmBudgetVersion::v0;
}

bool vllm_auto_kv_follows_checkpoint(std::string_view text) {
  if (text.empty() || text == "latest") return true;
  if (text == "v0" || text == "V0") return false;
  const auto [major, minor] = vllm_major_minor(text);
  return major > 0 || minor >= 14;
}

bool vllm_budget_counts_other_processes(std::string_view text) {
  if (text.empty() || text == "latest" || text == "v0" || text == "V0") return false;
  const auto [major, minor] = vllm_major_minor(text);
  return major == 0 && (minor == 8 || minor == 9);
}

bool vllm_refuses_short_free_memory(std::string_view text) {
  if (text.empty() || text == "latest") return true;
  if (text == "v0" || text == "V0") return false;
  const auto [major, minor] = vllm_major_minor(text);
  return major > 0 || minor >= 9;
}

std::string_view vllm_version_name(VllmBudgetVersion v) {
  switch (v) {
    case VllmBudgetVersion::v0: return "vLLM V0 (before 0.8, or VLLM_USE_V1=0)";
    case VllmBudgetVersion::v1: return "vLLM V1 0.8 to 0.20 (CUDA graphs outside the budget)";
    case VllmBudgetVersion::v1_graphs: return "vLLM V1 0.21 and later (CUDA graph memory profiled)";
  }
  return "vLLM";
}

EngineBudget engine_budget(const ModelSpec& m, const BudgetInput& in) {
  if (in.tp == 0) throw InputError::value("tensor parallel size", "0", "a positive integer");
  EngineBudget b;
  b.device = in.device;
  // Weights as loaded: the count from the checkpoint, up to 1% + 256 MiB more for buffers the
  // loader keeps (rotary caches, padding of the vocabulary to the TP size).
  // A layout band (vLLM's MXFP4 MoE backends) widens the high end by what the engine's kernel
  // choice may add, and names where it comes from.
  const std::uint64_t w_high = checked_add(in.weights_bytes, in.weights_layout_extra, "weights");
  b.terms.push_back({"weights", in.weights_bytes,
                     checked_add(w_high, checked_add(w_high / 100, 256 * MiB), "weights"), "counted",
                     in.weights_layout_source.empty()
                         ? std::string("checkpoint tensors split over tp x pp (kvplan weight_bytes)")
                         : "checkpoint tensors split over tp x pp (kvplan weight_bytes), " + in.weights_layout_source,
                     // Typical: +0.1% to +0.5% logged ("Model loading took 14.99 GiB" for 14.96 GiB counted).
                     checked_add(checked_add(in.weights_bytes, std::min(in.weights_layout_typical_extra, in.weights_layout_extra)),
                                 w_high / 256)});
  const bool multi = in.tp > 1;
  switch (in.engine) {
    case EngineKind::vllm: {
      const std::uint64_t act = activation_peak_bytes(m, in.max_num_batched_tokens, in.tp, in.sampler_seqs);
      b.terms.push_back(estimate_term(
          "activation peak", act,
          in.vllm_version == VllmBudgetVersion::v0
              ? "vllm/worker/worker.py determine_num_available_blocks: torch peak of profile_run"
              : "vllm/v1/worker/gpu_worker.py determine_available_memory: torch peak of gpu_model_runner.profile_run "
                "(max_num_batched_tokens dummy batch + _dummy_sampler_run)"));
      b.terms.push_back({multi ? "non-torch (CUDA context, NCCL, custom all-reduce)" : "non-torch (CUDA context, cuBLAS)",
                         // 0.25 GiB (TP 2, vllm#13061) to 5.24 GiB (TP 4, Open-Reasoner-Zero#23) logged under TP.
                         multi ? 256 * MiB : 128 * MiB, multi ? 6 * GiB : 1 * GiB, "estimate",
                         "vllm/utils/mem_utils.py memory_profiling: non_torch_increase (mem_get_info used - torch reserved)",
                         // Typical: 0.22-0.31 GiB on one RTX 3090 (the vllm-offload-profiles logs, with the
                         // activation estimate), 0.35 GiB (vllm#10517); about 0.4 GiB at TP 2 (vLLM-benchmarking).
                         multi ? 512 * MiB : 256 * MiB});
      if (in.vllm_version == VllmBudgetVersion::v1_graphs && !in.enforce_eager)
        // 2.35 GiB estimated, 2.44 GiB actual for Qwen3-8B on an A100-40GB (dariustanrd/tokenkaki, vLLM 0.19.1).
        b.terms.push_back({"CUDA graphs", 64 * MiB, 3 * GiB, "estimate",
                           "vllm/v1/worker/gpu_model_runner.py profile_cudagraph_memory (\"Estimated CUDA graph memory\"), "
                           "subtracted in gpu_worker.determine_available_memory since v0.21",
                           512 * MiB});  // typical: 0.45 and 0.48 GiB logged on a GB10 (vLLM 0.27.1)
      else if (!in.enforce_eager)
        b.notes.push_back("CUDA graphs are captured after the KV cache in this vLLM version: they take 0.06-3 GiB of "
                          "the memory outside --gpu-memory-utilization");
      break;
    }
    case EngineKind::sglang: {
      // Memory in use before the weights load: the CUDA context and torch, plus NCCL under TP.
      b.terms.push_back({"CUDA context", 256 * MiB, 1 * GiB, "estimate",
                         "sglang/srt/model_executor/model_runner.py init_torch_distributed: min_per_gpu_memory "
                         "(free memory after distributed init)"});
      if (multi)
        b.terms.push_back({"NCCL buffers", 256 * MiB, 2 * GiB, "estimate",
                           "model_runner.py init_torch_distributed: NCCL / custom all-reduce before the weights"});
      break;
    }
    case EngineKind::trtllm: {
      const std::uint64_t act = activation_peak_bytes(m, in.max_num_batched_tokens, in.tp, in.sampler_seqs);
      b.terms.push_back(estimate_term("activation peak", act,
                                      "tensorrt_llm/_torch/pyexecutor/_util.py KvCacheCreator: torch peak of the "
                                      "max_num_tokens dummy run"));
      b.terms.push_back({"non-torch (CUDA context, NCCL, runtime workspace)", multi ? 512 * MiB : 256 * MiB,
                         multi ? 3 * GiB : 3 * GiB / 2, "estimate",
                         "_util.py _cal_max_memory: total - free after the dummy run, less torch"});
      break;
    }
    case EngineKind::llamacpp: {
      // Compute buffer: the graph for one ubatch, the output logits dominate (n_ubatch x vocab x 4).
      // Without flash attention the f32 KQ matrix of one ubatch (n_ctx x n_ubatch x n_head x 4 B) is
      // in it too: 2,144 MiB logged at n_ctx 32,768, 32 heads, fa off (fedora-copr/logdetective#106).
      const std::uint64_t base = checked_add(checked_product({in.ubatch, m.dims.vocab_size, 4}), 256 * MiB);
      const std::uint64_t kq = checked_product({in.llama_ctx, in.ubatch, m.dims.num_attention_heads, 4}, "compute buffer");
      const bool fa_off = in.llama_flash_attn == "off", fa_auto = in.llama_flash_attn == "auto";
      const std::uint64_t est = fa_off ? checked_add(base, kq) : base;
      BudgetTerm t = estimate_term("compute buffer", est, "src/llama-context.cpp graph_reserve: \"<dev> compute buffer size\"");
      t.low = est / 4;
      if (fa_auto) t.high = checked_mul(checked_add(base, kq), 2);  // auto falls back to off where FA is unsupported
      b.terms.push_back(t);
      b.terms.push_back({"CUDA context", 256 * MiB, 768 * MiB, "estimate", "ggml-cuda.cu device init (cuBLAS handles, pools)"});
      break;
    }
    case EngineKind::ollama: break;  // Ollama's own estimate (engine_ollama.cpp), judged by check/evaluate_ollama.cpp
  }
  return b;
}

// ---------------------------------------------------------------------------------------------
// Start-up logs
// ---------------------------------------------------------------------------------------------
namespace {

// A printed number and its unit as a band: "51.82 GiB" is anywhere in [51.815, 51.825) GiB.
ByteBand printed_band(const std::string& number, std::uint64_t unit) {
  const auto dot = number.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(number.size() - dot - 1);
  // The regexes admit digits only; a figure past a petabyte is not a memory size (and stod would throw).
  if (number.size() > 24) throw InputError::value("--engine-log", number.substr(0, 24) + "...", "a memory figure");
  const double v = std::stod(number);
  if (!(v < 1e15)) throw InputError::value("--engine-log", number, "a memory figure below 10^15");
  const double half = 0.5 * std::pow(10.0, -decimals);
  const double u = static_cast<double>(unit);
  const double lo = std::max(0.0, (v - half) * u), hi = (v + half) * u;
  return {static_cast<std::uint64_t>(std::ceil(lo)), static_cast<std::uint64_t>(std::floor(hi))};
}

// A logged count (blocks, tokens): digits only, at most 15 of them.
std::uint64_t count_of(const std::string& digits) {
  if (digits.empty() || digits.size() > 15) throw InputError::value("--engine-log", digits.substr(0, 20), "a count below 10^15");
  return std::stoull(digits);
}

ByteBand add_band(const std::optional<ByteBand>& a, const ByteBand& b) {
  if (!a) return b;
  return {checked_add(a->low, b.low), checked_add(a->high, b.high)};
}

// For messages (engine_name lives in the report layer, above this one).
std::string engine_label(EngineKind e) {
  switch (e) {
    case EngineKind::vllm: return "vLLM";
    case EngineKind::sglang: return "SGLang";
    case EngineKind::trtllm: return "TensorRT-LLM";
    case EngineKind::llamacpp: return "llama.cpp";
    case EngineKind::ollama: return "Ollama";
  }
  return "the engine";
}

std::uint64_t unit_of(const std::string& u) {
  // vLLM prints "GB" for GiB figures in V0 ("Loading model weights took 14.9888 GB" is x / 2^30).
  if (u == "GiB" || u == "GB") return GiB;
  if (u == "MiB" || u == "MB") return MiB;
  return GiB;
}

}  // namespace

EngineLogFigures read_engine_log(std::string_view text_in, EngineKind engine, std::string_view source) {
  EngineLogFigures f;
  f.engine = engine;
  const std::string text(text_in);
  std::istringstream lines(text);
  std::string line;
  static const std::regex v1_avail(R"(Available KV cache memory: ([0-9]+(?:\.[0-9]+)?) ?(GiB|GB))");
  static const std::regex v0_rest(R"((?:reserved for KV Cache is |kv_cache_size=)([0-9]+(?:\.[0-9]+)?) ?(GiB|GB))");
  static const std::regex v0_blocks(R"((?:^|[# ])(?:GPU|cuda|CUDA) blocks: ([0-9]+))");
  static const std::regex weights(R"((?:Model loading took|Loading model weights took) ([0-9]+(?:\.[0-9]+)?) ?(GiB|GB))");
  static const std::regex total(R"(total_gpu_memory(?: \(|=)([0-9]+(?:\.[0-9]+)?) ?(GiB|GB))");
  static const std::regex graphs(R"(Estimated CUDA graph memory: ([0-9]+(?:\.[0-9]+)?) ?(GiB|GB))");
  // V1 0.19-0.20 with VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS: "CUDA graph pool memory: 2.44 GiB (actual)".
  static const std::regex graphs_actual(R"(CUDA graph pool memory: ([0-9]+(?:\.[0-9]+)?) ?(GiB|GB) \(actual\))");
  static const std::regex act(R"(activation peak memory takes ([0-9]+(?:\.[0-9]+)?) ?(GiB|GB))");
  static const std::regex nontorch(R"(non_torch_memory takes ([0-9]+(?:\.[0-9]+)?) ?(GiB|GB))");
  static const std::regex sg_alloc(R"(KV Cache is allocated\. #tokens: ([0-9]+))");
  static const std::regex sg_max(R"(max_total_num_tokens=([0-9]+))");
  static const std::regex trt_alloc(R"(Allocated ([0-9]+(?:\.[0-9]+)?) GiB for max tokens in paged KV cache \(([0-9]+)\))");
  // The C++ runtime of TensorRT-LLM 0.x: "Using 10718 tokens in paged KV cache." (NVIDIA/TensorRT-LLM#224).
  static const std::regex trt_using(R"(Using ([0-9]+) tokens in paged KV cache)");
  // vLLM V1 (kv_cache_utils.py): "GPU KV cache size: 89,040 tokens", thousands separated by commas.
  static const std::regex v1_tokens(R"(GPU KV cache size: ([0-9]{1,3}(?:,[0-9]{3})*|[0-9]+) tokens)");
  static const std::regex ll_buf(R"(([A-Za-z_]+[0-9]*)(?:_[A-Za-z]+)? (KV|model|compute) buffer size = *([0-9]+(?:\.[0-9]+)?) MiB)");
  // llama.cpp before the buffer-type logs (e.g. build 1344, Oct 2023; ggml-org/ci's V100 runs):
  // "llama_kv_cache_init: VRAM kv self = 256.00 MB" is the GPU part of the cache, "llm_load_tensors:
  // VRAM used: 12603.02 MB" the GPU weights; "MB" there is x / 1024 / 1024 (llama.cpp's
  // llama_kv_cache_init and llm_load_tensors of that time), so MiB.
  static const std::regex ll_vram_kv(R"(VRAM kv self = *([0-9]+(?:\.[0-9]+)?) MB)");
  static const std::regex ll_vram_model(R"(llm_load_tensors: VRAM used: *([0-9]+(?:\.[0-9]+)?) MB)");
  // "llama_context: KV self size = X MiB" / "kv self size = X MB": the whole cache, host part
  // included; used only where the log has no per-device KV line (a CPU-only cache has those).
  static const std::regex ll_self(R"((?:KV|kv) self size *= *([0-9]+(?:\.[0-9]+)?) (MiB|MB))");
  static const std::regex failure(
      R"((No available memory for the cache blocks|CUDA out of memory|OutOfMemoryError|out of memory|Not enough memory|larger than the maximum number of tokens that can be stored in KV cache|larger than the available KV cache memory|Engine core initialization failed|failed to allocate|unable to allocate|cudaMalloc failed|insufficient memory))",
      std::regex::icase);
  std::smatch mt;
  std::optional<std::uint64_t> sg_alloc_tokens;
  std::optional<ByteBand> ll_self_bytes;
  bool ll_device_kv_line = false;  // a per-device KV line (any device, host included) was seen
  while (std::getline(lines, line)) {
    // std::regex recurses per character: very long lines (a fuzzer's, a base64 blob) are cut.
    if (line.size() > 4096) line.resize(4096);
    bool used = true;
    if (std::regex_search(line, mt, v1_avail) || std::regex_search(line, mt, v0_rest)) {
      f.available_kv_bytes = printed_band(mt[1], unit_of(mt[2]));
    } else if (std::regex_search(line, mt, v0_blocks)) {
      f.gpu_blocks = count_of(mt[1]);
    } else if (std::regex_search(line, mt, weights)) {
      f.weights_bytes = printed_band(mt[1], unit_of(mt[2]));
    } else if (std::regex_search(line, mt, graphs)) {
      f.cudagraph_bytes = printed_band(mt[1], unit_of(mt[2]));
    } else if (std::regex_search(line, mt, graphs_actual)) {
      f.cudagraph_actual_bytes = printed_band(mt[1], unit_of(mt[2]));
    } else if (std::regex_search(line, mt, sg_alloc)) {
      sg_alloc_tokens = count_of(mt[1]);
    } else if (std::regex_search(line, mt, sg_max)) {
      f.kv_tokens = count_of(mt[1]);
    } else if (std::regex_search(line, mt, trt_alloc)) {
      f.kv_tokens = count_of(mt[2]);
    } else if (std::regex_search(line, mt, trt_using)) {
      f.kv_tokens = count_of(mt[1]);
    } else if (engine == EngineKind::vllm && std::regex_search(line, mt, v1_tokens)) {
      std::string digits = mt[1];
      digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
      f.vllm_kv_tokens = count_of(digits);
    } else if (engine == EngineKind::llamacpp && std::regex_search(line, mt, ll_vram_kv)) {
      ll_device_kv_line = true;
      f.llama_kv_bytes = add_band(f.llama_kv_bytes, printed_band(mt[1], MiB));
    } else if (engine == EngineKind::llamacpp && std::regex_search(line, mt, ll_vram_model)) {
      f.llama_model_bytes = add_band(f.llama_model_bytes, printed_band(mt[1], MiB));
    } else if (engine == EngineKind::llamacpp && std::regex_search(line, mt, ll_self)) {
      ll_self_bytes = printed_band(mt[1], MiB);
    } else if (engine == EngineKind::llamacpp && std::regex_search(line, mt, ll_buf)) {
      const std::string dev = mt[1];
      if (std::string(mt[2]) == "KV") ll_device_kv_line = true;
      if (dev.rfind("CPU", 0) == 0 || dev.find("Host") != std::string::npos) continue;  // host buffers
      const ByteBand b = printed_band(mt[3], MiB);
      const std::string kind = mt[2];
      if (kind == "KV") f.llama_kv_bytes = add_band(f.llama_kv_bytes, b);
      else if (kind == "model") f.llama_model_bytes = add_band(f.llama_model_bytes, b);
      else f.llama_compute_bytes = add_band(f.llama_compute_bytes, b);
    } else {
      used = false;
    }
    // V0's one-line summary carries several figures.
    if (std::regex_search(line, mt, total)) f.total_bytes = printed_band(mt[1], unit_of(mt[2])), used = true;
    if (std::regex_search(line, mt, act)) f.activation_bytes = printed_band(mt[1], unit_of(mt[2])), used = true;
    if (std::regex_search(line, mt, nontorch)) f.non_torch_bytes = printed_band(mt[1], unit_of(mt[2])), used = true;
    if (!f.failure && std::regex_search(line, mt, failure)) {
      std::string l = line;
      while (!l.empty() && (l.back() == '\r' || l.back() == ' ')) l.pop_back();
      f.failure = l.size() > 300 ? l.substr(0, 300) + "..." : l;
      used = true;
    }
    if (used) f.lines_used.push_back(line.size() > 300 ? line.substr(0, 300) + "..." : line);
  }
  if (!f.kv_tokens && sg_alloc_tokens) f.kv_tokens = sg_alloc_tokens;  // rows (tokens + one page): see check
  if (!ll_device_kv_line && ll_self_bytes) f.llama_kv_bytes = ll_self_bytes;
  const bool any = f.available_kv_bytes || f.gpu_blocks || f.weights_bytes || f.kv_tokens || f.vllm_kv_tokens || f.llama_kv_bytes ||
                   f.llama_model_bytes || f.failure || f.total_bytes;
  if (!any)
    throw InputError::value(std::string(source) + " (--engine-log)", "no memory figures",
                            std::string("a start-up log of ") + engine_label(engine) +
                                " (lines such as \"Available KV cache memory: 51.8 GiB\", \"KV Cache is allocated. #tokens: N\", "
                                "\"CUDA0 KV buffer size = 1024.00 MiB\", or the error that stopped it)");
  return f;
}

}  // namespace kvplan
