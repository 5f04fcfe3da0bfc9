// The engines' names: parsed and printed here, in the engines layer, so that check (which reads
// engine names from deployment files) does not reach up into report.
#include <cctype>
#include <string>

#include "kvplan/engines.h"
#include "kvplan/error.h"

namespace kvplan {

EngineKind parse_engine(std::string_view name) {
  std::string s(name);
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "vllm") return EngineKind::vllm;
  if (s == "llama.cpp" || s == "llamacpp" || s == "llama-cpp" || s == "llama-server") return EngineKind::llamacpp;
  if (s == "sglang") return EngineKind::sglang;
  if (s == "trtllm" || s == "tensorrt-llm" || s == "tensorrt_llm" || s == "trt-llm") return EngineKind::trtllm;
  throw InputError::value("engine", name, "vllm, llama.cpp, sglang or trtllm");
}

std::string_view engine_name(EngineKind e) {
  switch (e) {
    case EngineKind::vllm: return "vllm";
    case EngineKind::llamacpp: return "llama.cpp";
    case EngineKind::sglang: return "sglang";
    case EngineKind::trtllm: return "trtllm";
  }
  return "";
}

}  // namespace kvplan
