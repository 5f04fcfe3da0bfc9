// Ollama's profile as JSON (exact integer bytes) and text (its own log lines, HumanBytes2 figures).
#include <sstream>

#include "kvplan/engine_ollama.h"
#include "kvplan/units.h"

namespace kvplan {

nlohmann::json to_json(const OllamaResult& r) {
  nlohmann::json j;
  j["engine"] = "ollama";
  j["num_ctx"] = r.num_ctx;
  j["num_parallel"] = r.num_parallel;
  j["kv_size"] = r.kv_size;
  j["estimate_ctx"] = r.estimate_ctx;
  j["batch"] = r.batch;
  j["flash_attention"] = r.flash_attention;
  j["kv_cache_type"] = r.kv_cache_type;
  j["runner"] = r.runner;
  j["gguf_architecture"] = r.gguf_architecture;
  j["kv_bytes"] = r.kv_bytes;
  j["graph_full_bytes"] = r.graph_full_bytes;
  j["graph_partial_bytes"] = r.graph_partial_bytes;
  j["graph_modelled"] = r.graph_modelled;
  j["layers_model"] = r.layers_model;
  j["layers_requested"] = r.layers_requested;
  j["layers_offload"] = r.layers_offload;
  j["layers_split"] = r.layers_split;
  j["gpu_allocations"] = r.gpu_allocations;
  j["required_full_bytes"] = r.required_full_bytes;
  j["required_partial_bytes"] = r.required_partial_bytes;
  j["weights_repeating_bytes"] = r.weights_repeating_bytes;
  j["weights_nonrepeating_bytes"] = r.weights_nonrepeating_bytes;
  j["fully_offloaded"] = r.fully_offloaded;
  j["runner_kv_bytes"] = r.runner_kv_bytes;
  j["runner_args"] = r.runner_args;
  j["log_lines"] = r.log_lines;
  j["notes"] = r.notes;
  return j;
}

std::string format_engine_text(const OllamaResult& r) {
  std::ostringstream os;
  os << "Ollama: num_ctx " << format_count(r.num_ctx) << " x " << r.num_parallel << " parallel = " << format_count(r.kv_size)
     << " KV cells, " << r.kv_cache_type << (r.flash_attention ? ", flash attention" : "") << ", " << r.runner << " runner\n";
  os << "  estimate: kv " << ollama_format_bytes(r.kv_bytes) << ", graph full " << ollama_format_bytes(r.graph_full_bytes)
     << " / partial " << ollama_format_bytes(r.graph_partial_bytes) << ", required " << ollama_format_bytes(r.required_full_bytes)
     << "; GPU layers " << r.layers_offload << "/" << r.layers_model << "\n";
  if (!r.log_lines.empty()) {
    os << "log lines:\n";
    for (const auto& l : r.log_lines) os << "  " << l << "\n";
  }
  for (const auto& n : r.notes) os << "note: " << n << "\n";
  return os.str();
}

}  // namespace kvplan
