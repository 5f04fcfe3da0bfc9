// A resolved MODEL -> ModelSpec: config.json (+ exact weights from safetensors headers beside it),
// a GGUF file (metadata -> config, tensor infos -> exact weights), or a bundled config.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "kvplan/checked.h"
#include "kvplan/error.h"
#include "kvplan/files.h"
#include "kvplan/gguf.h"
#include "kvplan/registry.h"
#include "model/checkpoint_internal.h"
#include "util/config_view.h"

#include <nlohmann/json.hpp>

namespace kvplan::detail {

namespace fs = std::filesystem;
using u64 = std::uint64_t;

namespace {

// Real config.json files are a few KB (the largest bundled one, with per-layer lists, ~60 KB); a
// multi-GB weights file named by mistake is refused before it is read (kMaxConfigFileBytes).
std::string read_config(const fs::path& p) {
  std::error_code ec;
  const u64 size = fs::file_size(p, ec);
  if (!ec && size > kMaxConfigFileBytes)
    throw InputError::value("model", p.string(),
                            "a config.json (this file is " + std::to_string(size) + " bytes; weights files are "
                            "read by their headers: pass the folder, a .gguf or a .safetensors' folder)");
  return read_regular_file(p.string(), kMaxConfigFileBytes, "model config.json");
}

// NVIDIA ModelOpt checkpoints (nvidia/*-FP8, *-FP4) keep their quantisation in
// hf_quant_config.json beside a config.json that names none; TensorRT-LLM
// (ModelOPTQuantConfigReader) and vLLM's modelopt method read it from there. Its "quantization"
// object becomes the config's quantization_config (quant_method "modelopt"), so the weights are
// not priced as bf16. A config.json with its own quantization_config is left as it is. Like a
// malformed quantization_config, a malformed file never blocks the cache answer: `unreadable`
// gets the reason and the weights stay unknown.
std::string with_hf_quant_config(std::string config_text, const fs::path& config, std::string& unreadable) {
  const fs::path hq = config.parent_path() / "hf_quant_config.json";
  std::error_code ec;
  if (!fs::is_regular_file(hq, ec)) return config_text;
  auto cfg = nlohmann::json::parse(config_text, nullptr, false);
  if (!cfg.is_object() || cfg.contains("quantization_config")) return config_text;
  try {
    auto q = nlohmann::json::parse(read_regular_file(hq.string(), kMaxConfigFileBytes, "hf_quant_config.json"), nullptr, false);
    if (!q.is_object() || !q.contains("quantization") || !q["quantization"].is_object())
      throw InputError::value("model", hq.string(), "an hf_quant_config.json with a \"quantization\" object (ModelOpt's layout)");
    cfg["quantization_config"] = {{"quant_method", "modelopt"}, {"quantization", q["quantization"]}};
  } catch (const Error& e) {
    unreadable = e.what();
    return config_text;
  }
  return cfg.dump();
}

// Shards of a split GGUF ("name-00001-of-00003.gguf"): the first holds the metadata, every shard
// its own tensor infos.
std::vector<fs::path> split_shards(const fs::path& first, const GgufHeader& h) {
  auto it = h.metadata.find("split.count");
  if (it == h.metadata.end()) return {};
  // llama.cpp writes split.count as a u16 (gguf-split LLM_KV_SPLIT_COUNT); anything else is a
  // malformed file, never "not split".
  if (!it->is_number_unsigned() || it->get<u64>() == 0)
    throw ConfigError::field(first.string(), "split.count", "a positive integer (the number of split files)",
                             detail::describe_json(*it), "gguf");
  if (it->get<u64>() == 1) return {};
  const u64 count = it->get<u64>();
  const std::string name = first.filename().string();
  char tail[32];
  std::snprintf(tail, sizeof tail, "-00001-of-%05llu.gguf", static_cast<unsigned long long>(count));
  if (count > 99999 || name.size() <= std::string_view(tail).size() || !name.ends_with(tail))
    throw InputError::value("model", first.string(),
                            "the first shard of a split GGUF named NAME-00001-of-" + std::string(tail + 10, 5) +
                                ".gguf (split.count = " + std::to_string(count) + ")");
  const std::string stem = name.substr(0, name.size() - std::string_view(tail).size());
  std::vector<fs::path> out;
  for (u64 i = 2; i <= count; ++i) {
    std::snprintf(tail, sizeof tail, "-%05llu-of-%05llu.gguf", static_cast<unsigned long long>(i),
                  static_cast<unsigned long long>(count));
    fs::path p = first.parent_path() / (stem + tail);
    std::error_code ec;
    if (!fs::is_regular_file(p, ec))
      throw InputError::value("model", first.string(), "every shard of the split GGUF beside it (missing " + p.string() + ")");
    out.push_back(p);
  }
  return out;
}

}  // namespace

ModelSpec load_gguf_model(const fs::path& file, const LoadOptions& opts) {
  const GgufHeader h = read_gguf_header(file);
  const nlohmann::json cfg = gguf_to_config(h, file.string());
  ModelSpec m = load_model_from_json(cfg.dump(), file.string(), opts);
  std::vector<CheckpointTensor> tensors = gguf_checkpoint_tensors(h);
  u64 read = h.bytes_read;
  const auto shards = split_shards(file, h);
  for (const auto& s : shards) {
    const GgufHeader hs = read_gguf_header(s);
    read = checked_add(read, hs.bytes_read, "bytes read");
    auto more = gguf_checkpoint_tensors(hs);
    tensors.insert(tensors.end(), more.begin(), more.end());
  }
  m.checkpoint_weights = sum_checkpoint_tensors(
      tensors, m.num_layers(),
      shards.empty() ? "GGUF tensor infos" : "GGUF tensor infos (" + std::to_string(shards.size() + 1) + " shards)");
  m.checkpoint_weights->header_bytes_read = read;
  m.architecture = "gguf:" + h.metadata["general.architecture"].get<std::string>();
  m.assumptions.push_back("GGUF names no serving dtype: f16 (llama.cpp's default cache type) is the model dtype");
  return m;
}

ModelSpec load_resolved(const ResolvedModel& r, const LoadOptions& opts) {
  if (!r.bundled_id.empty()) {
    auto b = find_bundled(r.bundled_id);
    ModelSpec m = load_model_from_json(b->json, b->file_name, opts);
    m.name = b->id;
    return m;
  }
  if (!r.gguf.empty()) return load_gguf_model(r.gguf, opts);
  std::string unreadable;
  ModelSpec m = load_model_from_json(with_hf_quant_config(read_config(r.config), r.config, unreadable), r.config.string(), opts);
  if (!unreadable.empty() && m.params.unknown_reason.empty()) m.params.unknown_reason = unreadable;
  if (!r.weights_dir.empty()) {
    CheckpointWeights w = safetensors_weights(r.weights_dir, m.num_layers());
    if (!w.source.empty()) m.checkpoint_weights = std::move(w);
  }
  return m;
}

}  // namespace kvplan::detail
