#pragma once
// Models as users have them on disk: where a MODEL argument points (a path, the Hugging Face
// cache, the Ollama store, the bundled catalog), and the exact weight bytes read from the
// checkpoint's own headers (safetensors, GGUF) without touching tensor data.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kvplan/files.h"  // kMaxJsonDepth

namespace kvplan {

// Where a MODEL argument was found. Exactly one of config / gguf / bundled_id is set.
struct ResolvedModel {
  std::string how;                    // "path", "hf-cache", "ollama", "bundled"
  std::filesystem::path config;       // a config.json to read
  std::filesystem::path gguf;         // a GGUF file to read (its header only)
  std::filesystem::path weights_dir;  // the folder that may hold safetensors shards / their index
  std::string bundled_id;             // the catalog id
};

// The Hugging Face hub cache folder: $HF_HUB_CACHE, else $HF_HOME/hub, else
// ~/.cache/huggingface/hub (huggingface_hub's own rule).
std::filesystem::path hf_hub_cache_dir();
// The Ollama model store: $OLLAMA_MODELS, else ~/.ollama/models.
std::filesystem::path ollama_models_dir();

// Resolution order (docs/cli.md): a path (config.json, GGUF file, or a folder holding a config,
// a GGUF file, or a `models--org--name` cache entry); a Hugging Face cache entry for `org/name`
// or `org/name@rev`; `ollama:NAME[:TAG]`; a bundled id. Throws InputError naming the places it
// looked, the command that fetches a config and the closest bundled ids.
ResolvedModel resolve_model(std::string_view name);
// Bundled ids closest to `name`: the same family and size first ("Llama-3.1-8B-Instruct" ->
// "meta-llama/Llama-3.1-8B"), then the same family, then by edit distance.
std::vector<std::string> suggest_models(std::string_view name, std::size_t max = 3);

// One tensor of a checkpoint header: its name, storage type and exact bytes.
struct CheckpointTensor {
  std::string name;
  std::string dtype;                 // safetensors "BF16", "F8_E4M3", "I32", ...; GGUF "Q4_K", ...
  std::vector<std::uint64_t> shape;
  std::uint64_t bytes = 0;
};

// Exact weight bytes from a checkpoint's headers. `layer_bytes[i]` holds the tensors whose name
// carries layer index i (`model.layers.i.`, `blk.i.`); layers past the model's own (DeepSeek's MTP
// layer) are in `mtp_bytes`, not in `total_bytes`.
struct CheckpointWeights {
  std::string source;                // "safetensors headers (2 files)", "model.safetensors.index.json ...", "GGUF tensor infos"
  std::uint64_t total_bytes = 0;     // everything loaded for serving (main model)
  std::uint64_t expert_bytes = 0;    // routed-expert tensors (names with "experts", not "shared")
  std::uint64_t mtp_bytes = 0;       // tensors of layers past the last model layer
  std::uint64_t non_layer_bytes = 0; // embeddings, output head, final norm
  std::vector<std::uint64_t> layer_bytes;
  std::vector<std::uint64_t> layer_expert_bytes;  // the routed-expert part of each layer's bytes
  std::map<std::string, std::uint64_t> bytes_by_dtype;
  std::uint64_t tensor_count = 0;
  std::uint64_t header_bytes_read = 0;  // bytes kvplan read from the files (never tensor data)
  bool exact = true;                 // false: a total from an index's metadata, no per-tensor sizes
};

// Limits on what a header may declare before it is read: a hostile or corrupt file is an error,
// never an allocation of its claimed size.
inline constexpr std::uint64_t kMaxSafetensorsHeaderBytes = 100ull << 20;  // safetensors' own cap is 100 MB

// Reads one .safetensors file's 8-byte length and JSON header (never the tensor data).
std::vector<CheckpointTensor> read_safetensors_header(const std::filesystem::path& file,
                                                      std::uint64_t* bytes_read = nullptr);
// Parses a safetensors header given in memory (the JSON after the 8-byte length);
// `data_bytes_available` is the number of data bytes after the header that the offsets must stay
// within (UINT64_MAX when unknown).
std::vector<CheckpointTensor> parse_safetensors_header(std::string_view json, std::string_view source,
                                                       std::uint64_t data_bytes_available);

// Sums a folder's safetensors headers (every *.safetensors file), else its
// model.safetensors.index.json; nullopt-like empty source when neither is there. `num_layers`
// splits the per-layer sums from the MTP layers.
CheckpointWeights safetensors_weights(const std::filesystem::path& dir, std::uint64_t num_layers);
// Groups tensors into a CheckpointWeights (shared by the safetensors and GGUF readers).
CheckpointWeights sum_checkpoint_tensors(const std::vector<CheckpointTensor>& tensors, std::uint64_t num_layers,
                                         std::string source);

}  // namespace kvplan
