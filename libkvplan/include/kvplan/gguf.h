#pragma once
// GGUF (llama.cpp's model file) headers: metadata and tensor infos, read with bounded,
// streaming reads that stop where the tensor data begins (never mapped, never read).
#include <cstdint>
#include <filesystem>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvplan/checkpoint.h"

namespace kvplan {

// What a header may declare before kvplan refuses it (a corrupt or hostile file is an error,
// never an allocation of the size it claims).
struct GgufLimits {
  std::uint64_t max_kv = 1u << 16;             // metadata pairs (real files: < 100)
  std::uint64_t max_tensors = 1u << 20;        // tensor infos (real files: a few thousand)
  std::uint64_t max_string_bytes = 16u << 20;  // one string (chat templates reach ~100 KB)
  std::uint64_t max_array = 1u << 25;          // elements of one array (vocabularies: ~260k)
  std::uint64_t max_kept_array = 4096;         // longer arrays are counted, not kept
  std::uint64_t max_header_bytes = 1ull << 30; // everything before the tensor data
};

struct GgufTensorInfo {
  std::string name;
  std::uint32_t type = 0;                 // ggml_type
  std::vector<std::uint64_t> dims;        // ne[0] (innermost) first
  std::uint64_t offset = 0;               // from the start of the data section
  std::uint64_t bytes = 0;                // exact, from ggml's block size and type size
};

struct GgufHeader {
  std::uint32_t version = 0;              // 2 or 3
  // Metadata as JSON: numbers, bools, strings; arrays up to max_kept_array elements as JSON
  // arrays, longer ones as {"gguf_array_type": T, "length": N} (kept lengths, dropped contents).
  nlohmann::json metadata = nlohmann::json::object();
  std::vector<GgufTensorInfo> tensors;
  std::uint64_t alignment = 32;
  std::uint64_t data_offset = 0;          // where tensor data starts in the file
  std::uint64_t bytes_read = 0;           // bytes kvplan read (the header only)
};

// ggml type traits (block size in values, bytes per block) and name; false for an unknown type.
struct GgmlType {
  std::uint32_t id;
  std::string_view name;
  std::uint64_t block_values;
  std::uint64_t block_bytes;
};
const GgmlType* ggml_type(std::uint32_t id);
const GgmlType* ggml_type(std::string_view name);  // case-insensitive: "Q4_K", "q8_0", "BF16"
// Bytes of one row of `values` numbers (a whole number of blocks; ggml_row_size): the GGUF reader's
// tensor bytes and the GGUF --weight-dtype presets both use it.
std::uint64_t ggml_row_bytes(const GgmlType& t, std::uint64_t values);

// Reads a header from a stream of `stream_bytes` bytes (a file or memory); `source` names it in
// errors. Throws FormatError for a wrong magic, unsupported version, truncation, a declared size
// over `limits`, nested arrays, unknown value or tensor types, and tensor data past the end.
GgufHeader read_gguf_header(std::istream& in, std::uint64_t stream_bytes, std::string_view source,
                            const GgufLimits& limits = {});
GgufHeader read_gguf_header(const std::filesystem::path& file, const GgufLimits& limits = {});

// The tensor infos as checkpoint tensors (name, ggml type name, shape, bytes).
std::vector<CheckpointTensor> gguf_checkpoint_tensors(const GgufHeader& h);

// llama.cpp's metadata (general.architecture, {arch}.block_count, attention.*, ssm.*, ...) as
// the Hugging Face config.json the same model ships with, so one mapping (load_model_from_json)
// serves both. Throws UnsupportedArchitecture for an architecture it cannot translate.
nlohmann::json gguf_to_config(const GgufHeader& h, std::string_view source);

}  // namespace kvplan
