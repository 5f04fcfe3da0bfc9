// The engines' names: parsed and printed here, in the engines layer, so that check (which reads
// engine names from deployment files) does not reach up into report.
#include <cctype>
#include <string>

#include "kvplan/engines.h"
#include "kvplan/error.h"
#include "kvplan/text.h"

namespace kvplan {

EngineKind parse_engine(std::string_view name) {
  const std::string s = ascii_lower(name);
  if (s == "vllm") return EngineKind::vllm;
  if (s == "llama.cpp" || s == "llamacpp" || s == "llama-cpp" || s == "llama-server") return EngineKind::llamacpp;
  if (s == "sglang") return EngineKind::sglang;
  if (s == "trtllm" || s == "tensorrt-llm" || s == "tensorrt_llm" || s == "trt-llm") return EngineKind::trtllm;
  if (s == "ollama") return EngineKind::ollama;
  throw InputError::value("engine", name, "vllm, llama.cpp, sglang, trtllm or ollama");
}

std::string_view engine_name(EngineKind e) {
  switch (e) {
    case EngineKind::vllm: return "vllm";
    case EngineKind::llamacpp: return "llama.cpp";
    case EngineKind::sglang: return "sglang";
    case EngineKind::trtllm: return "trtllm";
    case EngineKind::ollama: return "ollama";
  }
  return "";
}

std::optional<Dtype> checkpoint_kv_cache_dtype(const ModelSpec& m, EngineKind engine, std::vector<std::string>* notes) {
  const std::string& algo = m.kv_cache_quant_algo;
  if (algo.empty() || engine == EngineKind::llamacpp || engine == EngineKind::ollama) return std::nullopt;
  std::optional<Dtype> d;
  if (algo == "FP8") d = Dtype::fp8_e4m3;
  else if (algo == "NVFP4" && engine == EngineKind::trtllm) d = Dtype::nvfp4;
  if (notes)
    notes->push_back(d ? "KV cache dtype auto: the checkpoint's kv_cache_quant_algo " + algo + " makes the cache " +
                             std::string(name(*d)) + " (" + std::string(engine_name(engine)) +
                             " follows the checkpoint; an explicit KV cache dtype overrides it)"
                       : "the checkpoint names kv_cache_quant_algo " + algo + ", which " +
                             std::string(engine_name(engine)) + "'s auto KV cache dtype does not take: the model dtype");
  return d;
}

}  // namespace kvplan
