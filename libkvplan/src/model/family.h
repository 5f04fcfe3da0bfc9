#pragma once
// Internal: the model-family registry. Every family lives in one file,
// libkvplan/src/model/families/<family>.cpp, which defines `std::vector<Family> <family>()`
// (in kvplan::detail::families) returning its records; the build lists those files into one
// table (CMake generates families_table.inc from the folder). A family record is the only
// place a model_type string is named: the loader and the parameter count look the family up
// here, and everything after the loader asks the ModelSpec and its layer specs.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kvplan/dtype.h"

// Family records are written with designated initializers naming only the fields that differ
// from the defaults; GCC's -Wextra would flag every omitted field.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif

namespace kvplan::detail {

struct LoadCtx;   // model/mapping.h
struct ParamCtx;  // model/parameters_internal.h
struct GgufMeta;  // model/gguf_meta.h

// One llama.cpp architecture (GGUF general.architecture) a family owns: the config model_type its
// files translate to and how llama.cpp's loader for it reads the shared keys. model/gguf_config.cpp
// translates the keys every architecture shares; `translate` adds the family's own.
struct GgufArch {
  std::string_view arch;                  // as llama-arch.cpp names it
  std::string_view model_type;            // the config.json model_type it stands for
  bool reads_window = false;              // the loader reads attention.sliding_window (else: every token)
  bool per_layer_kv_heads = false;        // attention.head_count_kv may differ per layer
  bool distinct_kv_lengths = false;       // attention.key_length and value_length may differ
  void (*translate)(const GgufMeta&, nlohmann::json& config) = nullptr;
};

struct Family {
  std::string_view name;                        // for messages and the family list
  std::vector<std::string_view> model_types;    // the config model_type values it serves
  std::vector<GgufArch> gguf = {};              // the llama.cpp architectures whose GGUF files it reads
  void (*map_layers)(const LoadCtx&) = nullptr; // config -> one layer spec per layer
  // Weight tensors; nullptr: the generic-decoder estimate (or no count when that does not apply).
  void (*count_params)(const ParamCtx&) = nullptr;
  // transformers' class defaults for fields the config may omit.
  bool tie_word_embeddings = false;
  std::uint64_t sliding_window_default = 0;     // 0: sliding layers need sliding_window
  // KV head count from the attention head count; nullptr: num_key_value_heads (default: heads).
  std::uint64_t (*kv_heads)(const LoadCtx&, std::uint64_t heads) = nullptr;
  // The SSM state dtype vLLM's implementation of this family forces when left "auto".
  std::optional<Dtype> vllm_ssm_state_dtype;
};

// The family serving `model_type`, or nullptr.
const Family* find_family(std::string_view model_type);
// The family that owns GGUF architecture `arch` and its record there, or nullptr.
const GgufArch* find_gguf_arch(std::string_view arch);
// Every registered family, in file-name order.
const std::vector<Family>& all_families();

}  // namespace kvplan::detail
