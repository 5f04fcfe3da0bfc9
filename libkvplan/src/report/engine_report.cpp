// Formatters for the engine profiles: JSON objects (exact integer bytes) and text reports with
// the engines' own log lines.
#include <cstdio>
#include <sstream>

#include "kvplan/engine_fields.h"
#include "kvplan/engines.h"
#include "kvplan/error.h"
#include "kvplan/units.h"

namespace kvplan {

namespace {
nlohmann::json common(std::string_view engine, const std::vector<std::string>& logs, const std::vector<std::string>& notes) {
  nlohmann::json j;
  j["engine"] = engine;
  j["log_lines"] = logs;
  j["notes"] = notes;
  return j;
}
std::string lines(const std::vector<std::string>& logs, const std::vector<std::string>& notes) {
  std::ostringstream os;
  if (!logs.empty()) {
    os << "log lines:\n";
    for (const auto& l : logs) os << "  " << l << "\n";
  }
  for (const auto& n : notes) os << "note: " << n << "\n";
  return os.str();
}
}  // namespace

nlohmann::json to_json(const VllmResult& r) {
  auto j = common("vllm", r.log_lines, r.notes);
  j["max_model_len"] = r.max_model_len;
  j["block_size"] = r.block_size;
  j["attention_block_size"] = r.attention_block_size;
  j["page_bytes"] = r.page_bytes;
  j["layout"] = r.layout;
  j["group_size"] = r.group_size;
  j["num_groups"] = r.num_groups;
  j["padding_layers"] = r.padding_layers;
  if (r.mamba_page_bytes) {
    j["mamba_page_bytes"] = r.mamba_page_bytes;
    j["mamba_page_padded_bytes"] = r.mamba_page_padded_bytes;
    j["mamba_cache_mode"] = r.mamba_cache_mode;
  }
  j["kv_heads_per_rank"] = r.kv_heads_per_rank;
  j["bytes_per_token"] = r.bytes_per_token;
  j["available_kv_bytes"] = r.available_kv_bytes;
  j["num_blocks"] = r.num_blocks;
  j["kv_cache_bytes"] = r.kv_cache_bytes;
  j["kv_cache_tokens"] = r.kv_cache_tokens;
  j["max_concurrency"] = r.max_concurrency;
  j["request_bytes"] = r.request_bytes;
  j["starts"] = r.starts;
  j["max_fitting_len"] = r.max_fitting_len;
  if (!r.starts) j["error"] = r.error;
  auto& gs = j["groups"] = nlohmann::json::array();
  for (const auto& g : r.groups)
    gs.push_back({{"kind", std::string(vllm_group_kind_name(g.kind))}, {"block_size", g.block_size}, {"page_bytes", g.page_bytes}, {"window", g.window},
                  {"layers", g.layers}, {"blocks_per_request", g.blocks_per_request}});
  return j;
}

nlohmann::json to_json(const LlamaCppResult& r) {
  auto j = common("llama.cpp", r.log_lines, r.notes);
  j["n_ctx"] = r.n_ctx;
  j["n_ctx_seq"] = r.n_ctx_seq;
  j["n_seq_max"] = r.n_seq_max;
  j["n_stream"] = r.n_stream;
  j["kv_unified"] = r.kv_unified;
  j["n_ubatch"] = r.n_ubatch;
  j["cells"] = r.cells;
  j["swa_cells"] = r.swa_cells;
  j["k_bytes"] = r.k_bytes;
  j["v_bytes"] = r.v_bytes;
  j["kv_bytes"] = r.kv_bytes;
  j["r_bytes"] = r.r_bytes;
  j["s_bytes"] = r.s_bytes;
  j["state_bytes"] = r.state_bytes;
  j["total_bytes"] = r.total_bytes;
  auto& cs = j["caches"] = nlohmann::json::array();
  for (const auto& c : r.caches)
    cs.push_back({{"name", c.name}, {"role", c.role}, {"cells", c.cells}, {"layers", c.layers}, {"streams", c.streams},
                  {"k_bytes", c.k_bytes}, {"v_bytes", c.v_bytes}, {"k_type", c.k_type}, {"v_type", c.v_type},
                  {"log_line", c.log_line}});
  return j;
}

nlohmann::json to_json(const SglangResult& r) {
  auto j = common("sglang", r.log_lines, r.notes);
  j["mem_fraction_static"] = r.mem_fraction_static;
  j["mem_fraction_default"] = r.mem_fraction_default;
  j["reserved_mib"] = r.reserved_mib;
  j["page_size"] = r.page_size;
  j["cell_size"] = r.cell_size;
  j["rest_bytes"] = r.rest_bytes;
  j["max_total_num_tokens"] = r.max_total_num_tokens;
  j["kv_cache_tokens"] = r.max_total_num_tokens;
  j["rows_allocated"] = r.rows_allocated;
  j["k_bytes"] = r.k_bytes;
  j["v_bytes"] = r.v_bytes;
  j["kv_bytes"] = r.kv_bytes;
  if (r.swa_tokens) {
    j["full_tokens"] = r.full_tokens;
    j["swa_tokens"] = r.swa_tokens;
  }
  if (r.mamba_cache_per_req) {
    j["mamba_cache_per_req"] = r.mamba_cache_per_req;
    j["mamba_slots"] = r.mamba_slots;
    j["mamba_bytes"] = r.mamba_bytes;
  }
  j["context_length"] = r.context_length;
  j["max_running_requests"] = r.max_running_requests;
  j["max_concurrency"] = r.max_concurrency;
  j["starts"] = r.starts;
  if (!r.starts) j["error"] = r.error;
  return j;
}

nlohmann::json to_json(const TrtllmResult& r) {
  auto j = common("trtllm", r.log_lines, r.notes);
  j["bytes_per_token"] = r.bytes_per_token;
  j["block_bytes"] = r.block_bytes;
  j["kv_memory_bytes"] = r.kv_memory_bytes;
  j["max_tokens"] = r.max_tokens;
  j["kv_cache_tokens"] = r.max_tokens;
  j["blocks"] = r.blocks;
  j["num_blocks"] = r.blocks;
  j["max_seq_len"] = r.max_seq_len;
  j["max_concurrency"] = r.max_concurrency;
  j["vswa"] = r.vswa;
  j["mamba_bytes"] = r.mamba_bytes;
  auto& ws = j["windows"] = nlohmann::json::array();
  for (const auto& w : r.windows)
    ws.push_back({{"window", w.window}, {"layers", w.layers}, {"bytes_per_token", w.bytes_per_token}, {"blocks", w.blocks},
                  {"tokens", w.tokens}});
  j["starts"] = r.starts;
  if (!r.starts) j["error"] = r.error;
  return j;
}

std::string format_engine_text(const VllmResult& r) {
  std::ostringstream os;
  os << "vLLM: " << r.layout << " layout, block size " << format_count(r.block_size, "token");
  if (r.attention_block_size && r.attention_block_size != r.block_size) os << " (attention " << r.attention_block_size << ")";
  os << ", " << format_count(r.num_groups, "group") << " of " << format_count(r.group_size, "layer") << "\n";
  os << "  page per layer: " << format_count(r.page_bytes) << " B; available KV memory per GPU: "
     << format_bytes(r.available_kv_bytes) << "\n";
  os << "  num_blocks: " << format_count(r.num_blocks) << "; KV cache tokens: " << format_count(r.kv_cache_tokens)
     << "; max concurrency at " << format_count(r.max_model_len, "token") << ": " << format_fixed(r.max_concurrency, 2) << "x\n";
  if (!r.starts)
    os << "  does NOT start; the largest max_model_len that fits is " << format_count(r.max_fitting_len) << "\n";
  return os.str() + lines(r.log_lines, r.notes);
}

std::string format_engine_text(const LlamaCppResult& r) {
  std::ostringstream os;
  os << "llama.cpp: n_ctx " << r.n_ctx << ", " << format_count(r.n_seq_max, "sequence") << ", "
     << format_count(r.n_stream, "stream") << " of " << format_count(r.cells, "cell") << (r.kv_unified ? " (unified)" : "")
     << "\n";
  if (r.swa_cells) os << "  SWA cache: " << format_count(r.swa_cells, "cell") << " per stream\n";
  os << "  KV: " << format_bytes(r.kv_bytes) << " (K " << format_mib(r.k_bytes) << ", V " << format_mib(r.v_bytes) << ")";
  if (r.state_bytes) os << "; recurrent state: " << format_bytes(r.state_bytes);
  os << "\n";
  return os.str() + lines(r.log_lines, r.notes);
}

std::string format_engine_text(const SglangResult& r) {
  std::ostringstream os;
  os << "SGLang: mem_fraction_static " << format_fixed(r.mem_fraction_static, 3) << (r.mem_fraction_default ? " (default)" : "")
     << ", page size " << r.page_size << ", cell " << format_count(r.cell_size) << " B/token\n";
  os << "  max_total_num_tokens: " << format_count(r.max_total_num_tokens) << " (" << format_count(r.rows_allocated)
     << " rows allocated), KV pool " << format_bytes(r.kv_bytes) << "\n";
  if (r.mamba_slots) os << "  Mamba slots: " << r.mamba_slots << " x " << format_count(r.mamba_cache_per_req) << " B\n";
  if (!r.starts) os << "  does NOT start: " << r.error << "\n";
  return os.str() + lines(r.log_lines, r.notes);
}

std::string format_engine_text(const TrtllmResult& r) {
  std::ostringstream os;
  os << "TensorRT-LLM: " << format_count(r.bytes_per_token) << " B/token, KV memory " << format_bytes(r.kv_memory_bytes)
     << "\n  max_tokens " << format_count(r.max_tokens) << ", " << format_count(r.blocks) << " blocks; max concurrency at "
     << format_count(r.max_seq_len, "token") << ": " << format_fixed(r.max_concurrency, 2) << "x\n";
  if (!r.starts) os << "  does NOT start: " << r.error << "\n";
  return os.str() + lines(r.log_lines, r.notes);
}

EngineReport engine_report(EngineKind kind, const ModelSpec& m, const nlohmann::json& request, FieldNaming naming) {
  EngineReport out;
  // The options are parsed before the profile runs, so the echo is what the profile was given.
  auto run = [&](const auto& options, auto profile) {
    const auto result = profile(m, options);
    out.json = to_json(result);
    out.json["request"] = request_json(options);
    out.json["model"] = m.name;
    out.text = format_engine_text(result);
  };
  switch (kind) {
    case EngineKind::vllm: run(vllm_options_from_request(request, naming), vllm_profile); break;
    case EngineKind::llamacpp: run(llamacpp_options_from_request(request, naming), llamacpp_profile); break;
    case EngineKind::sglang: run(sglang_options_from_request(request, naming), sglang_profile); break;
    case EngineKind::trtllm: run(trtllm_options_from_request(request, naming), trtllm_profile); break;
    case EngineKind::ollama: run(ollama_options_from_request(request, naming), ollama_profile); break;
  }
  return out;
}

}  // namespace kvplan
